//! Documents to be signed: the commands and the rules what clients send must follow (the wire
//! shapes are `http::api::wire::documents`'), and the shapes returned. SQL lives in `store.rs`.

pub mod answers;
pub mod audit;
pub mod audit_data;
pub mod auth_options;
pub mod check;
pub mod dates;
pub mod deadline;
pub mod drafts;
pub mod field_meta;
pub mod field_meta_rules;
pub mod fields;
pub mod listing;
pub mod manage;
pub mod meta;
pub mod model;
pub mod notify;
pub mod parts;
pub mod preview;
pub mod receipt;
pub mod recipients;
pub mod settings;
pub mod store;
pub mod team_settings;
pub mod values;
pub mod view;
pub mod webhook;

use serde::Serialize;
use serde_json::Value;

use auth_options::AuthOptions;
use check::Check;
use meta::Meta;
use recipients::NewRecipient;

use crate::core::error::AppError;
use crate::identity::users::Tier;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "UPPERCASE")]
#[schema(as = DocumentStatus)]
pub enum Status {
    Draft,
    Pending,
    Completed,
    Rejected,
    Cancelled,
}

impl Status {
    pub const ALL: [Status; 5] = [
        Status::Draft,
        Status::Pending,
        Status::Completed,
        Status::Rejected,
        Status::Cancelled,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Draft => "DRAFT",
            Status::Pending => "PENDING",
            Status::Completed => "COMPLETED",
            Status::Rejected => "REJECTED",
            Status::Cancelled => "CANCELLED",
        }
    }
    pub fn parse(s: &str) -> Option<Status> {
        Self::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

crate::sql_text_enum!(Status);

pub use store::listing::InFolder;
pub use view::{DocumentView, FieldView, RecipientBrief, RecipientView, SealingView, SigningLinks};

/// `POST /api/v1/documents`, validated.
#[derive(Debug, Clone)]
pub struct CreateDocument {
    pub title: String,
    pub external_id: Option<String>,
    pub recipients: Vec<NewRecipient>,
    pub meta: Meta,
    /// Which of `meta`'s values the request chose; made in a team, the others are the team's
    /// defaults (`team_settings::Defaults::fill`).
    pub chosen: meta::Chosen,
    pub auth_options: AuthOptions,
    pub form_values: Option<serde_json::Map<String, Value>>,
    /// Who in its team sees it (`None`: everyone; a team's document only).
    pub visibility: Option<crate::core::owner::Visibility>,
}

pub const MAX_RECIPIENTS: usize = 100;

/// At most this many characters in a title (of a document or a template).
pub const MAX_TITLE: usize = 255;

/// At most this many characters in an `externalId`.
pub const MAX_EXTERNAL_ID: usize = 255;

/// A new `documentDataId`: names a document's or template's file slot and its upload URL.
pub fn new_data_id() -> String {
    format!("dd_{}", crate::core::crypto::random_base62(24))
}

/// Action authentication (document-wide or per recipient) needs an enterprise account.
pub fn check_tier(
    auth: &AuthOptions,
    recipients: &[NewRecipient],
    tier: Tier,
) -> Result<(), AppError> {
    if !auth.global_action_auth.is_empty() {
        auth_options::require_tier(tier, "authOptions.globalActionAuth")?;
    }
    // TWO_FACTOR_AUTH access is a proof at finishing, as action authentication is.
    if auth
        .global_access_auth
        .iter()
        .any(|m| m == "TWO_FACTOR_AUTH")
    {
        auth_options::require_tier(tier, "authOptions.globalAccessAuth TWO_FACTOR_AUTH")?;
    }
    if recipients.iter().any(|r| !r.auth.is_empty()) {
        auth_options::require_tier(tier, "recipient authOptions")?;
    }
    Ok(())
}

/// The most items one page of a listing holds.
pub const MAX_PER_PAGE: i64 = 100;

/// Page and per-page from `?page&perPage` (page from 1; perPage from 1, default 10, more than
/// `MAX_PER_PAGE` served as that many).
pub fn parse_paging(page: Option<&str>, per_page: Option<&str>) -> Result<(i64, i64), AppError> {
    let mut c = Check::new();
    let page = match page {
        None => 1,
        Some(p) => match p.parse::<i64>() {
            Ok(n) if (1..=1_000_000).contains(&n) => n,
            _ => {
                c.fail("page", "a whole number from 1");
                1
            }
        },
    };
    let per_page = match per_page {
        None => 10,
        Some(p) => match p.parse::<i64>() {
            // The signing service's API v1 sets no maximum: more than 100 is served as 100.
            Ok(n) if n >= 1 => n.min(MAX_PER_PAGE),
            _ => {
                c.fail("perPage", "a whole number from 1 (at most 100 are served)");
                10
            }
        },
    };
    c.finish((page, per_page))
}

/// `1` page for 0..=per_page items, and so on (0 when there is nothing).
pub fn total_pages(total: i64, per_page: i64) -> i64 {
    (total + per_page - 1) / per_page
}

/// A safe file name for the download: the title's ASCII letters, digits and `-_.` (spaces
/// become `-`), so it needs no escaping in the URL or the header.
pub fn file_name(title: &str, sealed: bool) -> String {
    let base: String = title
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.'))
        .take(80)
        .collect::<String>()
        .trim()
        .replace(' ', "-");
    let base = if base.is_empty() {
        "document".into()
    } else {
        base
    };
    if sealed {
        format!("{base}-signed.pdf")
    } else {
        format!("{base}.pdf")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn create(body: Value) -> CreateDocument {
        serde_json::from_value::<crate::http::api::wire::documents::create::CreateDocumentRequest>(
            body,
        )
        .unwrap()
        .validate()
        .unwrap()
    }

    #[test]
    fn action_auth_needs_enterprise() {
        let tier = |body: Value, tier| {
            let doc = create(body);
            check_tier(&doc.auth_options, &doc.recipients, tier)
        };
        let body =
            json!({"title": "t", "recipients": [], "authOptions": {"globalActionAuth": "ACCOUNT"}});
        assert!(matches!(
            tier(body.clone(), Tier::Standard),
            Err(AppError::Forbidden(_))
        ));
        assert!(tier(body, Tier::Enterprise).is_ok());
        let body = json!({"title": "t", "recipients": [{"email": "a@x.org", "authOptions": {"actionAuth": "ACCOUNT"}}]});
        assert!(matches!(
            tier(body, Tier::Standard),
            Err(AppError::Forbidden(_))
        ));
        let body =
            json!({"title": "t", "recipients": [], "authOptions": {"globalAccessAuth": "ACCOUNT"}});
        assert!(
            tier(body, Tier::Standard).is_ok(),
            "access auth is for every tier"
        );
    }

    #[test]
    fn paging() {
        assert_eq!(parse_paging(None, None).unwrap(), (1, 10));
        assert!(parse_paging(Some("0"), None).is_err());
        assert!(parse_paging(None, Some("0")).is_err());
        assert!(parse_paging(None, Some("ten")).is_err());
        assert_eq!(parse_paging(None, Some("101")).unwrap(), (1, 100));
        assert_eq!(parse_paging(None, Some("5000")).unwrap(), (1, 100));
        assert_eq!(total_pages(0, 10), 0);
        assert_eq!(total_pages(10, 10), 1);
        assert_eq!(total_pages(11, 10), 2);
    }
}
