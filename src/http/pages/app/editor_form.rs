//! What the editor's steps show besides the document: the settings form's values and choices
//! (from `meta`, as the API stores them), and the palette of field types.

use crate::core::owner::Visibility;
use crate::signing::documents::auth_options::{ACCESS_AUTH, ACTION_AUTH, AuthOptions};
use crate::signing::documents::dates::{DATE_FORMATS, format_date};
use crate::signing::documents::fields::FieldType;
use crate::signing::documents::meta::{DistributionMethod, Meta, SigningOrder};
use crate::teams::TeamRole;

/// A choice of a select or a group of boxes: its value, what it reads, whether it is chosen.
#[derive(Debug, Clone)]
pub struct Choice {
    pub value: String,
    pub label: String,
    pub chosen: bool,
}

impl Choice {
    fn new(value: &str, label: impl Into<String>, chosen: bool) -> Choice {
        Choice {
            value: value.into(),
            label: label.into(),
            chosen,
        }
    }
}

/// The settings step's form, filled with the document's (or template's) values.
#[derive(Debug, Clone)]
pub struct SettingsForm {
    pub title: String,
    pub external_id: String,
    pub subject: String,
    pub message: String,
    pub timezone: String,
    pub redirect_url: String,
    pub sequential: bool,
    pub email: bool,
    pub date_formats: Vec<Choice>,
    pub time_zones: Vec<String>,
    /// The language recipients read the signing pages and e-mails in.
    pub languages: Vec<Choice>,
    pub access_auth: Vec<Choice>,
    pub action_auth: Vec<Choice>,
    /// What the e-mail's subject and message may hold, each with what it becomes.
    pub placeholders: [(&'static str, &'static str); 3],
    /// Who in its team sees it, among what the user's role sees (empty: a personal row).
    pub visibility: Vec<Choice>,
}

/// When a date is shown as an example of each format: 2026-03-14 15:09 UTC.
const EXAMPLE_DATE: i64 = 1_773_500_940;

impl SettingsForm {
    pub fn of(
        title: &str,
        external_id: Option<&str>,
        m: &Meta,
        auth: &AuthOptions,
    ) -> SettingsForm {
        SettingsForm {
            title: title.to_string(),
            external_id: external_id.unwrap_or_default().to_string(),
            subject: m.subject.clone().unwrap_or_default(),
            message: m.message.clone().unwrap_or_default(),
            timezone: m.timezone.clone(),
            redirect_url: m.redirect_url.clone().unwrap_or_default(),
            sequential: m.signing_order == SigningOrder::Sequential,
            email: m.distribution_method == DistributionMethod::Email,
            date_formats: date_formats(&m.date_format),
            time_zones: time_zones(),
            languages: languages(m.language.as_str(), None),
            access_auth: methods(ACCESS_AUTH, &auth.global_access_auth),
            action_auth: methods(ACTION_AUTH, &auth.global_action_auth),
            placeholders: [
                ("{signer.name}", "the recipient's name"),
                ("{signer.email}", "the recipient's e-mail address"),
                ("{document.name}", "the document's title"),
            ],
            visibility: Vec::new(),
        }
    }

    /// With the choice of who in the team sees it: `now`, among those `role` sees (a role
    /// gives only a visibility it sees); none on personal pages (`role` is `None`).
    pub fn in_team(mut self, role: Option<TeamRole>, now: Visibility) -> SettingsForm {
        if let Some(role) = role {
            self.visibility = role
                .seen()
                .into_iter()
                .map(|v| Choice::new(v.as_str(), visibility_label(v), v == now))
                .collect();
        }
        self
    }
}

/// Who sees a team's row, in the sender's words.
fn visibility_label(v: Visibility) -> &'static str {
    match v {
        Visibility::Everyone => "Everyone in the team",
        Visibility::ManagerAndAbove => "The team's managers and admins",
        Visibility::Admin => "The team's admins only",
    }
}

/// Each of `all` as a box, checked when in `chosen`.
fn methods(all: &[&str], chosen: &[String]) -> Vec<Choice> {
    all.iter()
        .map(|m| Choice::new(m, method_label(m), chosen.iter().any(|c| c == m)))
        .collect()
}

/// What an authentication method means to the sender.
pub fn method_label(method: &str) -> &'static str {
    match method {
        "ACCOUNT" => "Signed in to an account with the recipient's e-mail address",
        "TWO_FACTOR_AUTH" => "A code from an authenticator app",
        "PASSKEY" => "A passkey",
        "PASSWORD" => "Their account password",
        "EXPLICIT_NONE" => "Nothing more than the link",
        _ => "Another method",
    }
}

/// The date formats, each with an example, `chosen` marked.
pub fn date_formats(chosen: &str) -> Vec<Choice> {
    DATE_FORMATS
        .iter()
        .map(|f| {
            let example = format_date(EXAMPLE_DATE, "Etc/UTC", f);
            Choice::new(f, format!("{example}  ({f})"), *f == chosen)
        })
        .collect()
}

/// The languages recipients may read in, by their own names, `chosen` (a code) marked; with
/// `unset`, a first choice of none (the default it names).
pub fn languages(chosen: &str, unset: Option<&str>) -> Vec<Choice> {
    let none = unset.map(|label| Choice::new("", label, chosen.is_empty()));
    none.into_iter()
        .chain(
            crate::core::i18n::Lang::choices()
                .into_iter()
                .map(|(code, name)| Choice::new(code, name, code == chosen)),
        )
        .collect()
}

/// The IANA time zone names the server knows, sorted.
pub fn time_zones() -> Vec<String> {
    let mut zones: Vec<String> = jiff::tz::db()
        .available()
        .map(|z| z.as_str().to_string())
        .filter(|z| z.contains('/') || z == "UTC")
        .collect();
    zones.sort();
    zones
}

/// One type of the fields palette: the API's name and what the sender reads.
#[derive(Debug, Clone)]
pub struct FieldKind {
    pub value: &'static str,
    pub label: &'static str,
}

impl FieldKind {
    pub fn all() -> Vec<FieldKind> {
        FieldType::ALL
            .into_iter()
            .map(|t| FieldKind {
                value: t.as_str(),
                label: field_label(t),
            })
            .collect()
    }
}

fn field_label(t: FieldType) -> &'static str {
    match t {
        FieldType::Signature => "Signature",
        FieldType::FreeSignature => "Free signature",
        FieldType::Initials => "Initials",
        FieldType::Name => "Name",
        FieldType::Email => "E-mail",
        FieldType::Date => "Date signed",
        FieldType::Text => "Text",
        FieldType::Number => "Number",
        FieldType::Radio => "Radio buttons",
        FieldType::Checkbox => "Checkboxes",
        FieldType::Select => "Select",
        FieldType::Dropdown => "Dropdown",
    }
}
