//! Rows that change workspace. A personal document or template moves into one of its
//! creator's teams, and a team's template into another team its admin also runs (`moving`);
//! a team ends, its admin saying what becomes of its documents and templates: handed to their
//! own personal ones or to another of their teams, or deleted, refused while any document
//! waits for signatures (`team_end`). Each is one transaction that resolves the caller in both
//! workspaces (`teams::access`, read there and then) and whose statements say in SQL where the
//! rows must still be.

pub mod framing;
pub mod moving;
pub mod team_end;

use crate::core::db::Conn;
use crate::core::error::AppError;
use crate::core::ids::{TeamId, UserId};
use crate::teams::{Membership, manage, store};

/// A team as a request names it: by id (`teamId`, as the API's answers carry it) or by slug
/// (its pages' address).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TeamRef {
    Id(TeamId),
    Slug(String),
}

/// `user`'s membership of the team `to` names; a 404 when there is none or they are not in it.
pub fn membership(c: &Conn, user: UserId, to: &TeamRef) -> Result<Membership, AppError> {
    match to {
        TeamRef::Slug(slug) => manage::membership(c, user, slug),
        TeamRef::Id(id) => {
            store::membership_in(c, *id, user)?.ok_or_else(|| AppError::not_found("team"))
        }
    }
}
