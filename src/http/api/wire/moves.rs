//! `POST /api/v1/documents/{id}/move` and `/api/v1/templates/{id}/move` as a type, turned into
//! the move (`signing::workspaces::moving`): the team by its id or its slug, and the
//! visibility the row takes there.

use serde::Deserialize;
use utoipa::ToSchema;

use crate::core::error::AppError;
use crate::core::ids::TeamId;
use crate::core::lenient::Given;
use crate::core::owner::Visibility;
use crate::signing::documents::check::Check;
use crate::signing::workspaces::TeamRef;
use crate::signing::workspaces::moving::Move;

use super::documents::settings::parse_visibility;

/// The team to move into: `teamId` or `teamUrl`, one of them.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = MoveToTeam, example = json!({"teamId": 3, "visibility": "EVERYONE"}))]
pub struct MoveRequest {
    /// The team's id, as `teamId` in the answers of the team's tokens.
    #[serde(default)]
    #[schema(value_type = Option<i64>)]
    pub team_id: Given<TeamId>,
    /// The team's slug, as in its pages' address (`/t/{slug}`).
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub team_url: Given<String>,
    /// Who in the team sees it (default `EVERYONE`; a role gives only a visibility it sees).
    #[serde(default)]
    #[schema(value_type = Option<Visibility>)]
    pub visibility: Given<String>,
}

impl MoveRequest {
    pub fn validate(&self) -> Result<Move, AppError> {
        let mut c = Check::new();
        let id = c
            .given(&self.team_id, "teamId", "must be a team's id")
            .copied();
        let slug = c.text(&self.team_url, "teamUrl", 48);
        let visibility = parse_visibility(&mut c, &self.visibility);
        let to = match (id, slug) {
            (Some(id), None) => Some(TeamRef::Id(id)),
            (None, Some(slug)) if !slug.trim().is_empty() => Some(TeamRef::Slug(slug)),
            (Some(_), Some(_)) => {
                c.fail("teamUrl", "give teamId or teamUrl, not both");
                None
            }
            _ => {
                if c.is_ok() {
                    c.fail("teamId", "required: the team's id (or its slug as teamUrl)");
                }
                None
            }
        };
        c.finish(())?;
        let to = to.ok_or_else(|| AppError::bad_request("teamId is required"))?;
        Ok(Move { to, visibility })
    }
}
