//! Documents to be signed: what clients send, the
//! rules it must follow, and the shapes returned. SQL lives in `store.rs`.

pub mod attach;
pub mod audit;
pub mod check;
pub mod fields;
pub mod manage;
pub mod meta;
pub mod parts;
pub mod recipients;
pub mod store;

use serde::Serialize;
use serde_json::Value;

use check::Check;
use meta::{AuthOptions, Meta};
use recipients::NewRecipient;

use crate::error::AppError;
use crate::users::Tier;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
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

/// Seed 2.2, with `signingUrl`. `token` and `signingUrl` are the recipient's credential: null
/// for callers that may not see it (`SigningLinks`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecipientView {
    pub id: i64,
    pub document_id: i64,
    pub email: String,
    pub name: String,
    pub role: String,
    pub signing_order: Option<i64>,
    pub token: Option<String>,
    pub signed_at: Option<String>,
    pub read_status: String,
    pub signing_status: String,
    pub send_status: String,
    pub signing_url: Option<String>,
}

/// Seed 2.3: recipients in create, generate and upload responses (links as in `RecipientView`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecipientBrief {
    pub recipient_id: i64,
    pub name: String,
    pub email: String,
    pub token: Option<String>,
    pub role: String,
    pub signing_order: Option<i64>,
    pub signing_url: Option<String>,
}

/// What carries recipients' signing links. A signing token lets whoever holds it sign as the
/// recipient, so only the document owner's own credential sees it; everything shown to an
/// OAuth app, or posted to an app's webhook, goes through `hide_signing_links` first.
pub trait SigningLinks {
    /// Sets every `token` and `signingUrl` inside to null.
    fn hide_signing_links(&mut self);

    /// `self`, with the links hidden unless `shown`.
    fn links_shown_if(mut self, shown: bool) -> Self
    where
        Self: Sized,
    {
        if !shown {
            self.hide_signing_links();
        }
        self
    }
}

impl SigningLinks for RecipientView {
    fn hide_signing_links(&mut self) {
        self.token = None;
        self.signing_url = None;
    }
}

impl SigningLinks for RecipientBrief {
    fn hide_signing_links(&mut self) {
        self.token = None;
        self.signing_url = None;
    }
}

impl SigningLinks for DocumentView {
    fn hide_signing_links(&mut self) {
        self.recipients.hide_signing_links();
    }
}

impl<T: SigningLinks> SigningLinks for Vec<T> {
    fn hide_signing_links(&mut self) {
        self.iter_mut().for_each(T::hide_signing_links);
    }
}

impl From<&RecipientView> for RecipientBrief {
    fn from(r: &RecipientView) -> Self {
        RecipientBrief {
            recipient_id: r.id,
            name: r.name.clone(),
            email: r.email.clone(),
            token: r.token.clone(),
            role: r.role.clone(),
            signing_order: r.signing_order,
            signing_url: r.signing_url.clone(),
        }
    }
}

/// Seed 2.7 with `id`, `documentId`, `inserted` and `customText`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldView {
    pub id: i64,
    pub document_id: i64,
    pub recipient_id: i64,
    #[serde(rename = "type")]
    pub kind: String,
    pub page_number: i64,
    pub page_x: f64,
    pub page_y: f64,
    pub page_width: f64,
    pub page_height: f64,
    pub field_meta: Option<Value>,
    pub inserted: bool,
    pub custom_text: Option<String>,
}

/// Seed 2.1, plus `fields` and `meta`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentView {
    pub id: i64,
    pub external_id: Option<String>,
    pub user_id: i64,
    pub team_id: Option<i64>,
    pub title: String,
    pub status: String,
    pub document_data_id: String,
    pub created_at: String,
    pub updated_at: String,
    pub completed_at: Option<String>,
    pub recipients: Vec<RecipientView>,
    pub fields: Vec<FieldView>,
    pub meta: Meta,
    /// Absent until a sealing attempt fails (so a document that seals at once keeps the
    /// documented shape); then how sealing is going.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sealing: Option<SealingView>,
}

/// How sealing a finished document went, once an attempt has failed: `FAILED` while it is being
/// retried (`nextAttemptAt`; `null` when the document was cancelled in between), `SEALED` once
/// a later attempt succeeded. `attempts` counts every attempt made, the successful one too.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct SealingView {
    pub status: &'static str,
    pub attempts: i64,
    pub last_error: Option<String>,
    pub next_attempt_at: Option<String>,
}

impl SealingView {
    /// From the document's status and its `seal_failures`, `seal_error`, `seal_next_at`.
    pub fn of(
        status: &str,
        failures: i64,
        error: Option<String>,
        next: Option<i64>,
    ) -> Option<SealingView> {
        if failures <= 0 {
            return None;
        }
        let sealed = status == "COMPLETED";
        Some(SealingView {
            status: if sealed { "SEALED" } else { "FAILED" },
            attempts: failures + i64::from(sealed),
            last_error: error,
            next_attempt_at: next
                .filter(|_| status == "PENDING")
                .map(crate::timefmt::iso8601),
        })
    }
}

/// `POST /api/v1/documents`, validated.
#[derive(Debug, Clone)]
pub struct CreateDocument {
    pub title: String,
    pub external_id: Option<String>,
    pub recipients: Vec<NewRecipient>,
    pub meta: Meta,
    pub auth_options: AuthOptions,
    pub form_values: Option<serde_json::Map<String, Value>>,
}

pub const MAX_RECIPIENTS: usize = 100;

/// A new `documentDataId`: names a document's or template's file slot and its upload URL.
pub fn new_data_id() -> String {
    format!("dd_{}", crate::crypto::random_base62(24))
}

/// Validates a create request for an account of `tier` (400 with every problem; 403 for auth
/// options the tier does not include).
pub fn parse_create(body: &Value, tier: Tier) -> Result<CreateDocument, AppError> {
    let mut c = Check::new();
    if !body.is_object() {
        c.fail("", "the body must be a JSON object");
        return Err(c.finish(()).unwrap_err());
    }
    let title = match body.get("title") {
        Some(Value::String(t)) if !t.trim().is_empty() && t.chars().count() <= 255 => {
            t.trim().to_string()
        }
        Some(Value::String(_)) => {
            c.fail("title", "1 to 255 characters");
            String::new()
        }
        _ => {
            c.fail("title", "required: a string");
            String::new()
        }
    };
    let external_id = c.opt_str(body, "externalId", "", 255);
    let recipients =
        recipients::parse_recipients(&mut c, body.get("recipients"), "recipients", MAX_RECIPIENTS);
    let meta = meta::parse_meta(&mut c, body.get("meta"), Meta::default(), true);
    let auth_options = meta::parse_auth_options(&mut c, body.get("authOptions"));
    let form_values = meta::parse_form_values(&mut c, body.get("formValues"));
    let doc = c.finish(CreateDocument {
        title,
        external_id,
        recipients,
        meta,
        auth_options,
        form_values,
    })?;
    check_tier(&doc.auth_options, &doc.recipients, tier)?;
    Ok(doc)
}

/// Action authentication (document-wide or per recipient) needs an enterprise account.
pub fn check_tier(
    auth: &AuthOptions,
    recipients: &[NewRecipient],
    tier: Tier,
) -> Result<(), AppError> {
    if auth.global_action_auth.is_some() {
        meta::require_tier(tier, "authOptions.globalActionAuth")?;
    }
    if recipients.iter().any(|r| !r.auth.is_empty()) {
        meta::require_tier(tier, "recipient authOptions")?;
    }
    Ok(())
}

/// Page and per-page from `?page&perPage` (page from 1; perPage 1..=100, default 10).
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
            Ok(n) if (1..=100).contains(&n) => n,
            _ => {
                c.fail("perPage", "a whole number from 1 to 100");
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

    #[test]
    fn a_seed_request_parses() {
        let doc = parse_create(
            &json!({"title": "NDA", "recipients": [{"name": "A", "email": "a@x.org", "role": "SIGNER", "signingOrder": 0}], "meta": {"subject": "s"}, "unknown": 1}),
            Tier::Standard,
        )
        .unwrap();
        assert_eq!(doc.title, "NDA");
        assert_eq!(doc.recipients.len(), 1);
    }

    #[test]
    fn action_auth_needs_enterprise() {
        let body =
            json!({"title": "t", "recipients": [], "authOptions": {"globalActionAuth": "ACCOUNT"}});
        assert!(matches!(
            parse_create(&body, Tier::Standard),
            Err(AppError::Forbidden(_))
        ));
        assert!(parse_create(&body, Tier::Enterprise).is_ok());
        let body = json!({"title": "t", "recipients": [{"email": "a@x.org", "authOptions": {"actionAuth": "ACCOUNT"}}]});
        assert!(matches!(
            parse_create(&body, Tier::Standard),
            Err(AppError::Forbidden(_))
        ));
        let body =
            json!({"title": "t", "recipients": [], "authOptions": {"globalAccessAuth": "ACCOUNT"}});
        assert!(
            parse_create(&body, Tier::Standard).is_ok(),
            "access auth is for every tier"
        );
    }

    #[test]
    fn wrong_types_are_400_with_paths() {
        let err =
            parse_create(&json!({"title": 5, "recipients": "x"}), Tier::Standard).unwrap_err();
        let paths: Vec<&str> = err.details().iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["title", "recipients"]);
    }

    #[test]
    fn paging() {
        assert_eq!(parse_paging(None, None).unwrap(), (1, 10));
        assert!(parse_paging(Some("0"), None).is_err());
        assert!(parse_paging(None, Some("101")).is_err());
        assert_eq!(total_pages(0, 10), 0);
        assert_eq!(total_pages(10, 10), 1);
        assert_eq!(total_pages(11, 10), 2);
    }
}
