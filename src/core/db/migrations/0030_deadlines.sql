-- Deadlines and reminders per recipient (issue 56, decision 0123). `expires_at`: when the
-- recipient's time to act ends, fixed at sending (NULL: no deadline); `expiration_notified_at`:
-- when the owner was told it passed; `reminders_sent`: automatic reminders so far.
ALTER TABLE recipients ADD COLUMN expires_at INTEGER;
ALTER TABLE recipients ADD COLUMN expiration_notified_at INTEGER;
ALTER TABLE recipients ADD COLUMN reminders_sent INTEGER NOT NULL DEFAULT 0;
-- What is due, and when: a recipient's deadline to report (EXPIRE) and their next reminder
-- (REMIND). A row is taken off (or moved on) by the node that handles it, in the transaction
-- that handles it, so the scan reads only what is due and each row is handled once.
CREATE TABLE recipient_timers (
    recipient_id INTEGER NOT NULL REFERENCES recipients (id) ON DELETE CASCADE,
    kind         TEXT NOT NULL CHECK (kind IN ('EXPIRE', 'REMIND')),
    due_at       INTEGER NOT NULL,
    PRIMARY KEY (recipient_id, kind)
);
CREATE INDEX recipient_timers_due ON recipient_timers (due_at);
-- The deadline a team gives its new documents and templates (JSON, as
-- meta.envelopeExpirationPeriod; NULL: none), and an account's own.
ALTER TABLE teams ADD COLUMN expiration_period TEXT;
ALTER TABLE users ADD COLUMN expiration_period TEXT;
