-- Sealing that fails is retried with backoff and shown to the owner: how many attempts failed,
-- the last one's error (as the owner may read it) and when the next attempt is due (unix
-- seconds; NULL when none failed, and again once the document is sealed).

ALTER TABLE documents ADD COLUMN seal_failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN seal_error TEXT;
ALTER TABLE documents ADD COLUMN seal_next_at INTEGER;
