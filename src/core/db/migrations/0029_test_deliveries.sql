-- A test delivery ("Send a test event", POST /api/v1/webhooks/{id}/test, and a redelivery of
-- one) is marked, so that the delivery log tells it from a real event's (issue 55, item 11).
-- Those queued before this version are found by their body: a test's payload is exactly this
-- object, and a real event's payload, whose strings are JSON-escaped, never contains it.
ALTER TABLE webhook_deliveries ADD COLUMN test INTEGER NOT NULL DEFAULT 0;
UPDATE webhook_deliveries SET test = 1
 WHERE body LIKE '%"payload":{"message":"A test event sent from Docket''s settings; nothing changed.","test":true}%';
