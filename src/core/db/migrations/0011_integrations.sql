-- Integrations: webhooks made through the Zapier REST-hook routes (their payloads take the
-- shapes Zapier's apps map), and the booking details integrations read: an event type and the
-- booker's answers.
ALTER TABLE webhooks ADD COLUMN app TEXT NOT NULL DEFAULT 'API' CHECK (app IN ('API', 'ZAPIER'));
-- JSON {"title","description","length","requiresConfirmation","price","currency"}, each
-- optional (what is left out is derived from the booking); NULL: all derived.
ALTER TABLE bookings ADD COLUMN event_type TEXT;
-- JSON object: the booker's answers by field name, beside those derived from the attendees.
ALTER TABLE bookings ADD COLUMN responses TEXT NOT NULL DEFAULT '{}';
