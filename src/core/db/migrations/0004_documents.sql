-- Version 4: documents, templates, their recipients and fields.

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
    updated_at          INTEGER NOT NULL
);
CREATE INDEX templates_user ON templates (user_id, created_at DESC, id DESC);

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
    completed_at     INTEGER
);
CREATE INDEX documents_user ON documents (user_id, created_at DESC, id DESC);

-- Recipients of a document or of a template (exactly one of the two).
CREATE TABLE recipients (
    id             INTEGER PRIMARY KEY,
    document_id    INTEGER REFERENCES documents (id) ON DELETE CASCADE,
    template_id    INTEGER REFERENCES templates (id) ON DELETE CASCADE,
    email          TEXT NOT NULL,
    name           TEXT NOT NULL,
    role           TEXT NOT NULL CHECK (role IN ('SIGNER', 'APPROVER', 'VIEWER', 'CC')),
    signing_order  INTEGER,
    token          TEXT NOT NULL UNIQUE,              -- the signing link's secret, shown to the owner
    auth_options   TEXT,
    read_status    TEXT NOT NULL DEFAULT 'NOT_OPENED',
    signing_status TEXT NOT NULL DEFAULT 'NOT_SIGNED',
    send_status    TEXT NOT NULL DEFAULT 'NOT_SENT',
    signed_at      INTEGER,
    created_at     INTEGER NOT NULL,
    CHECK ((document_id IS NULL) <> (template_id IS NULL))
);
CREATE UNIQUE INDEX recipients_document_email ON recipients (document_id, email) WHERE document_id IS NOT NULL;
CREATE INDEX recipients_template ON recipients (template_id);

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
    CHECK ((document_id IS NULL) <> (template_id IS NULL))
);
CREATE INDEX fields_document ON fields (document_id);
CREATE INDEX fields_template ON fields (template_id);
CREATE INDEX fields_recipient ON fields (recipient_id);
