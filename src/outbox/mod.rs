//! The outbox ring: what leaves the appliance after a transaction commits. Domain modules queue
//! mail and webhook deliveries in their own transaction; the workers here send them, retry and
//! record the outcome. Uses only `core`.

pub mod mail;
pub mod webhooks;
