//! The integrations ring: how apps subscribe to events. Webhook endpoints registered through
//! the API (their secrets sealed, shown once) and the REST-hook subscriptions of the two
//! peers' Zapier apps, with the samples those apps read. Deliveries themselves are the
//! outbox's; the events are queued by the rings that own them (documents, bookings). And
//! revoking all of what acts for an account at once, after a new password (`access`).

pub mod access;
pub mod answers;
pub mod checks;
pub mod webhooks;
pub mod zapier;
