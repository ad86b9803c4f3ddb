-- How many rows each user's paged lists hold (documents, templates, bookings), kept by triggers
-- in the transaction that changes the rows, so that a page's `totalPages` reads a few rows here
-- instead of counting the user's whole history. `status` is '' for templates, which have none;
-- documents hidden after completion are not listed, so not counted.
CREATE TABLE list_counts (
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    list    TEXT NOT NULL CHECK (list IN ('documents', 'templates', 'bookings')),
    status  TEXT NOT NULL,
    n       INTEGER NOT NULL,
    PRIMARY KEY (user_id, list, status)
);

CREATE TRIGGER documents_counted AFTER INSERT ON documents
WHEN NEW.hidden = 0
BEGIN
    INSERT INTO list_counts (user_id, list, status, n) VALUES (NEW.user_id, 'documents', NEW.status, 1)
    ON CONFLICT (user_id, list, status) DO UPDATE SET n = list_counts.n + 1;
END;

CREATE TRIGGER documents_uncounted AFTER DELETE ON documents
WHEN OLD.hidden = 0
BEGIN
    UPDATE list_counts SET n = n - 1
     WHERE user_id = OLD.user_id AND list = 'documents' AND status = OLD.status;
END;

CREATE TRIGGER documents_recounted AFTER UPDATE OF status, hidden, user_id ON documents
WHEN OLD.status <> NEW.status OR OLD.hidden <> NEW.hidden OR OLD.user_id <> NEW.user_id
BEGIN
    UPDATE list_counts SET n = n - 1
     WHERE OLD.hidden = 0 AND user_id = OLD.user_id AND list = 'documents' AND status = OLD.status;
    INSERT INTO list_counts (user_id, list, status, n)
    SELECT NEW.user_id, 'documents', NEW.status, 1 WHERE NEW.hidden = 0
    ON CONFLICT (user_id, list, status) DO UPDATE SET n = list_counts.n + 1;
END;

CREATE TRIGGER templates_counted AFTER INSERT ON templates
BEGIN
    INSERT INTO list_counts (user_id, list, status, n) VALUES (NEW.user_id, 'templates', '', 1)
    ON CONFLICT (user_id, list, status) DO UPDATE SET n = list_counts.n + 1;
END;

CREATE TRIGGER templates_uncounted AFTER DELETE ON templates
BEGIN
    UPDATE list_counts SET n = n - 1
     WHERE user_id = OLD.user_id AND list = 'templates' AND status = '';
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

-- The lists' pages: the newest rows that are listed, with or without a status, found in order
-- in an index rather than filtered out of all the user's rows.
CREATE INDEX documents_listed ON documents (user_id, created_at DESC, id DESC) WHERE hidden = 0;
CREATE INDEX documents_listed_status ON documents (user_id, status, created_at DESC, id DESC)
    WHERE hidden = 0;
CREATE INDEX bookings_user_status ON bookings (user_id, status, created_at DESC, id DESC);

-- What the database already holds.
INSERT INTO list_counts (user_id, list, status, n)
SELECT user_id, 'documents', status, count(*) FROM documents WHERE hidden = 0 GROUP BY user_id, status;
INSERT INTO list_counts (user_id, list, status, n)
SELECT user_id, 'templates', '', count(*) FROM templates GROUP BY user_id;
INSERT INTO list_counts (user_id, list, status, n)
SELECT user_id, 'bookings', status, count(*) FROM bookings GROUP BY user_id, status;
