//! A document's `meta` (subject and message, dates, redirect, signing order, e-mails,
//! attachments) and its `formValues`: their rules and stored JSON (read from the wire by
//! `http::api::wire::documents`). Authentication options are `auth_options`', date formats
//! `dates`'.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::dates::DATE_FORMATS;
use super::deadline::{Period, Reminders};
use crate::core::i18n::Lang;

pub const DEFAULT_DATE_FORMAT: &str = "yyyy-MM-dd hh:mm a";
pub const DEFAULT_TIMEZONE: &str = "Etc/UTC";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, utoipa::ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum SigningOrder {
    #[default]
    Parallel,
    Sequential,
}

impl SigningOrder {
    pub const ALL: [SigningOrder; 2] = [SigningOrder::Parallel, SigningOrder::Sequential];

    pub fn as_str(self) -> &'static str {
        match self {
            SigningOrder::Parallel => "PARALLEL",
            SigningOrder::Sequential => "SEQUENTIAL",
        }
    }

    /// Case-insensitive, as people type it on a command line.
    pub fn parse(s: &str) -> Option<SigningOrder> {
        SigningOrder::ALL
            .into_iter()
            .find(|o| o.as_str().eq_ignore_ascii_case(s.trim()))
    }
}

crate::sql_text_enum!(SigningOrder);

/// Which of the values a team gives defaults for (`signing::documents::team_settings`) a
/// request chose itself; the others take the team's default. A document made from a
/// template chose them all: it takes the template's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Chosen {
    pub timezone: bool,
    pub date_format: bool,
    pub redirect_url: bool,
    pub signing_order: bool,
    pub language: bool,
    pub expiration: bool,
}

impl Chosen {
    pub const ALL: Chosen = Chosen {
        timezone: true,
        date_format: true,
        redirect_url: true,
        signing_order: true,
        language: true,
        expiration: true,
    };
}

/// `meta`, as stored and returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    /// The signing request's subject; {signer.name}, {signer.email} and {document.name} are
    /// filled in per recipient.
    #[schema(required = true)]
    pub subject: Option<String>,
    /// The signing request's message; {signer.name}, {signer.email} and {document.name} are
    /// filled in per recipient.
    #[schema(required = true)]
    pub message: Option<String>,
    pub timezone: String,
    pub date_format: String,
    #[schema(required = true, format = "uri")]
    pub redirect_url: Option<String>,
    pub signing_order: SigningOrder,
    /// EMAIL, or NONE: the owner hands out the signing links and recipients get no e-mail
    /// (no signing requests, reminders, completion or cancellation e-mails).
    #[serde(default)]
    #[schema(required = true)]
    pub distribution_method: DistributionMethod,
    /// Which e-mails the document sends (all by default); with `distributionMethod` NONE, no
    /// e-mail goes to recipients whatever these say.
    #[serde(default)]
    #[schema(required = true)]
    pub email_settings: EmailSettings,
    /// Links the sender attached at creation (`attachments`), shown to signers (present when
    /// there are any).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schema(required = false)]
    pub attachments: Vec<Attachment>,
    /// The language recipients read the signing pages and e-mails in (en when never chosen:
    /// the documents made before languages existed read as they did).
    #[serde(default)]
    #[schema(required = true)]
    pub language: Lang,
    /// How long each recipient has to act once the document is sent: `{"unit": "day" | "week"
    /// | "month" | "year", "amount": n}` after sending, `{"until": "<RFC 3339 date>"}`, or
    /// `{"disabled": true}`; null: none (or, in a request, the template's, team's or account's
    /// default). Fixed into each recipient's `expiresAt` at sending, a year at most.
    #[serde(default)]
    #[schema(required = true)]
    pub envelope_expiration_period: Option<Period>,
    /// Automatic reminders to recipients who have not acted: `{"everyDays": n, "max": m}`
    /// (within 30 days of sending); null: none.
    #[serde(default)]
    #[schema(required = true)]
    pub reminders: Option<Reminders>,
}

/// A link attachment: a label and an http(s) URL (the signing service's `{label, data, type:
/// "link"}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Attachment {
    pub label: String,
    #[schema(format = "uri")]
    pub data: String,
    #[serde(rename = "type")]
    #[schema(pattern = "^link$")]
    pub kind: String,
}

impl Attachment {
    /// The host the link goes to, as a recipient reads it before following it.
    pub fn host(&self) -> String {
        link_host(&self.data)
    }
}

/// The host of `url` (a checked link always has one; `""` otherwise).
pub fn link_host(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default()
}

/// At most this many attachments a document (or template).
pub const MAX_ATTACHMENTS: usize = 10;

/// At most this many characters in an attachment's label.
pub const MAX_LABEL: usize = 255;

/// At most this many characters in `meta.subject`.
pub const MAX_SUBJECT: usize = 255;

/// At most this many characters in `meta.message`.
pub const MAX_MESSAGE: usize = 5000;

/// At most this many characters in `meta.timezone` and in `meta.dateFormat`.
pub const MAX_ZONE_OR_FORMAT: usize = 64;

/// At most this many characters in a URL (`meta.redirectUrl`, an attachment's `data`).
pub const MAX_URL: usize = 2000;

/// How recipients get their signing links (`meta.distributionMethod`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, utoipa::ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum DistributionMethod {
    /// E-mailed by docket.
    #[default]
    Email,
    /// Handed out by the owner (the API answers the links): no e-mail to recipients.
    None,
}

/// `meta.emailSettings`: the signing service's nine switches, all on by default. Docket has
/// mail for four of them (`recipientSigningRequest`, `documentCompleted`,
/// `ownerDocumentCompleted`, `documentDeleted`); the others are kept and shown as given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct EmailSettings {
    pub recipient_signing_request: bool,
    pub recipient_removed: bool,
    pub recipient_signed: bool,
    pub document_pending: bool,
    pub document_completed: bool,
    pub document_deleted: bool,
    pub owner_document_completed: bool,
    pub owner_recipient_expired: bool,
    pub owner_document_created: bool,
}

impl Default for EmailSettings {
    fn default() -> Self {
        EmailSettings {
            recipient_signing_request: true,
            recipient_removed: true,
            recipient_signed: true,
            document_pending: true,
            document_completed: true,
            document_deleted: true,
            owner_document_completed: true,
            owner_recipient_expired: true,
            owner_document_created: true,
        }
    }
}

/// A switch of `EmailSettings`, reached by its name.
pub type Switch = fn(&mut EmailSettings) -> &mut bool;

impl EmailSettings {
    /// The settings' keys as the API names them, with a setter each.
    pub const KEYS: [(&'static str, Switch); 9] = [
        ("recipientSigningRequest", |s| {
            &mut s.recipient_signing_request
        }),
        ("recipientRemoved", |s| &mut s.recipient_removed),
        ("recipientSigned", |s| &mut s.recipient_signed),
        ("documentPending", |s| &mut s.document_pending),
        ("documentCompleted", |s| &mut s.document_completed),
        ("documentDeleted", |s| &mut s.document_deleted),
        ("ownerDocumentCompleted", |s| {
            &mut s.owner_document_completed
        }),
        ("ownerRecipientExpired", |s| &mut s.owner_recipient_expired),
        ("ownerDocumentCreated", |s| &mut s.owner_document_created),
    ];
}

impl Meta {
    /// The e-mail switches in force: `emailSettings`, with every e-mail to recipients off when
    /// `distributionMethod` is NONE (the owner's own e-mails keep their setting), as the
    /// signing service derives them.
    pub fn effective_email(&self) -> EmailSettings {
        let s = self.email_settings;
        match self.distribution_method {
            DistributionMethod::Email => s,
            DistributionMethod::None => EmailSettings {
                recipient_signing_request: false,
                recipient_removed: false,
                recipient_signed: false,
                document_pending: false,
                document_completed: false,
                document_deleted: false,
                ..s
            },
        }
    }
}

impl Default for Meta {
    fn default() -> Self {
        Meta {
            subject: None,
            message: None,
            timezone: DEFAULT_TIMEZONE.into(),
            date_format: DEFAULT_DATE_FORMAT.into(),
            redirect_url: None,
            signing_order: SigningOrder::Parallel,
            distribution_method: DistributionMethod::Email,
            email_settings: EmailSettings::default(),
            attachments: Vec::new(),
            language: Lang::En,
            envelope_expiration_period: None,
            reminders: None,
        }
    }
}

/// True for IANA zone names the bundled time zone database knows (`Europe/Paris`, `UTC`).
pub fn is_time_zone(name: &str) -> bool {
    !name.is_empty() && jiff::tz::TimeZone::get(name).is_ok()
}

/// `tz` as a document's time zone: an IANA name, or the message saying it is none.
pub fn time_zone(tz: &str) -> Result<(), String> {
    if is_time_zone(tz) {
        Ok(())
    } else {
        Err(format!(
            "{tz:?} is not an IANA time zone name such as Europe/Paris"
        ))
    }
}

/// `format` as a document's date format: one of `DATE_FORMATS`, or the message listing them.
pub fn date_format(format: &str) -> Result<(), String> {
    if DATE_FORMATS.contains(&format) {
        Ok(())
    } else {
        Err(format!(
            "unsupported; use one of: {}",
            DATE_FORMATS.join(" | ")
        ))
    }
}

/// `meta.redirectUrl`: an absolute http(s) URL with a host, written out in full (`https://`,
/// not `https:host`, which browsers read as a relative path), without spaces, control
/// characters or credentials; stored as `url` writes it (normalised), never raw.
pub fn redirect_url(raw: &str) -> Result<String, &'static str> {
    if raw.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err("no spaces or control characters allowed");
    }
    let lower = raw.get(..8).unwrap_or(raw).to_ascii_lowercase();
    if !lower.starts_with("http://") && !lower.starts_with("https://") {
        return Err("must be an absolute http or https URL (http://host/... or https://host/...)");
    }
    let url = url::Url::parse(raw).map_err(|_| "must be an absolute http or https URL")?;
    if url.host_str().is_none_or(str::is_empty) {
        return Err("must be an absolute http or https URL with a host");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("no credentials (user@) allowed");
    }
    Ok(url.to_string())
}

/// True for what a form value may be (`formValues`): text, a number or a boolean.
pub fn is_form_value(v: &Value) -> bool {
    v.is_string() || v.is_number() || v.is_boolean()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_urls_are_absolute_clean_and_normalised() {
        for (raw, stored) in [
            ("https://x.example/done", "https://x.example/done"),
            ("HTTPS://X.Example", "https://x.example/"),
            (
                "http://x.example:8080/a?b=c#d",
                "http://x.example:8080/a?b=c#d",
            ),
            (
                "https://bücher.example/ü",
                "https://xn--bcher-kva.example/%C3%BC",
            ),
        ] {
            assert_eq!(redirect_url(raw).as_deref(), Ok(stored), "{raw}");
        }
        for bad in [
            "https:evil.example",
            "https:/evil.example",
            "javascript:alert(1)",
            "//evil.example",
            "/relative",
            "ftp://x.example/",
            "https://x.example/\n",
            "https://x.exa\tmple/",
            "\u{1}https://x.example/",
            "https://x.example/a b",
            "https://x.example/\u{85}",
            "https://user:pw@x.example/",
            "https://",
            "",
        ] {
            assert!(redirect_url(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn time_zones_and_date_formats_are_known_ones() {
        assert!(time_zone("Europe/Paris").is_ok());
        assert!(time_zone("Mars/Base").unwrap_err().contains("IANA"));
        assert!(date_format("yyyy-MM-dd").is_ok());
        assert!(date_format("whatever").is_err());
        assert!(is_form_value(&Value::from(1)) && !is_form_value(&Value::Null));
    }
}
