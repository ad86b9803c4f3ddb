//! A folder as stored and as the API shows it, and the rules of its values: what it holds
//! (`Kind`), its name, the bounds of a workspace's tree.

use serde::Serialize;

use crate::core::error::{AppError, FieldError};
use crate::core::ids::{TeamId, UserId};
use crate::core::owner::Visibility;

/// The deepest a folder sits: a root folder is at depth 1.
pub const MAX_DEPTH: i64 = 10;

/// The most folders one workspace (a user's personal one, or a team) holds, of both kinds.
pub const MAX_FOLDERS: i64 = 1000;

/// The longest name, in characters (after trimming).
pub const MAX_NAME: usize = 255;

/// The characters of a folder's id (random letters and digits: never guessable).
pub const ID_LEN: usize = 24;

/// What a folder holds: documents or templates, never both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[schema(as = FolderType)]
pub enum Kind {
    Document,
    Template,
}

impl Kind {
    pub const ALL: [Kind; 2] = [Kind::Document, Kind::Template];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Document => "DOCUMENT",
            Kind::Template => "TEMPLATE",
        }
    }

    /// Its name as the API writes it, in any case (`document`, `TEMPLATE`).
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(s.trim()))
    }

    /// What it holds, for messages ("documents").
    pub fn items(self) -> &'static str {
        match self {
            Kind::Document => "documents",
            Kind::Template => "templates",
        }
    }
}

crate::sql_text_enum!(Kind);

/// A folder's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folder {
    pub id: String,
    /// Its creator; the owner when `team_id` is `None`.
    pub user_id: UserId,
    /// The team it belongs to; `None` for a personal folder.
    pub team_id: Option<TeamId>,
    /// The folder it is in; `None` at the root.
    pub parent_id: Option<String>,
    pub kind: Kind,
    pub name: String,
    /// Who in its team sees it (EVERYONE for a personal folder).
    pub visibility: Visibility,
    pub pinned: bool,
    pub created_at: i64,
    pub updated_at: i64,
}

/// A folder as the API shows it (the other signing service's v2 `Folder`): `teamId` is the
/// team's id for a team's folder and the owner's account id for a personal one (that
/// service gives every account a team of its own); times in RFC 3339 UTC with milliseconds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = Folder)]
pub struct FolderView {
    pub id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: Kind,
    pub visibility: Visibility,
    pub user_id: i64,
    pub team_id: i64,
    pub pinned: bool,
    #[schema(required = true)]
    pub parent_id: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl FolderView {
    pub fn of(f: &Folder) -> FolderView {
        FolderView {
            id: f.id.clone(),
            name: f.name.clone(),
            kind: f.kind,
            visibility: f.visibility,
            user_id: f.user_id.get(),
            team_id: f.team_id.map_or(f.user_id.get(), TeamId::get),
            pinned: f.pinned,
            parent_id: f.parent_id.clone(),
            created_at: crate::core::timefmt::iso8601_millis(f.created_at),
            updated_at: crate::core::timefmt::iso8601_millis(f.updated_at),
        }
    }
}

/// `name` trimmed, when it has 1 to `MAX_NAME` characters and no control character; a 400
/// naming `field` otherwise.
pub fn checked_name(name: &str, field: &str) -> Result<String, AppError> {
    let name = name.trim();
    let problem = if name.is_empty() {
        Some("a folder needs a name".to_string())
    } else if name.chars().count() > MAX_NAME {
        Some(format!("a folder's name has at most {MAX_NAME} characters"))
    } else if name.chars().any(char::is_control) {
        Some("a folder's name has no control characters".to_string())
    } else {
        None
    };
    match problem {
        Some(message) => Err(AppError::validation(vec![FieldError::new(field, message)])),
        None => Ok(name.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_trimmed_and_bounded() {
        assert_eq!(checked_name("  Leases ", "name").unwrap(), "Leases");
        assert_eq!(
            checked_name(&"é".repeat(255), "name")
                .unwrap()
                .chars()
                .count(),
            255
        );
        for bad in ["", "   ", "a\nb"] {
            let e = checked_name(bad, "name").unwrap_err();
            assert_eq!(e.code(), "validation_error", "{bad:?}");
        }
        let e = checked_name(&"x".repeat(256), "data.name").unwrap_err();
        assert!(e.to_string().starts_with("data.name: "), "{e}");
    }

    #[test]
    fn the_view_has_the_other_services_keys_and_times_with_milliseconds() {
        let f = Folder {
            id: "abc".into(),
            user_id: UserId::new(3),
            team_id: None,
            parent_id: None,
            kind: Kind::Template,
            name: "N".into(),
            visibility: Visibility::Everyone,
            pinned: true,
            created_at: 1_738_326_896,
            updated_at: 1_738_326_897,
        };
        let v = serde_json::to_value(FolderView::of(&f)).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        let mut want = vec![
            "id",
            "name",
            "type",
            "visibility",
            "userId",
            "teamId",
            "pinned",
            "parentId",
            "createdAt",
            "updatedAt",
        ];
        want.sort();
        let mut keys = keys;
        keys.sort();
        assert_eq!(keys, want);
        assert_eq!(
            v["teamId"], 3,
            "a personal folder's team is its owner's account"
        );
        assert_eq!(v["type"], "TEMPLATE");
        assert_eq!(v["parentId"], serde_json::Value::Null);
        assert_eq!(v["createdAt"], "2025-01-31T12:34:56.000Z");
        let team = FolderView::of(&Folder {
            team_id: Some(TeamId::new(9)),
            ..f
        });
        assert_eq!(team.team_id, 9);
        assert_eq!(Kind::parse("document"), Some(Kind::Document));
        assert_eq!(Kind::parse("folder"), None);
    }
}
