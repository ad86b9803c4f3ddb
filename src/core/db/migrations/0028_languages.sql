-- The language recipients read a document's pages and e-mails in (issue 55): an account's and
-- a team's default for the documents and templates made there. NULL is English, as every
-- document made before this version reads.
ALTER TABLE users ADD COLUMN language TEXT CHECK (language IN ('en', 'de', 'fr', 'es', 'it', 'nl', 'pl', 'pt'));
ALTER TABLE teams ADD COLUMN language TEXT CHECK (language IN ('en', 'de', 'fr', 'es', 'it', 'nl', 'pl', 'pt'));
