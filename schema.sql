-- Docket database schema: the schema of a new database (embedded in the binary).
--
-- Version 36 (PRAGMA user_version). A database of an older version is upgraded at start by the
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
    updated_at    INTEGER NOT NULL,
    -- TOTP: the secret encrypted under <data>/secrets/account-secrets.key (nonce || ciphertext);
    -- `totp_pending` is a secret being enrolled until a code confirms it; `totp_last_step` is
    -- the last 30 s step whose code was accepted, so no code is accepted twice.
    totp_secret     BLOB,
    totp_pending    BLOB,
    totp_enabled_at INTEGER,
    totp_last_step  INTEGER NOT NULL DEFAULT 0,
    passkey_handle  BLOB,                        -- WebAuthn user handle, 64 random bytes
    -- The language recipients read this account's new documents in (v28); NULL: English.
    language        TEXT CHECK (language IN ('en', 'de', 'fr', 'es', 'it', 'nl', 'pl', 'pt')),
    -- The deadline this account's new documents take (JSON, as
    -- meta.envelopeExpirationPeriod; NULL: none) (v30).
    expiration_period TEXT,
    -- The origins that may frame the signing pages of this account's documents, one a line
    -- (v34); NULL: none.
    frame_origins   TEXT
);

-- Teams (v25): a few people who share documents, templates, API tokens and webhooks. A row of
-- those with `team_id` NULL is its owner's personal one; `user_id` stays its creator.
CREATE TABLE teams (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    slug        TEXT NOT NULL UNIQUE,            -- the team's URLs: /t/{slug}/...
    sender_name TEXT,                            -- shown to recipients; NULL: the team's name
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    -- The defaults of the documents and templates made in the team (v27); NULL: the product's.
    signing_order TEXT CHECK (signing_order IN ('PARALLEL', 'SEQUENTIAL')),
    date_format   TEXT,                          -- one of the document date formats
    time_zone     TEXT,                          -- an IANA name
    redirect_url  TEXT,                          -- an absolute http(s) URL, normalised
    language      TEXT CHECK (language IN ('en', 'de', 'fr', 'es', 'it', 'nl', 'pl', 'pt')), -- v28
    expiration_period TEXT,                      -- JSON, as meta.envelopeExpirationPeriod (v30)
    frame_origins TEXT                           -- origins that may frame its signing pages, one a line (v34)
);
CREATE TABLE team_members (
    team_id    INTEGER NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       TEXT NOT NULL CHECK (role IN ('ADMIN', 'MANAGER', 'MEMBER')),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user ON team_members (user_id);
-- Single-use, expiring invitations by e-mail (SHA-256 of the token).
CREATE TABLE team_invitations (
    id         INTEGER PRIMARY KEY,
    team_id    INTEGER NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    email      TEXT NOT NULL,
    role       TEXT NOT NULL CHECK (role IN ('ADMIN', 'MANAGER', 'MEMBER')),
    token_hash TEXT NOT NULL UNIQUE,
    invited_by INTEGER REFERENCES users (id) ON DELETE SET NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at    INTEGER
);
CREATE INDEX team_invitations_team ON team_invitations (team_id);
CREATE INDEX team_invitations_invited_by ON team_invitations (invited_by);

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
    last_used_at INTEGER,
    team_id      INTEGER REFERENCES teams (id)      -- made in a team's settings: acts on it (v25)
);
CREATE INDEX api_keys_user ON api_keys (user_id);
CREATE INDEX api_keys_team ON api_keys (team_id) WHERE team_id IS NOT NULL;

-- Content files under <data>/blobs/, written atomically; rows are added after the file is durable.
CREATE TABLE blobs (
    id           TEXT PRIMARY KEY,
    size         INTEGER NOT NULL,
    sha256       TEXT NOT NULL,
    content_type TEXT NOT NULL,
    created_at   INTEGER NOT NULL
);

-- Browser sessions after login; the cookie holds the token, the table its SHA-256.
CREATE TABLE sessions (
    id           INTEGER PRIMARY KEY,
    token_hash   TEXT NOT NULL UNIQUE,
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    -- When the owner last confirmed who they are in this session (a current second factor, or
    -- the password for an account without one); sign-in security changes ask for it.
    confirmed_at INTEGER
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
    used_at        INTEGER,
    nonce          TEXT,                         -- OpenID Connect: the request's nonce
    redirect_uri_sent INTEGER NOT NULL DEFAULT 1, -- 0: the client's only URI, not named
    auth_time      INTEGER                       -- when the user signed in (ID token auth_time)
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
    updated_at          INTEGER NOT NULL,
    -- JSON {"title","description","length","requiresConfirmation","price","currency"}, each
    -- optional (what is left out is derived from the booking); NULL: all derived (v11)
    event_type          TEXT,
    responses           TEXT NOT NULL DEFAULT '{}', -- JSON: the booker's answers by field name
    -- The booking as clients see it without `user` (the JSON it serialises to), written with
    -- every change of the row; NULL for rows from before v23, rendered when read (v23)
    rendered            TEXT
);
CREATE INDEX bookings_user_created ON bookings (user_id, created_at DESC, id DESC);

-- Folders (v35): a workspace's documents or templates sorted into a tree. Personal (`team_id`
-- NULL, its `user_id`'s) or a team's, with the visibility team documents have; of one `type`.
-- The id is random text. Deleting a folder deletes the folders under it and puts what they
-- held back at the root (`documents.folder_id`, `templates.folder_id`: ON DELETE SET NULL).
-- Depth, count and no cycles are `signing::folders`' rules.
CREATE TABLE folders (
    id         TEXT PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    team_id    INTEGER REFERENCES teams (id) ON DELETE CASCADE,
    parent_id  TEXT REFERENCES folders (id) ON DELETE CASCADE,
    type       TEXT NOT NULL CHECK (type IN ('DOCUMENT', 'TEMPLATE')),
    name       TEXT NOT NULL,
    visibility TEXT NOT NULL DEFAULT 'EVERYONE'
               CHECK (visibility IN ('EVERYONE', 'MANAGER_AND_ABOVE', 'ADMIN')),
    pinned     INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX folders_user ON folders (user_id, type, parent_id);
CREATE INDEX folders_team ON folders (team_id, type, parent_id) WHERE team_id IS NOT NULL;
CREATE INDEX folders_parent ON folders (parent_id);

CREATE TABLE templates (
    id                  INTEGER PRIMARY KEY,
    user_id             INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    external_id         TEXT,
    title               TEXT NOT NULL,
    type                TEXT NOT NULL DEFAULT 'PRIVATE' CHECK (type IN ('PUBLIC', 'PRIVATE')),
    document_data_id    TEXT NOT NULL UNIQUE,        -- names the template's file slot and upload URL
    blob_id             TEXT REFERENCES blobs (id),  -- the uploaded PDF
    page_sizes          TEXT,                        -- JSON [[w, h], ...] in points
    meta_id             TEXT NOT NULL,
    meta                TEXT NOT NULL DEFAULT '{}',  -- JSON: subject, message, timezone, ...
    auth_options        TEXT NOT NULL DEFAULT '{}',
    direct_link_token   TEXT NOT NULL,
    direct_link_enabled INTEGER NOT NULL DEFAULT 0,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL,
    -- The template recipient a visitor of the direct link becomes (cleared with the recipient).
    direct_link_recipient_id INTEGER,
    -- The team it belongs to (NULL: its creator's personal one) and who in it sees it (v25).
    team_id             INTEGER REFERENCES teams (id),
    visibility          TEXT NOT NULL DEFAULT 'EVERYONE'
                        CHECK (visibility IN ('EVERYONE', 'MANAGER_AND_ABOVE', 'ADMIN')),
    -- The folder it is in (NULL: the root; v35).
    folder_id           TEXT REFERENCES folders (id) ON DELETE SET NULL
);
CREATE INDEX templates_user ON templates (user_id, created_at DESC, id DESC);
CREATE INDEX templates_blob ON templates (blob_id);
CREATE UNIQUE INDEX templates_direct_link ON templates (direct_link_token);
CREATE INDEX templates_team ON templates (team_id, created_at DESC, id DESC, visibility)
    WHERE team_id IS NOT NULL;
CREATE INDEX templates_folder ON templates (folder_id) WHERE folder_id IS NOT NULL;

CREATE TABLE documents (
    id               INTEGER PRIMARY KEY,
    user_id          INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    external_id      TEXT,
    title            TEXT NOT NULL,
    status           TEXT NOT NULL DEFAULT 'DRAFT'
                     CHECK (status IN ('DRAFT', 'PENDING', 'COMPLETED', 'REJECTED', 'CANCELLED')),
    document_data_id TEXT NOT NULL UNIQUE,
    blob_id          TEXT REFERENCES blobs (id),
    page_sizes       TEXT,
    meta             TEXT NOT NULL DEFAULT '{}',
    auth_options     TEXT NOT NULL DEFAULT '{}',
    form_values      TEXT,
    template_id      INTEGER REFERENCES templates (id) ON DELETE SET NULL,
    hidden           INTEGER NOT NULL DEFAULT 0,     -- deleted after completion: kept, not listed
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    completed_at     INTEGER,
    sent_at          INTEGER,
    sealed_blob_id   TEXT REFERENCES blobs (id),
    -- Failed sealing attempts, the last one's error as the owner reads it, and when the next
    -- attempt is due (unix seconds; NULL when none failed and once sealed).
    seal_failures    INTEGER NOT NULL DEFAULT 0,
    seal_error       TEXT,
    seal_next_at     INTEGER,
    -- The team it belongs to (NULL: its creator's personal one) and who in it sees it (v25).
    team_id          INTEGER REFERENCES teams (id),
    visibility       TEXT NOT NULL DEFAULT 'EVERYONE'
                     CHECK (visibility IN ('EVERYONE', 'MANAGER_AND_ABOVE', 'ADMIN')),
    -- The folder it is in (NULL: the root; v35).
    folder_id        TEXT REFERENCES folders (id) ON DELETE SET NULL
);
CREATE INDEX documents_user ON documents (user_id, created_at DESC, id DESC);
CREATE INDEX documents_blob ON documents (blob_id);
CREATE INDEX documents_template ON documents (template_id);
CREATE INDEX documents_sealed_blob ON documents (sealed_blob_id);
CREATE INDEX documents_pending ON documents (id) WHERE status = 'PENDING';  -- the sealers' look
-- All of a team's rows, hidden ones too: what the teams' foreign key and a team's deletion
-- look for (its pages come from the indexes below, v26).
CREATE INDEX documents_team ON documents (team_id) WHERE team_id IS NOT NULL;
CREATE INDEX documents_folder ON documents (folder_id) WHERE folder_id IS NOT NULL;

-- How many rows each user's paged lists hold (documents, templates, bookings), kept by triggers
-- in the transaction that changes the rows, so that a page's `totalPages` reads a few rows here
-- instead of counting the user's whole history. `status` is '' for templates, which have none;
-- documents hidden after completion are not listed, so not counted, and a team's rows are
-- counted by team in `team_list_counts` (v26).
CREATE TABLE list_counts (
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    list    TEXT NOT NULL CHECK (list IN ('documents', 'templates', 'bookings')),
    status  TEXT NOT NULL,
    n       INTEGER NOT NULL,
    PRIMARY KEY (user_id, list, status)
);

CREATE TRIGGER documents_counted AFTER INSERT ON documents
WHEN NEW.hidden = 0 AND NEW.team_id IS NULL
BEGIN
    INSERT INTO list_counts (user_id, list, status, n) VALUES (NEW.user_id, 'documents', NEW.status, 1)
    ON CONFLICT (user_id, list, status) DO UPDATE SET n = list_counts.n + 1;
END;

CREATE TRIGGER documents_uncounted AFTER DELETE ON documents
WHEN OLD.hidden = 0 AND OLD.team_id IS NULL
BEGIN
    UPDATE list_counts SET n = n - 1
     WHERE user_id = OLD.user_id AND list = 'documents' AND status = OLD.status;
END;

CREATE TRIGGER documents_recounted AFTER UPDATE OF status, hidden, user_id, team_id ON documents
WHEN (OLD.team_id IS NULL OR NEW.team_id IS NULL)
 AND (OLD.status <> NEW.status OR OLD.hidden <> NEW.hidden OR OLD.user_id <> NEW.user_id
      OR (OLD.team_id IS NULL) <> (NEW.team_id IS NULL))
BEGIN
    UPDATE list_counts SET n = n - 1
     WHERE OLD.hidden = 0 AND OLD.team_id IS NULL
       AND user_id = OLD.user_id AND list = 'documents' AND status = OLD.status;
    INSERT INTO list_counts (user_id, list, status, n)
    SELECT NEW.user_id, 'documents', NEW.status, 1 WHERE NEW.hidden = 0 AND NEW.team_id IS NULL
    ON CONFLICT (user_id, list, status) DO UPDATE SET n = list_counts.n + 1;
END;

CREATE TRIGGER templates_counted AFTER INSERT ON templates
WHEN NEW.team_id IS NULL
BEGIN
    INSERT INTO list_counts (user_id, list, status, n) VALUES (NEW.user_id, 'templates', '', 1)
    ON CONFLICT (user_id, list, status) DO UPDATE SET n = list_counts.n + 1;
END;

CREATE TRIGGER templates_uncounted AFTER DELETE ON templates
WHEN OLD.team_id IS NULL
BEGIN
    UPDATE list_counts SET n = n - 1
     WHERE user_id = OLD.user_id AND list = 'templates' AND status = '';
END;

CREATE TRIGGER templates_recounted AFTER UPDATE OF user_id, team_id ON templates
WHEN (OLD.team_id IS NULL OR NEW.team_id IS NULL)
 AND (OLD.user_id <> NEW.user_id OR (OLD.team_id IS NULL) <> (NEW.team_id IS NULL))
BEGIN
    UPDATE list_counts SET n = n - 1
     WHERE OLD.team_id IS NULL AND user_id = OLD.user_id AND list = 'templates' AND status = '';
    INSERT INTO list_counts (user_id, list, status, n)
    SELECT NEW.user_id, 'templates', '', 1 WHERE NEW.team_id IS NULL
    ON CONFLICT (user_id, list, status) DO UPDATE SET n = list_counts.n + 1;
END;

CREATE TRIGGER bookings_counted AFTER INSERT ON bookings
BEGIN
    INSERT INTO list_counts (user_id, list, status, n) VALUES (NEW.user_id, 'bookings', NEW.status, 1)
    ON CONFLICT (user_id, list, status) DO UPDATE SET n = list_counts.n + 1;
END;

CREATE TRIGGER bookings_uncounted AFTER DELETE ON bookings
BEGIN
    UPDATE list_counts SET n = n - 1
     WHERE user_id = OLD.user_id AND list = 'bookings' AND status = OLD.status;
END;

CREATE TRIGGER bookings_recounted AFTER UPDATE OF status, user_id ON bookings
WHEN OLD.status <> NEW.status OR OLD.user_id <> NEW.user_id
BEGIN
    UPDATE list_counts SET n = n - 1
     WHERE user_id = OLD.user_id AND list = 'bookings' AND status = OLD.status;
    INSERT INTO list_counts (user_id, list, status, n) VALUES (NEW.user_id, 'bookings', NEW.status, 1)
    ON CONFLICT (user_id, list, status) DO UPDATE SET n = list_counts.n + 1;
END;

-- How many rows each team's lists hold, by who in the team sees them; `status` is '' for
-- templates. Kept like `list_counts`, by the triggers below.
CREATE TABLE team_list_counts (
    team_id    INTEGER NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    list       TEXT NOT NULL CHECK (list IN ('documents', 'templates')),
    visibility TEXT NOT NULL CHECK (visibility IN ('EVERYONE', 'MANAGER_AND_ABOVE', 'ADMIN')),
    status     TEXT NOT NULL,
    n          INTEGER NOT NULL,
    PRIMARY KEY (team_id, list, visibility, status)
);

CREATE TRIGGER documents_team_counted AFTER INSERT ON documents
WHEN NEW.hidden = 0 AND NEW.team_id IS NOT NULL
BEGIN
    INSERT INTO team_list_counts (team_id, list, visibility, status, n)
    VALUES (NEW.team_id, 'documents', NEW.visibility, NEW.status, 1)
    ON CONFLICT (team_id, list, visibility, status) DO UPDATE SET n = team_list_counts.n + 1;
END;

CREATE TRIGGER documents_team_uncounted AFTER DELETE ON documents
WHEN OLD.hidden = 0 AND OLD.team_id IS NOT NULL
BEGIN
    UPDATE team_list_counts SET n = n - 1
     WHERE team_id = OLD.team_id AND list = 'documents' AND visibility = OLD.visibility
       AND status = OLD.status;
END;

CREATE TRIGGER documents_team_recounted AFTER UPDATE OF status, hidden, team_id, visibility ON documents
WHEN (OLD.team_id IS NOT NULL OR NEW.team_id IS NOT NULL)
 AND (OLD.status <> NEW.status OR OLD.hidden <> NEW.hidden OR OLD.visibility <> NEW.visibility
      OR OLD.team_id IS DISTINCT FROM NEW.team_id)
BEGIN
    UPDATE team_list_counts SET n = n - 1
     WHERE OLD.hidden = 0 AND team_id = OLD.team_id AND list = 'documents'
       AND visibility = OLD.visibility AND status = OLD.status;
    INSERT INTO team_list_counts (team_id, list, visibility, status, n)
    SELECT NEW.team_id, 'documents', NEW.visibility, NEW.status, 1
     WHERE NEW.hidden = 0 AND NEW.team_id IS NOT NULL
    ON CONFLICT (team_id, list, visibility, status) DO UPDATE SET n = team_list_counts.n + 1;
END;

CREATE TRIGGER templates_team_counted AFTER INSERT ON templates
WHEN NEW.team_id IS NOT NULL
BEGIN
    INSERT INTO team_list_counts (team_id, list, visibility, status, n)
    VALUES (NEW.team_id, 'templates', NEW.visibility, '', 1)
    ON CONFLICT (team_id, list, visibility, status) DO UPDATE SET n = team_list_counts.n + 1;
END;

CREATE TRIGGER templates_team_uncounted AFTER DELETE ON templates
WHEN OLD.team_id IS NOT NULL
BEGIN
    UPDATE team_list_counts SET n = n - 1
     WHERE team_id = OLD.team_id AND list = 'templates' AND visibility = OLD.visibility
       AND status = '';
END;

CREATE TRIGGER templates_team_recounted AFTER UPDATE OF team_id, visibility ON templates
WHEN (OLD.team_id IS NOT NULL OR NEW.team_id IS NOT NULL)
 AND (OLD.visibility <> NEW.visibility OR OLD.team_id IS DISTINCT FROM NEW.team_id)
BEGIN
    UPDATE team_list_counts SET n = n - 1
     WHERE team_id = OLD.team_id AND list = 'templates' AND visibility = OLD.visibility
       AND status = '';
    INSERT INTO team_list_counts (team_id, list, visibility, status, n)
    SELECT NEW.team_id, 'templates', NEW.visibility, '', 1 WHERE NEW.team_id IS NOT NULL
    ON CONFLICT (team_id, list, visibility, status) DO UPDATE SET n = team_list_counts.n + 1;
END;

-- The lists' pages: the newest rows that are listed, with or without a status, found in order
-- in an index rather than filtered out of all the user's rows; a user's documents pages hold
-- their personal ones only (v26).
CREATE INDEX documents_listed ON documents (user_id, created_at DESC, id DESC)
    WHERE hidden = 0 AND team_id IS NULL;
CREATE INDEX documents_listed_status ON documents (user_id, status, created_at DESC, id DESC)
    WHERE hidden = 0 AND team_id IS NULL;
CREATE INDEX bookings_user_status ON bookings (user_id, status, created_at DESC, id DESC);
-- The dashboard's lists: newest first by last change.
CREATE INDEX documents_changed ON documents (user_id, updated_at DESC, id DESC)
    WHERE hidden = 0 AND team_id IS NULL;
CREATE INDEX documents_changed_status ON documents (user_id, status, updated_at DESC, id DESC)
    WHERE hidden = 0 AND team_id IS NULL;
-- A team's pages, the same four ways; each entry carries the visibility, so that a role's page
-- skips what it does not see inside the index (v26).
CREATE INDEX documents_team_listed ON documents (team_id, created_at DESC, id DESC, visibility)
    WHERE hidden = 0 AND team_id IS NOT NULL;
CREATE INDEX documents_team_listed_status
    ON documents (team_id, status, created_at DESC, id DESC, visibility)
    WHERE hidden = 0 AND team_id IS NOT NULL;
CREATE INDEX documents_team_changed ON documents (team_id, updated_at DESC, id DESC, visibility)
    WHERE hidden = 0 AND team_id IS NOT NULL;
CREATE INDEX documents_team_changed_status
    ON documents (team_id, status, updated_at DESC, id DESC, visibility)
    WHERE hidden = 0 AND team_id IS NOT NULL;

-- Recipients of a document or of a template (exactly one of the two).
CREATE TABLE recipients (
    id             INTEGER PRIMARY KEY,
    document_id    INTEGER REFERENCES documents (id) ON DELETE CASCADE,
    template_id    INTEGER REFERENCES templates (id) ON DELETE CASCADE,
    email          TEXT NOT NULL,
    name           TEXT NOT NULL,
    role           TEXT NOT NULL CHECK (role IN ('SIGNER', 'APPROVER', 'VIEWER', 'CC', 'ASSISTANT')),
    signing_order  INTEGER,
    token          TEXT NOT NULL UNIQUE,              -- the signing link's secret, shown to the owner
    auth_options   TEXT,
    read_status    TEXT NOT NULL DEFAULT 'NOT_OPENED',
    signing_status TEXT NOT NULL DEFAULT 'NOT_SIGNED',
    send_status    TEXT NOT NULL DEFAULT 'NOT_SENT',
    signed_at      INTEGER,
    created_at     INTEGER NOT NULL,
    sent_at        INTEGER,
    opened_at      INTEGER,
    rejection_reason TEXT,
    acted_ip       TEXT,          -- where the recipient signed/approved/rejected from
    acted_user_agent TEXT,
    -- What the recipient proved when they finished: NULL (the link alone), ACCOUNT,
    -- TWO_FACTOR_AUTH or PASSKEY, and the account that proved it.
    auth_method    TEXT,
    auth_user_id   INTEGER REFERENCES users (id) ON DELETE SET NULL,
    -- 1: came through a template's direct link; acts first, alone.
    direct_link    INTEGER NOT NULL DEFAULT 0,
    -- When their time to act ends, fixed at sending (NULL: no deadline), when the owner was
    -- told it passed, and the automatic reminders sent so far (v30).
    expires_at     INTEGER,
    expiration_notified_at INTEGER,
    reminders_sent INTEGER NOT NULL DEFAULT 0,
    CHECK ((document_id IS NULL) <> (template_id IS NULL))
);
CREATE UNIQUE INDEX recipients_document_email ON recipients (document_id, email) WHERE document_id IS NOT NULL;
CREATE INDEX recipients_template ON recipients (template_id);
CREATE INDEX recipients_auth_user ON recipients (auth_user_id);
-- The dashboard's Inbox: the documents waiting for an account's signature, by e-mail.
CREATE INDEX recipients_awaiting ON recipients (email)
    WHERE document_id IS NOT NULL AND role <> 'CC' AND signing_status = 'NOT_SIGNED';
-- What is due, and when (v30): a recipient's deadline to report (EXPIRE) and their next
-- reminder (REMIND). The node that handles a row takes it off or moves it on in the
-- transaction that handles it, so the scan reads only what is due and each is handled once.
CREATE TABLE recipient_timers (
    recipient_id INTEGER NOT NULL REFERENCES recipients (id) ON DELETE CASCADE,
    kind         TEXT NOT NULL CHECK (kind IN ('EXPIRE', 'REMIND')),
    due_at       INTEGER NOT NULL,
    PRIMARY KEY (recipient_id, kind)
);
CREATE INDEX recipient_timers_due ON recipient_timers (due_at);

CREATE TABLE fields (
    id           INTEGER PRIMARY KEY,
    document_id  INTEGER REFERENCES documents (id) ON DELETE CASCADE,
    template_id  INTEGER REFERENCES templates (id) ON DELETE CASCADE,
    recipient_id INTEGER NOT NULL REFERENCES recipients (id) ON DELETE CASCADE,
    type         TEXT NOT NULL,
    page_number  INTEGER NOT NULL,
    page_x       REAL NOT NULL,
    page_y       REAL NOT NULL,
    page_width   REAL NOT NULL,
    page_height  REAL NOT NULL,
    field_meta   TEXT,                                -- JSON, as validated
    inserted     INTEGER NOT NULL DEFAULT 0,
    custom_text  TEXT,
    created_at   INTEGER NOT NULL,
    signature_png BLOB,           -- a signature or initials drawn on the page; typed: custom_text
    filled_at    INTEGER,
    CHECK ((document_id IS NULL) <> (template_id IS NULL))
);
CREATE INDEX fields_document ON fields (document_id);
CREATE INDEX fields_template ON fields (template_id);
CREATE INDEX fields_recipient ON fields (recipient_id);

-- Link attachments of a document or a template (v36): a label and an http(s) URL, in the
-- owner's order; copied with a template into its documents. A document's list is also in its
-- meta JSON (`attachments`), written from these rows; the rows are the record.
CREATE TABLE attachments (
    id          TEXT PRIMARY KEY,            -- random text, never a number
    document_id INTEGER REFERENCES documents (id) ON DELETE CASCADE,
    template_id INTEGER REFERENCES templates (id) ON DELETE CASCADE,
    type        TEXT NOT NULL DEFAULT 'link' CHECK (type IN ('link')),
    label       TEXT NOT NULL,
    url         TEXT NOT NULL,
    position    INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    CHECK ((document_id IS NULL) <> (template_id IS NULL))
);
CREATE INDEX attachments_document ON attachments (document_id, position) WHERE document_id IS NOT NULL;
CREATE INDEX attachments_template ON attachments (template_id, position) WHERE template_id IS NOT NULL;

-- What happened to a document, oldest first; kept as long as the document.
CREATE TABLE audit_events (
    id           INTEGER PRIMARY KEY,
    document_id  INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    at           INTEGER NOT NULL,
    type         TEXT NOT NULL,   -- CREATED, UPLOADED, SENT, EMAILED, OPENED, FIELD_FILLED, SIGNED, APPROVED, VIEWED, REJECTED, COMPLETED, DOWNLOADED, CANCELLED
    actor        TEXT NOT NULL,   -- the owner's or recipient's e-mail, or 'system'
    recipient_id INTEGER,         -- no foreign key: the record outlives a deleted recipient
    ip           TEXT,
    user_agent   TEXT,
    data         TEXT NOT NULL DEFAULT '{}'  -- JSON details
);
CREATE INDEX audit_events_document ON audit_events (document_id, id);

-- Outgoing mail, queued in the same transaction as what it reports; a worker sends it (SMTP) or
-- files it in the outbox (no SMTP configured), retrying with backoff.
CREATE TABLE mail_queue (
    id              INTEGER PRIMARY KEY,
    document_id     INTEGER REFERENCES documents (id) ON DELETE SET NULL,
    recipient_id    INTEGER REFERENCES recipients (id) ON DELETE SET NULL,
    kind            TEXT NOT NULL,     -- SIGNING_REQUEST, COMPLETED, REJECTED, CANCELLED, ...
    to_addr         TEXT NOT NULL,
    subject         TEXT NOT NULL,
    body_text       TEXT NOT NULL,
    body_html       TEXT NOT NULL,
    attachment_blob TEXT REFERENCES blobs (id),  -- e.g. the sealed PDF
    attachment_name TEXT,
    status          TEXT NOT NULL DEFAULT 'QUEUED' CHECK (status IN ('QUEUED', 'SENT', 'OUTBOX', 'FAILED')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_error      TEXT,
    created_at      INTEGER NOT NULL,
    sent_at         INTEGER,
    link_expires_at INTEGER            -- the body holds a one-time link until then; NULL once removed
);
CREATE INDEX mail_queue_due ON mail_queue (status, next_attempt_at);
CREATE INDEX mail_queue_links ON mail_queue (link_expires_at) WHERE link_expires_at IS NOT NULL;
CREATE INDEX mail_queue_document ON mail_queue (document_id);
CREATE INDEX mail_queue_recipient ON mail_queue (recipient_id);
CREATE INDEX mail_queue_attachment ON mail_queue (attachment_blob);

CREATE TABLE webhooks (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    url         TEXT NOT NULL,
    events      TEXT NOT NULL,       -- JSON array of event names
    secret      BLOB NOT NULL,       -- the HMAC key, encrypted at rest (see webhooks::secret)
    created_at  INTEGER NOT NULL,
    -- The OAuth grant whose access token created it (v7); NULL for the owner's API key. Such a
    -- webhook is the app's: it goes when the grant is revoked (trigger below) or deleted with
    -- its client (cascade), and its payloads carry no signing links.
    grant_id    INTEGER REFERENCES oauth_grants (id) ON DELETE CASCADE,
    -- 'ZAPIER': made through a Zapier REST-hook route (v11); its payloads take the shapes
    -- Zapier's apps map
    app         TEXT NOT NULL DEFAULT 'API' CHECK (app IN ('API', 'ZAPIER')),
    -- 0: switched off by its owner (v21): no deliveries are queued for it
    enabled     INTEGER NOT NULL DEFAULT 1,
    -- Made in a team's settings: gets the team's events (v25)
    team_id     INTEGER REFERENCES teams (id),
    -- 1: made through the scheduling service's API v1 routes (`/v1/hooks`, v33); `app` is then
    -- 'API'. Its booking deliveries take that service's shape, or its `payload_template`
    cal_v1      INTEGER NOT NULL DEFAULT 0,
    payload_template TEXT
);
CREATE INDEX webhooks_user ON webhooks (user_id);
CREATE INDEX webhooks_team ON webhooks (team_id) WHERE team_id IS NOT NULL;
CREATE INDEX webhooks_grant ON webhooks (grant_id);

CREATE TABLE webhook_deliveries (
    id              INTEGER PRIMARY KEY,
    webhook_id      INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event           TEXT NOT NULL,
    body            TEXT NOT NULL,    -- the exact JSON posted, signed per attempt
    status          TEXT NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_status     INTEGER,          -- HTTP status of the last attempt
    last_error      TEXT,
    created_at      INTEGER NOT NULL,
    delivered_at    INTEGER,
    response_excerpt TEXT,            -- the start of the last attempt's answer (v21)
    test            INTEGER NOT NULL DEFAULT 0  -- 1: a test event or its redelivery (v29)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id);

-- An app's webhooks end with its grant, however the grant is revoked (the account page, a
-- replayed refresh token): their queued deliveries go with them.
CREATE TRIGGER webhooks_end_with_grant AFTER UPDATE OF revoked_at ON oauth_grants
WHEN NEW.revoked_at IS NOT NULL
BEGIN
    DELETE FROM webhooks WHERE grant_id = NEW.id;
END;

-- A disabled user's apps lose their tokens; their webhooks' queued deliveries fail too (new
-- events are not queued for them while the user is disabled: webhooks::store::subscribed).
CREATE TRIGGER webhooks_stop_for_disabled_user AFTER UPDATE OF disabled_at ON users
WHEN NEW.disabled_at IS NOT NULL
BEGIN
    UPDATE webhook_deliveries SET status = 'FAILED', last_error = 'the account was disabled'
     WHERE status = 'PENDING'
       AND webhook_id IN (SELECT id FROM webhooks WHERE user_id = NEW.id AND grant_id IS NOT NULL);
END;

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
-- `purpose`: REGISTER, LOGIN, SIGN or CONFIRM (a session's owner confirming who they are);
-- bound to the user, and for SIGN to the recipient.
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

-- The API rate limit's counts (`--rate-limit N` requests a minute per credential), kept here
-- when several nodes share a PostgreSQL database so the limit holds for the cluster: one row per
-- credential (its SHA-256, never the credential) and one-minute window, counted up by one upsert
-- per request. Windows before the current minute are deleted. SQLite (one node) counts in
-- memory and leaves this table empty. Keyed by the window first, so the sweep reads a range.
CREATE TABLE rate_windows (
    window_start INTEGER NOT NULL,
    key          TEXT NOT NULL,
    count        INTEGER NOT NULL,
    PRIMARY KEY (window_start, key)
);

-- Bulk send from a template (issue 56, part 3): a run is one CSV file's rows, one document
-- each. Every row is stored when the run starts, the bad ones as SKIPPED with their reason, so
-- the report lists the whole file. A row is sent in the one transaction that makes its document,
-- sends it and marks the row SENT (guarded by its PENDING status), so a run that a stop or a
-- crash interrupts goes on where it was, and no row is sent twice, on any number of nodes. The
-- template may go: the run keeps its title, and the rows still pending fail.
CREATE TABLE bulk_sends (
    id             INTEGER PRIMARY KEY,
    template_id    INTEGER REFERENCES templates (id) ON DELETE SET NULL,
    template_title TEXT NOT NULL,
    user_id        INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    team_id        INTEGER REFERENCES teams (id) ON DELETE CASCADE,
    visibility     TEXT NOT NULL DEFAULT 'EVERYONE'
                   CHECK (visibility IN ('EVERYONE', 'MANAGER_AND_ABOVE', 'ADMIN')),
    file_name      TEXT NOT NULL,
    send_email     INTEGER NOT NULL DEFAULT 1,
    status         TEXT NOT NULL CHECK (status IN ('RUNNING', 'DONE', 'CANCELLED')),
    created_at     INTEGER NOT NULL,
    finished_at    INTEGER
);
CREATE INDEX bulk_sends_user ON bulk_sends (user_id, created_at DESC, id DESC);
CREATE INDEX bulk_sends_team ON bulk_sends (team_id, created_at DESC, id DESC);
CREATE INDEX bulk_sends_running ON bulk_sends (id) WHERE status = 'RUNNING';
CREATE INDEX bulk_sends_template ON bulk_sends (template_id);
CREATE TABLE bulk_send_rows (
    bulk_send_id INTEGER NOT NULL REFERENCES bulk_sends (id) ON DELETE CASCADE,
    line         INTEGER NOT NULL,   -- the file's line the row starts on (the header is 1)
    request      TEXT NOT NULL,      -- JSON: the row's values (templates::row::Row)
    status       TEXT NOT NULL
                 CHECK (status IN ('PENDING', 'SENT', 'FAILED', 'SKIPPED', 'CANCELLED')),
    reason       TEXT,
    document_id  INTEGER REFERENCES documents (id) ON DELETE SET NULL,
    done_at      INTEGER,
    PRIMARY KEY (bulk_send_id, line)
);
CREATE INDEX bulk_send_rows_pending ON bulk_send_rows (bulk_send_id, line) WHERE status = 'PENDING';
CREATE INDEX bulk_send_rows_sent ON bulk_send_rows (done_at) WHERE status = 'SENT';
CREATE INDEX bulk_send_rows_document ON bulk_send_rows (document_id);
