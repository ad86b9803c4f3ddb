-- Version 2: clients may be limited to some scopes at registration (`client add --scope`),
-- and blob files get a table so backups and documents know which files exist.
ALTER TABLE oauth_clients ADD COLUMN allowed_scopes TEXT;

CREATE TABLE blobs (
    id           TEXT PRIMARY KEY,
    size         INTEGER NOT NULL,
    sha256       TEXT NOT NULL,
    content_type TEXT NOT NULL,
    created_at   INTEGER NOT NULL
);
