-- Sending and signing: recipient activity, field values, sealed files, the audit log, the mail
-- queue and webhooks.

ALTER TABLE recipients ADD COLUMN sent_at INTEGER;
ALTER TABLE recipients ADD COLUMN opened_at INTEGER;
ALTER TABLE recipients ADD COLUMN rejection_reason TEXT;
ALTER TABLE recipients ADD COLUMN acted_ip TEXT;          -- where the recipient signed/approved/rejected from
ALTER TABLE recipients ADD COLUMN acted_user_agent TEXT;

-- A signature or initials drawn on the page (PNG); a typed one is in custom_text.
ALTER TABLE fields ADD COLUMN signature_png BLOB;
ALTER TABLE fields ADD COLUMN filled_at INTEGER;

ALTER TABLE documents ADD COLUMN sent_at INTEGER;
ALTER TABLE documents ADD COLUMN sealed_blob_id TEXT REFERENCES blobs (id);
CREATE INDEX documents_sealed_blob ON documents (sealed_blob_id);

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
    sent_at         INTEGER
);
CREATE INDEX mail_queue_due ON mail_queue (status, next_attempt_at);
CREATE INDEX mail_queue_document ON mail_queue (document_id);
CREATE INDEX mail_queue_recipient ON mail_queue (recipient_id);
CREATE INDEX mail_queue_attachment ON mail_queue (attachment_blob);

CREATE TABLE webhooks (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    url         TEXT NOT NULL,
    events      TEXT NOT NULL,       -- JSON array of event names
    secret      BLOB NOT NULL,       -- the HMAC key, encrypted at rest (see webhooks::secret)
    created_at  INTEGER NOT NULL
);
CREATE INDEX webhooks_user ON webhooks (user_id);

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
    delivered_at    INTEGER
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id);
