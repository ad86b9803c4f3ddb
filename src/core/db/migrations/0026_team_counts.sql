-- Team counts (issue 54): a user's list counts and page indexes hold their personal rows only
-- (`team_id IS NULL`); a team's documents and templates are counted in `team_list_counts`, by
-- visibility, so that each role's total is a sum of at most three rows per status, and paged
-- from indexes of their own.
DROP TRIGGER documents_counted;
DROP TRIGGER documents_uncounted;
DROP TRIGGER documents_recounted;
DROP TRIGGER templates_counted;
DROP TRIGGER templates_uncounted;

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

-- The personal pages come from indexes of personal rows; a team's from indexes of its rows
-- that also carry the visibility, so a role's page skips what it does not see inside the
-- index. `documents_team` becomes what only it is for: all of a team's rows, hidden ones too,
-- which the teams' foreign key and a team's deletion look for (as an ordered index of all of
-- them, the planner took it for an administrator's page and read every row).
DROP INDEX documents_team;
CREATE INDEX documents_team ON documents (team_id) WHERE team_id IS NOT NULL;
DROP INDEX documents_listed;
DROP INDEX documents_listed_status;
DROP INDEX documents_changed;
DROP INDEX documents_changed_status;
CREATE INDEX documents_listed ON documents (user_id, created_at DESC, id DESC)
    WHERE hidden = 0 AND team_id IS NULL;
CREATE INDEX documents_listed_status ON documents (user_id, status, created_at DESC, id DESC)
    WHERE hidden = 0 AND team_id IS NULL;
CREATE INDEX documents_changed ON documents (user_id, updated_at DESC, id DESC)
    WHERE hidden = 0 AND team_id IS NULL;
CREATE INDEX documents_changed_status ON documents (user_id, status, updated_at DESC, id DESC)
    WHERE hidden = 0 AND team_id IS NULL;
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
DROP INDEX templates_team;
CREATE INDEX templates_team ON templates (team_id, created_at DESC, id DESC, visibility)
    WHERE team_id IS NOT NULL;

-- Counted again from the rows, so that a database that already holds team rows is right.
DELETE FROM list_counts WHERE list IN ('documents', 'templates');
INSERT INTO list_counts (user_id, list, status, n)
SELECT user_id, 'documents', status, count(*) FROM documents
 WHERE hidden = 0 AND team_id IS NULL GROUP BY user_id, status;
INSERT INTO list_counts (user_id, list, status, n)
SELECT user_id, 'templates', '', count(*) FROM templates WHERE team_id IS NULL GROUP BY user_id;
INSERT INTO team_list_counts (team_id, list, visibility, status, n)
SELECT team_id, 'documents', visibility, status, count(*) FROM documents
 WHERE hidden = 0 AND team_id IS NOT NULL GROUP BY team_id, visibility, status;
INSERT INTO team_list_counts (team_id, list, visibility, status, n)
SELECT team_id, 'templates', visibility, '', count(*) FROM templates
 WHERE team_id IS NOT NULL GROUP BY team_id, visibility;
