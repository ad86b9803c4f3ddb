//! Teams: a few people who share documents, templates, API tokens and webhooks, each with a
//! role. The roles' rules (`model`), the slug rule (`slug`), the tables (`store`), the members'
//! use cases (`manage`) and the administrator's (`admin`, for `docket team ...`).

pub mod admin;
pub mod manage;
pub mod model;
pub mod slug;
pub mod store;

pub use model::{Member, Membership, Team, TeamRole, Visibility};
