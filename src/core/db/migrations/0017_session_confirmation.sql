-- Changes to how an account signs in (an authenticator app set up or replaced, a passkey added
-- or removed) ask its owner to confirm who they are first: a current second factor, or the
-- password for an account without one. `confirmed_at` is when this session last did.
ALTER TABLE sessions ADD COLUMN confirmed_at INTEGER;

-- Passkey ceremonies may now confirm a session (CONFIRM). Ceremonies live five minutes, so the
-- few under way at the upgrade are dropped with the table rather than copied.
DROP TABLE webauthn_ceremonies;
CREATE TABLE webauthn_ceremonies (
    id           INTEGER PRIMARY KEY,
    challenge    TEXT NOT NULL UNIQUE,
    purpose      TEXT NOT NULL CHECK (purpose IN ('REGISTER', 'LOGIN', 'SIGN', 'CONFIRM')),
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    recipient_id INTEGER REFERENCES recipients (id) ON DELETE CASCADE,
    state        BLOB NOT NULL,
    expires_at   INTEGER NOT NULL
);
CREATE INDEX webauthn_ceremonies_user ON webauthn_ceremonies (user_id);
CREATE INDEX webauthn_ceremonies_recipient ON webauthn_ceremonies (recipient_id);
