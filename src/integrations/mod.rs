//! The integrations ring: how apps subscribe to events. Webhook endpoints registered through
//! the API (their secrets sealed, shown once) and the REST-hook subscriptions of the two
//! peers' Zapier apps, with the samples those apps read, and the scheduling service's API v1
//! that n8n's node calls (`cal_v1`). Deliveries themselves are the
//! outbox's; the events are queued by the rings that own them (documents, bookings). And
//! revoking all of what acts for an account at once, after a new password (`access`).

pub mod access;
pub mod answers;
pub mod cal_answers;
pub mod cal_v1;
pub mod checks;
pub mod webhooks;
pub mod zapier;
