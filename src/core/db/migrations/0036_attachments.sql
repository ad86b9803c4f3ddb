-- Link attachments of documents and templates (issue 57): a label and an http(s) URL the
-- owner adds in the editor (or the API), shown to recipients on the signing page. A row
-- belongs to one document or one template and goes with it; its id is random text (never
-- a number to guess). A document made from a template, a document saved as a template and a
-- duplicated template get copies. A document's list is also written into its meta JSON
-- (`attachments`, as the API v1 answers it and the signing page reads it); the rows are the
-- record. Documents whose meta already had attachments (given to `POST /api/v1/documents`
-- before this version) gain their rows when their attachments are first read.
CREATE TABLE attachments (
    id          TEXT PRIMARY KEY,
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
