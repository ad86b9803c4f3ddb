-- Webhooks in the browser (issue 26): an endpoint can be switched off without being deleted
-- (no new deliveries are queued for it), and each delivery keeps the start of the receiver's
-- last answer, which the delivery log shows.
ALTER TABLE webhooks ADD COLUMN enabled INTEGER NOT NULL DEFAULT 1;
ALTER TABLE webhook_deliveries ADD COLUMN response_excerpt TEXT;
