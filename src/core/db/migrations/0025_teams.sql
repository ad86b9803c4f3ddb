-- Teams (issue 54): a few people who share documents, templates, API tokens and webhooks, each
-- member with a role. Every row that exists before this version stays its owner's personal
-- one: `team_id` is NULL, and a personal document's `visibility` means nothing.
CREATE TABLE teams (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    slug        TEXT NOT NULL UNIQUE,
    sender_name TEXT,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE TABLE team_members (
    team_id    INTEGER NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       TEXT NOT NULL CHECK (role IN ('ADMIN', 'MANAGER', 'MEMBER')),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user ON team_members (user_id);
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
ALTER TABLE api_keys ADD COLUMN team_id INTEGER REFERENCES teams (id);
CREATE INDEX api_keys_team ON api_keys (team_id) WHERE team_id IS NOT NULL;
ALTER TABLE templates ADD COLUMN team_id INTEGER REFERENCES teams (id);
ALTER TABLE templates ADD COLUMN visibility TEXT NOT NULL DEFAULT 'EVERYONE'
    CHECK (visibility IN ('EVERYONE', 'MANAGER_AND_ABOVE', 'ADMIN'));
CREATE INDEX templates_team ON templates (team_id, created_at DESC, id DESC)
    WHERE team_id IS NOT NULL;
ALTER TABLE documents ADD COLUMN team_id INTEGER REFERENCES teams (id);
ALTER TABLE documents ADD COLUMN visibility TEXT NOT NULL DEFAULT 'EVERYONE'
    CHECK (visibility IN ('EVERYONE', 'MANAGER_AND_ABOVE', 'ADMIN'));
CREATE INDEX documents_team ON documents (team_id, created_at DESC, id DESC)
    WHERE team_id IS NOT NULL;
ALTER TABLE webhooks ADD COLUMN team_id INTEGER REFERENCES teams (id);
CREATE INDEX webhooks_team ON webhooks (team_id) WHERE team_id IS NOT NULL;
