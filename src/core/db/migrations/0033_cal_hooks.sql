-- An endpoint made through the scheduling service's API v1 routes (`/v1/hooks`, issue 57): its
-- booking deliveries take that service's shape, `{triggerEvent, createdAt, payload}`, or its
-- own `payload_template` when it gave one. Its `app` stays 'API' (the column's check predates
-- it); `cal_v1` is what marks it.
ALTER TABLE webhooks ADD COLUMN cal_v1 INTEGER NOT NULL DEFAULT 0;
ALTER TABLE webhooks ADD COLUMN payload_template TEXT;
