-- Version 3: login sessions, login throttling, OAuth grants, codes and tokens, bookings.

-- Browser sessions after login; the cookie holds the token, the table its SHA-256.
CREATE TABLE sessions (
    id           INTEGER PRIMARY KEY,
    token_hash   TEXT NOT NULL UNIQUE,
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);

-- Failed logins per account (`email:<address>`) and per client address (`ip:<address>`).
CREATE TABLE login_failures (
    key          TEXT PRIMARY KEY,
    failures     INTEGER NOT NULL,
    first_at     INTEGER NOT NULL,
    last_at      INTEGER NOT NULL,
    locked_until INTEGER
);

-- What a user allowed an app: one live grant per user and client; revoking it ends its tokens.
CREATE TABLE oauth_grants (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    client_id    INTEGER NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    scopes       TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
);
CREATE UNIQUE INDEX oauth_grants_live ON oauth_grants (user_id, client_id) WHERE revoked_at IS NULL;
CREATE INDEX oauth_grants_client ON oauth_grants (client_id);

CREATE TABLE oauth_codes (
    id             INTEGER PRIMARY KEY,
    code_hash      TEXT NOT NULL UNIQUE,
    grant_id       INTEGER NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    redirect_uri   TEXT NOT NULL,
    scopes         TEXT NOT NULL,
    code_challenge TEXT,                         -- S256 challenge, when PKCE was used
    created_at     INTEGER NOT NULL,
    expires_at     INTEGER NOT NULL,
    used_at        INTEGER
);
CREATE INDEX oauth_codes_grant ON oauth_codes (grant_id);

-- Access and refresh tokens. `code_id` is the code the token line descends from (kept through
-- refreshes), so reusing a code revokes everything it issued.
CREATE TABLE oauth_tokens (
    id         INTEGER PRIMARY KEY,
    grant_id   INTEGER NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    code_id    INTEGER REFERENCES oauth_codes (id) ON DELETE SET NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
    token_hash TEXT NOT NULL UNIQUE,
    scopes     TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    revoked_at INTEGER,
    rotated_at INTEGER                           -- refresh tokens replaced by a newer one
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
CREATE INDEX oauth_tokens_code ON oauth_tokens (code_id);

CREATE TABLE bookings (
    id                  INTEGER PRIMARY KEY,
    uid                 TEXT NOT NULL UNIQUE,
    user_id             INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    title               TEXT NOT NULL,
    description         TEXT,
    start_time          INTEGER NOT NULL,
    end_time            INTEGER NOT NULL,
    status              TEXT NOT NULL DEFAULT 'ACCEPTED'
                        CHECK (status IN ('ACCEPTED', 'PENDING', 'CANCELLED', 'REJECTED')),
    location            TEXT,
    attendees           TEXT NOT NULL DEFAULT '[]',  -- JSON [{"name","email","timeZone"}]
    cancellation_reason TEXT,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL
);
CREATE INDEX bookings_user_created ON bookings (user_id, created_at DESC, id DESC);
