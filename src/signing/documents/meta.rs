//! A document's `meta` (subject and message, dates, redirect, signing order, e-mails,
//! attachments) and its `formValues`: their checks and stored JSON. Authentication options
//! are `auth_options`', date formats `dates`'.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::check::{Check, join};
use super::dates::DATE_FORMATS;
use super::request::{AttachmentInput, EmailSettingsInput, List, MetaInput};
use crate::{core::lenient::Given, core::lenient::Object};

pub const DEFAULT_DATE_FORMAT: &str = "yyyy-MM-dd hh:mm a";
pub const DEFAULT_TIMEZONE: &str = "Etc/UTC";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, utoipa::ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum SigningOrder {
    #[default]
    Parallel,
    Sequential,
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

/// At most this many attachments a document.
pub const MAX_ATTACHMENTS: usize = 10;

/// `attachments`: null, or a list of at most `MAX_ATTACHMENTS` `{label (1..255 characters),
/// data (an absolute http(s) URL, as `meta.redirectUrl`), type? ("link")}`.
pub fn parse_attachments(c: &mut Check, raw: &List<AttachmentInput>) -> Vec<Attachment> {
    if raw.is_absent() {
        return Vec::new();
    }
    let Some(list) = raw.valid().filter(|a| a.len() <= MAX_ATTACHMENTS) else {
        c.fail(
            "attachments",
            format!("must be a list of at most {MAX_ATTACHMENTS} {{label, data}} links"),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, a) in list.iter().enumerate() {
        let path = format!("attachments[{i}]");
        let Some(Object(a)) = a.valid() else {
            c.fail(path, "must be an object {label, data}");
            continue;
        };
        let label = c
            .text(&a.label, &join(&path, "label"), 255)
            .map(|l| l.trim().to_string());
        if label.as_deref().is_none_or(str::is_empty) {
            c.fail(join(&path, "label"), "required: 1 to 255 characters");
        }
        let data = match c.text(&a.data, &join(&path, "data"), 2000) {
            Some(u) => redirect_url(&u)
                .map_err(|why| c.fail(join(&path, "data"), why))
                .ok(),
            None => {
                c.fail(join(&path, "data"), "required: an http or https URL");
                None
            }
        };
        match &a.kind {
            Given::Absent | Given::Null => {}
            Given::Valid(t) if t == "link" => {}
            _ => c.fail(join(&path, "type"), "only \"link\" attachments exist"),
        }
        if let (Some(label), Some(data)) = (label.filter(|l| !l.is_empty()), data) {
            out.push(Attachment {
                label,
                data,
                kind: "link".into(),
            });
        }
    }
    out
}

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
type Switch = fn(&mut EmailSettings) -> &mut bool;

impl EmailSettings {
    /// The settings' keys as the API names them, with a setter each.
    const KEYS: [(&'static str, Switch); 9] = [
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
        }
    }
}

/// True for IANA zone names the bundled time zone database knows (`Europe/Paris`, `UTC`).
pub fn is_time_zone(name: &str) -> bool {
    !name.is_empty() && jiff::tz::TimeZone::get(name).is_ok()
}

/// Applies the members present in `raw` (absent or null for none) over `base`.
/// `strict_zone`: documents need IANA names; templates' generate-document takes free strings.
pub fn parse_meta(
    c: &mut Check,
    raw: &Given<Object<MetaInput>>,
    base: Meta,
    strict_zone: bool,
) -> Meta {
    let mut meta = base;
    if raw.is_absent() {
        return meta;
    }
    let Some(Object(raw)) = c.given(raw, "meta", "must be an object") else {
        return meta;
    };
    if let Some(s) = c.text(&raw.subject, "meta.subject", 255) {
        meta.subject = Some(s);
    }
    if let Some(s) = c.text(&raw.message, "meta.message", 5000) {
        meta.message = Some(s);
    }
    if let Some(tz) = c.text(&raw.timezone, "meta.timezone", 64) {
        if strict_zone && !is_time_zone(&tz) {
            c.fail(
                "meta.timezone",
                format!("{tz:?} is not an IANA time zone name such as Europe/Paris"),
            );
        } else {
            meta.timezone = tz;
        }
    }
    if let Some(f) = c.text(&raw.date_format, "meta.dateFormat", 64) {
        if strict_zone && !DATE_FORMATS.contains(&f.as_str()) {
            c.fail(
                "meta.dateFormat",
                format!("unsupported; use one of: {}", DATE_FORMATS.join(" | ")),
            );
        } else {
            meta.date_format = f;
        }
    }
    if let Some(u) = c.text(&raw.redirect_url, "meta.redirectUrl", 2000) {
        match redirect_url(&u) {
            Ok(url) => meta.redirect_url = Some(url),
            Err(why) => c.fail("meta.redirectUrl", why),
        }
    }
    let order = "must be PARALLEL or SEQUENTIAL";
    if let Some(o) = c.given(&raw.signing_order, "meta.signingOrder", order) {
        meta.signing_order = *o;
    }
    let method = "must be EMAIL or NONE";
    if let Some(m) = c.given(&raw.distribution_method, "meta.distributionMethod", method) {
        meta.distribution_method = *m;
    }
    if let Some(s) = parse_email_settings(c, &raw.email_settings) {
        meta.email_settings = s;
    }
    meta
}

/// `meta.emailSettings`: an object of the nine switches, each true or false; those left out
/// are on (as the signing service reads it), keys it does not know are ignored. Null or
/// absent: `None` (keep what there is).
fn parse_email_settings(
    c: &mut Check,
    raw: &Given<Object<EmailSettingsInput>>,
) -> Option<EmailSettings> {
    if raw.is_absent() {
        return None;
    }
    let message = "must be an object of true/false switches";
    let Object(given) = c.given(raw, "meta.emailSettings", message)?;
    let mut out = EmailSettings::default();
    for ((key, field), switch) in EmailSettings::KEYS.into_iter().zip(given.switches()) {
        let path = format!("meta.emailSettings.{key}");
        if let Some(b) = c.given(switch, &path, "must be true or false") {
            *field(&mut out) = *b;
        }
    }
    Some(out)
}

/// `meta.redirectUrl`: an absolute http(s) URL with a host, written out in full (`https://`,
/// not `https:host`, which browsers read as a relative path), without spaces, control
/// characters or credentials; stored as `url` writes it (normalised), never raw.
fn redirect_url(raw: &str) -> Result<String, &'static str> {
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

/// `formValues`: names to text, number or boolean values.
pub fn parse_form_values(
    c: &mut Check,
    raw: &Given<serde_json::Map<String, Value>>,
) -> Option<serde_json::Map<String, Value>> {
    if raw.is_absent() {
        return None;
    }
    let message = "must be an object of names to text, numbers or booleans";
    let obj = c.given(raw, "formValues", message)?;
    for (k, v) in obj {
        if !(v.is_string() || v.is_number() || v.is_boolean()) {
            c.fail(
                format!("formValues.{k}"),
                "must be text, a number or a boolean",
            );
        }
    }
    Some(obj.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn g<T: serde::de::DeserializeOwned>(v: Value) -> Given<T> {
        crate::core::lenient::member(&json!({ "v": v }), "v")
    }

    #[test]
    fn meta_is_validated_field_by_field() {
        let mut c = Check::new();
        let m = parse_meta(
            &mut c,
            &g(
                json!({"subject": "Sign", "timezone": "Europe/Paris", "dateFormat": "yyyy-MM-dd", "redirectUrl": "https://x.example/done", "signingOrder": "SEQUENTIAL"}),
            ),
            Meta::default(),
            true,
        );
        assert!(c.is_ok());
        assert_eq!(m.signing_order, SigningOrder::Sequential);
        assert_eq!(m.timezone, "Europe/Paris");

        let mut c = Check::new();
        parse_meta(
            &mut c,
            &g(
                json!({"timezone": "Mars/Base", "dateFormat": "whatever", "redirectUrl": "javascript:x", "signingOrder": "RANDOM"}),
            ),
            Meta::default(),
            true,
        );
        let err = c.finish(()).unwrap_err();
        let paths: Vec<&str> = err.details().iter().map(|d| d.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "meta.timezone",
                "meta.dateFormat",
                "meta.redirectUrl",
                "meta.signingOrder"
            ]
        );
    }

    #[test]
    fn distribution_and_email_settings_are_read_stored_and_derived() {
        let mut c = Check::new();
        let m = parse_meta(
            &mut c,
            &g(json!({"distributionMethod": "NONE",
                         "emailSettings": {"documentCompleted": false, "unknownKey": 1}})),
            Meta::default(),
            true,
        );
        assert!(c.is_ok());
        assert_eq!(m.distribution_method, DistributionMethod::None);
        assert!(!m.email_settings.document_completed);
        assert!(m.email_settings.recipient_signed, "left out: on");
        let e = m.effective_email();
        assert!(!e.recipient_signing_request && !e.document_deleted);
        assert!(
            e.owner_document_completed,
            "the owner's own mail keeps its setting"
        );
        // Stored meta from before these keys reads with their defaults.
        let old: Meta = serde_json::from_value(json!({"subject": null, "message": null,
            "timezone": "Etc/UTC", "dateFormat": "yyyy-MM-dd", "redirectUrl": null,
            "signingOrder": "PARALLEL"}))
        .unwrap();
        assert_eq!(old.distribution_method, DistributionMethod::Email);
        assert_eq!(old.email_settings, EmailSettings::default());
        let shown = serde_json::to_value(&m).unwrap();
        assert_eq!(shown["distributionMethod"], "NONE");
        assert_eq!(shown["emailSettings"].as_object().unwrap().len(), 9);

        let mut c = Check::new();
        parse_meta(
            &mut c,
            &g(json!({"distributionMethod": "FAX", "emailSettings": {"documentCompleted": "no"}})),
            Meta::default(),
            true,
        );
        let err = c.finish(()).unwrap_err();
        let paths: Vec<&str> = err.details().iter().map(|d| d.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "meta.distributionMethod",
                "meta.emailSettings.documentCompleted"
            ]
        );
    }

    #[test]
    fn attachments_are_labelled_http_links_and_few() {
        let mut c = Check::new();
        let a = parse_attachments(
            &mut c,
            &g(
                json!([{"label": " Terms ", "data": "https://x.example/terms", "type": "link"},
                         {"label": "Price list", "data": "HTTP://X.example/p"}]),
            ),
        );
        assert!(c.is_ok());
        assert_eq!(a.len(), 2);
        assert_eq!(
            (a[0].label.as_str(), a[1].data.as_str()),
            ("Terms", "http://x.example/p")
        );
        let mut c = Check::new();
        parse_attachments(
            &mut c,
            &g(json!([{"label": "", "data": "javascript:alert(1)", "type": "file"}, 3])),
        );
        let err = c.finish(()).unwrap_err();
        let paths: Vec<&str> = err.details().iter().map(|d| d.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "attachments[0].label",
                "attachments[0].data",
                "attachments[0].type",
                "attachments[1]"
            ]
        );
        let many: Vec<Value> = (0..=MAX_ATTACHMENTS)
            .map(|i| json!({"label": i.to_string(), "data": "https://x.example/"}))
            .collect();
        let mut c = Check::new();
        parse_attachments(&mut c, &g(Value::Array(many)));
        assert!(!c.is_ok());
    }

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
    fn templates_take_free_time_zone_strings() {
        let mut c = Check::new();
        let m = parse_meta(
            &mut c,
            &g(json!({"timezone": "CET-ish"})),
            Meta::default(),
            false,
        );
        assert!(c.is_ok());
        assert_eq!(m.timezone, "CET-ish");
    }

    #[test]
    fn form_values_are_scalars() {
        let mut c = Check::new();
        parse_form_values(&mut c, &g(json!({"a": 1, "b": "x", "c": true})));
        assert!(c.is_ok());
        parse_form_values(&mut c, &g(json!({"a": [1]})));
        assert!(!c.is_ok());
    }
}
