-- Docket database schema: the schema of a new database (embedded in the binary).
--
-- Version 2 (PRAGMA user_version). A database of an older version is upgraded at start by the
-- numbered migrations in src/db/migrations/, each in one transaction, after an automatic backup.
-- When you change this file, add the matching migration and bump db::migrate::LATEST; a unit
-- test checks that the oldest schema plus every migration equals this file.
--
-- Times are Unix seconds (UTC). Secrets are stored only as SHA-256 hex digests (`*_hash`);
-- passwords as argon2id PHC strings.

-- Small key/value facts about this installation (e.g. the public URL the server last ran with,
-- so admin commands print the same URLs as the server).
CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE users (
    id            INTEGER PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE,          -- lowercased
    username      TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL,
    tier          TEXT NOT NULL DEFAULT 'standard' CHECK (tier IN ('standard', 'enterprise')),
    password_hash TEXT NOT NULL,                 -- argon2id PHC string
    time_zone     TEXT NOT NULL DEFAULT 'UTC',
    disabled_at   INTEGER,                       -- set: cannot log in, tokens and keys refused
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);

-- OAuth clients, registered only by an admin (`docket client add`).
CREATE TABLE oauth_clients (
    id                INTEGER PRIMARY KEY,
    client_id         TEXT NOT NULL UNIQUE,      -- public identifier
    name              TEXT NOT NULL,
    secret_hash       TEXT,                      -- NULL for public clients
    logo_url          TEXT,
    app_url           TEXT,
    is_public         INTEGER NOT NULL DEFAULT 0 CHECK (is_public IN (0, 1)),
    created_at        INTEGER NOT NULL,
    secret_rotated_at INTEGER,
    allowed_scopes    TEXT                       -- space-separated; NULL means every scope (v2)
);

-- Registered redirect URIs, compared to the request by exact string equality.
CREATE TABLE oauth_client_redirect_uris (
    client_id INTEGER NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    uri       TEXT NOT NULL,
    PRIMARY KEY (client_id, position),
    UNIQUE (client_id, uri)
);

CREATE TABLE api_keys (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    key_hash     TEXT NOT NULL UNIQUE,           -- SHA-256 of the whole key
    key_prefix   TEXT NOT NULL,                  -- first characters, to recognise a key in lists
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER,
    revoked_at   INTEGER,
    last_used_at INTEGER
);
CREATE INDEX api_keys_user ON api_keys (user_id);

-- Content files under <data>/blobs/, written atomically; rows are added after the file is durable.
CREATE TABLE blobs (
    id           TEXT PRIMARY KEY,
    size         INTEGER NOT NULL,
    sha256       TEXT NOT NULL,
    content_type TEXT NOT NULL,
    created_at   INTEGER NOT NULL
);
