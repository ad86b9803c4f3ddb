-- A queued message's one-time link (password reset, e-mail change, account invitation) is kept
-- whole only while the message needs it: `link_expires_at` says until when the body holds one,
-- and the body is replaced once the message is sent, given up, or its link has expired
-- (issue 52). The messages from before this version held their links for good: those already
-- sent or given up lose them now; those still waiting or filed in the outbox keep them until
-- an hour after they were queued, as long as such a link works.
ALTER TABLE mail_queue ADD COLUMN link_expires_at INTEGER;
UPDATE mail_queue
   SET body_text = '(This message held a one-time link. Docket keeps such links only as hashes, so the message''s text was removed once it was sent, given up, or its link expired.)',
       body_html = '(This message held a one-time link. Docket keeps such links only as hashes, so the message''s text was removed once it was sent, given up, or its link expired.)'
 WHERE kind IN ('PASSWORD_RESET', 'EMAIL_CHANGE', 'ACCOUNT_INVITE') AND status IN ('SENT', 'FAILED');
UPDATE mail_queue SET link_expires_at = created_at + 3600
 WHERE kind IN ('PASSWORD_RESET', 'EMAIL_CHANGE', 'ACCOUNT_INVITE') AND status IN ('QUEUED', 'OUTBOX');
CREATE INDEX mail_queue_links ON mail_queue (link_expires_at) WHERE link_expires_at IS NOT NULL;
