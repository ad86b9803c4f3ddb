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
