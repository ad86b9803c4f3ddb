-- Role ASSISTANT: the signing service's assistant recipient, who fills in fields for the
-- recipients after them before signing passes on.
--
-- SQLite cannot alter a CHECK constraint, and rebuilding `recipients` (new table, copy, drop,
-- rename) would, with foreign keys on, cascade the drop into `fields` and the other tables that
-- refer to it: `PRAGMA foreign_keys` cannot be turned off inside the migration's transaction.
-- Widening the list of roles only admits more rows, so every stored row still satisfies it:
-- the table's stored definition is edited in place, the procedure SQLite documents for such
-- changes (https://www.sqlite.org/lang_altertable.html#otheralter). The runner then bumps
-- `schema_version`, so that every connection rereads the schema.
PRAGMA writable_schema = ON;
UPDATE sqlite_master
   SET sql = replace(sql,
                     'CHECK (role IN (''SIGNER'', ''APPROVER'', ''VIEWER'', ''CC''))',
                     'CHECK (role IN (''SIGNER'', ''APPROVER'', ''VIEWER'', ''CC'', ''ASSISTANT''))')
 WHERE type = 'table' AND name = 'recipients';
PRAGMA writable_schema = OFF;
