//! Teams: a few people who share documents, templates, API tokens and webhooks, each with a
//! role. The roles' rules (`model`), the slug rule (`slug`), the tables (`store`), the mail
//! to a person added or removed (`notices`), the members' use cases (`manage`), invitations
//! (`invitations`), the administrator's use cases (`admin`, for `docket team ...`), and what
//! a caller reaches in the workspace it acts in (`access`: the ownership rule).

pub mod access;
pub mod admin;
pub mod invitations;
pub mod manage;
pub mod model;
pub mod notices;
pub mod slug;
pub mod store;
pub mod tokens;

pub use model::{Member, Membership, Team, TeamRole, Visibility};
