-- Webhooks created through an OAuth access token belong to its grant (scope containment):
-- removed with the grant (revoked: trigger; deleted with its client: cascade), stopped while
-- the user is disabled. Existing webhooks stay unbound (NULL), as the owner's.

ALTER TABLE webhooks ADD COLUMN grant_id INTEGER REFERENCES oauth_grants (id) ON DELETE CASCADE;
CREATE INDEX webhooks_grant ON webhooks (grant_id);

CREATE TRIGGER webhooks_end_with_grant AFTER UPDATE OF revoked_at ON oauth_grants
WHEN NEW.revoked_at IS NOT NULL
BEGIN
    DELETE FROM webhooks WHERE grant_id = NEW.id;
END;

CREATE TRIGGER webhooks_stop_for_disabled_user AFTER UPDATE OF disabled_at ON users
WHEN NEW.disabled_at IS NOT NULL
BEGIN
    UPDATE webhook_deliveries SET status = 'FAILED', last_error = 'the account was disabled'
     WHERE status = 'PENDING'
       AND webhook_id IN (SELECT id FROM webhooks WHERE user_id = NEW.id AND grant_id IS NOT NULL);
END;
