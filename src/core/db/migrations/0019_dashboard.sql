-- The web application's dashboard (issue 25): its lists are newest first by last change, and
-- its Inbox finds the documents waiting for an account's signature by the recipients' e-mail.
-- Each is read in order from an index instead of sorting or scanning every row.
CREATE INDEX documents_changed ON documents (user_id, updated_at DESC, id DESC) WHERE hidden = 0;
CREATE INDEX documents_changed_status ON documents (user_id, status, updated_at DESC, id DESC)
    WHERE hidden = 0;
CREATE INDEX recipients_awaiting ON recipients (email)
    WHERE document_id IS NOT NULL AND role <> 'CC' AND signing_status = 'NOT_SIGNED';
