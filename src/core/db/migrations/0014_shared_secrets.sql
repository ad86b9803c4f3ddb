-- Secret material every node must share (the HMAC key ring of signed URLs and CSRF tokens, the
-- webhook and account secret keys, the ID token key, the local CA, the seal certificate), kept
-- in the database when docket runs with a secret key (--secret-key-file or DOCKET_SECRET_KEY;
-- required with PostgreSQL). `sealed` is XChaCha20-Poly1305 under that key, bound to `name`;
-- the row `key-check` holds a known value that tells a wrong key at start. Without a secret
-- key (SQLite), the secrets stay in files under the data dir and this table stays empty.
CREATE TABLE shared_secrets (
    name       TEXT PRIMARY KEY,
    sealed     BLOB NOT NULL,
    created_at INTEGER NOT NULL
);
