-- Accounts people run themselves (issue 26): the one-time links mailed to reset a forgotten
-- password (to the account's address) and to confirm a new e-mail address (to the new one).
-- Stored by the SHA-256 of the token, never the token; a link works once, until `expires_at`.
-- `email` is where the link went (for EMAIL_CHANGE, the address the account changes to).
CREATE TABLE account_links (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose    TEXT NOT NULL,
    email      TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at    INTEGER
);
CREATE INDEX account_links_user ON account_links (user_id, purpose, created_at);
