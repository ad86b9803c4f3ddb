-- Codes e-mailed to a recipient whose document asks for TWO_FACTOR_AUTH, as the peers offer
-- beside authenticator apps (issue 56, part 4): six random digits, kept only as a SHA-256 bound
-- to the recipient and to the account they were sent for, good for ten minutes and once. One
-- row a recipient: a new request replaces the code (the requests are throttled in
-- `login_failures`, under keys of their own). A used code's row stays: it is the record that
-- the recipient finished with an e-mailed code, which the audit certificate says.
CREATE TABLE emailed_codes (
    id           INTEGER PRIMARY KEY,
    recipient_id INTEGER NOT NULL UNIQUE REFERENCES recipients (id) ON DELETE CASCADE,
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash    TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    used_at      INTEGER
);
CREATE INDEX emailed_codes_user ON emailed_codes (user_id);
