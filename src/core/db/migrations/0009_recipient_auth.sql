-- Recipient authentication (ACCOUNT, TWO_FACTOR_AUTH, PASSKEY) and the second factors of
-- accounts: TOTP with recovery codes, passkeys, logins that wait for a second factor, and
-- accounts created from a mailed link.

-- TOTP: the secret is encrypted (nonce || ciphertext) under `<data>/secrets/account-secrets.key`.
-- `totp_pending` holds a secret being enrolled until a code confirms it; `totp_last_step` is the
-- last 30 s step whose code was accepted, so no code is accepted twice.
ALTER TABLE users ADD COLUMN totp_secret BLOB;
ALTER TABLE users ADD COLUMN totp_pending BLOB;
ALTER TABLE users ADD COLUMN totp_enabled_at INTEGER;
ALTER TABLE users ADD COLUMN totp_last_step INTEGER NOT NULL DEFAULT 0;
-- The WebAuthn user handle: 64 random bytes, made with the first passkey.
ALTER TABLE users ADD COLUMN passkey_handle BLOB;

-- What a recipient proved when they finished (signed, approved, viewed or rejected):
-- NULL for the link alone, else ACCOUNT, TWO_FACTOR_AUTH or PASSKEY.
ALTER TABLE recipients ADD COLUMN auth_method TEXT;
ALTER TABLE recipients ADD COLUMN auth_user_id INTEGER REFERENCES users (id) ON DELETE SET NULL;
CREATE INDEX recipients_auth_user ON recipients (auth_user_id);

-- One-time recovery codes for a lost TOTP device (SHA-256 of the code).
CREATE TABLE recovery_codes (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash  TEXT NOT NULL,
    used_at    INTEGER,
    created_at INTEGER NOT NULL
);
CREATE INDEX recovery_codes_user ON recovery_codes (user_id);

-- Passkeys (WebAuthn credentials), in webauthn_rp's binary encodings.
CREATE TABLE passkeys (
    id            INTEGER PRIMARY KEY,
    user_id       INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    credential_id BLOB NOT NULL UNIQUE,
    transports    INTEGER NOT NULL DEFAULT 0,  -- the authenticator's transports, a bit set
    static_state  BLOB NOT NULL,     -- the public key
    dynamic_state BLOB NOT NULL,     -- signature counter, backup flags
    name          TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    last_used_at  INTEGER
);
CREATE INDEX passkeys_user ON passkeys (user_id);

-- WebAuthn ceremonies under way (registration or assertion), taken once by their challenge.
-- `purpose`: REGISTER, LOGIN or SIGN; bound to the user, and for SIGN to the recipient.
CREATE TABLE webauthn_ceremonies (
    id           INTEGER PRIMARY KEY,
    challenge    TEXT NOT NULL UNIQUE,
    purpose      TEXT NOT NULL CHECK (purpose IN ('REGISTER', 'LOGIN', 'SIGN')),
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    recipient_id INTEGER REFERENCES recipients (id) ON DELETE CASCADE,
    state        BLOB NOT NULL,
    expires_at   INTEGER NOT NULL
);
CREATE INDEX webauthn_ceremonies_user ON webauthn_ceremonies (user_id);
CREATE INDEX webauthn_ceremonies_recipient ON webauthn_ceremonies (recipient_id);

-- A password was right and the account has a second factor: the login waits here (the
-- browser holds the token) until a TOTP code, a recovery code or a passkey completes it.
CREATE TABLE pending_logins (
    id          INTEGER PRIMARY KEY,
    token_hash  TEXT NOT NULL UNIQUE,
    user_id     INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    failures    INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL
);
CREATE INDEX pending_logins_user ON pending_logins (user_id);

-- A link mailed to a recipient without an account, to create one for that address.
CREATE TABLE account_invites (
    id           INTEGER PRIMARY KEY,
    email        TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    recipient_id INTEGER REFERENCES recipients (id) ON DELETE CASCADE,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    used_at      INTEGER
);
CREATE INDEX account_invites_email ON account_invites (email, created_at);
CREATE INDEX account_invites_recipient ON account_invites (recipient_id);
