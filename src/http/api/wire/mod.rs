//! What clients send to the API, as types: each body read leniently and turned into the
//! domain's command by a conversion that calls the domain's rules (one implementation of each
//! rule, in the domain). One file per area.

pub mod bookings;
pub mod documents;
pub mod fields;
pub mod link;
pub mod moves;
pub mod passkeys;
pub mod sending;
pub mod templates;
pub mod webhooks;
