-- Indexes on the child side of foreign keys that had none: without them, deleting or
-- replacing a blob row (every upload that replaces a file) and deleting a template scan the
-- whole documents and templates tables to check references.
CREATE INDEX documents_blob ON documents (blob_id);
CREATE INDEX templates_blob ON templates (blob_id);
CREATE INDEX documents_template ON documents (template_id);
