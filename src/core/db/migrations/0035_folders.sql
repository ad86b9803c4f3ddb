-- Folders (issue 57, part 1): a workspace's documents or templates sorted into a tree, as the
-- other signing service has them. A folder is personal (`team_id` NULL, its `user_id`'s) or a
-- team's, with the visibility team documents have; it holds documents or templates (`type`),
-- never both. Its id is random text (never guessable). Deleting a folder deletes the folders
-- under it (ON DELETE CASCADE) and puts what they held back at the root (ON DELETE SET NULL):
-- no document or template is ever deleted with a folder. Depth, count, no cycles and "a
-- document only into a DOCUMENT folder of its own workspace" are `signing::folders`' rules.
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
ALTER TABLE documents ADD COLUMN folder_id TEXT REFERENCES folders (id) ON DELETE SET NULL;
ALTER TABLE templates ADD COLUMN folder_id TEXT REFERENCES folders (id) ON DELETE SET NULL;
CREATE INDEX documents_folder ON documents (folder_id) WHERE folder_id IS NOT NULL;
CREATE INDEX templates_folder ON templates (folder_id) WHERE folder_id IS NOT NULL;
