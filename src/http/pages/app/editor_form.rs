//! What the editor's steps show besides the document: the settings form's values and choices
//! (from `meta`, as the API stores them), and the palette of field types.

use crate::core::owner::Visibility;
use crate::signing::documents::auth_options::{ACCESS_AUTH, ACTION_AUTH, AuthOptions};
use crate::signing::documents::dates::{DATE_FORMATS, format_date};
use crate::signing::documents::deadline::{Period, Unit};
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
    /// The deadline: `none`, `after` (`deadline_amount` of `deadline_units`) or `until`
    /// (`deadline_until`, RFC 3339, which the page shows in the browser's time).
    pub deadline: &'static str,
    pub deadline_amount: u32,
    pub deadline_units: Vec<Choice>,
    pub deadline_until: String,
    /// Automatic reminders: on, every so many days, at most so many.
    pub reminders: bool,
    pub remind_every: u32,
    pub remind_max: u32,
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
            deadline: match &m.envelope_expiration_period {
                None | Some(Period::Disabled { .. }) => "none",
                Some(Period::After { .. }) => "after",
                Some(Period::Until { .. }) => "until",
            },
            deadline_amount: match &m.envelope_expiration_period {
                Some(Period::After { amount, .. }) => *amount,
                _ => 14,
            },
            deadline_units: {
                let unit = match &m.envelope_expiration_period {
                    Some(Period::After { unit, .. }) => *unit,
                    _ => Unit::Day,
                };
                Unit::ALL
                    .into_iter()
                    .map(|u| Choice::new(u.as_str(), unit_label(u), u == unit))
                    .collect()
            },
            deadline_until: match &m.envelope_expiration_period {
                Some(Period::Until { until }) => until.clone(),
                _ => String::new(),
            },
            reminders: m.reminders.is_some(),
            remind_every: m.reminders.map_or(3, |r| r.every_days),
            remind_max: m.reminders.map_or(3, |r| r.max),
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

/// A period's unit, as the settings read it.
fn unit_label(u: Unit) -> &'static str {
    match u {
        Unit::Day => "days",
        Unit::Week => "weeks",
        Unit::Month => "months",
        Unit::Year => "year",
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

/// One type of the fields palette: the API's name, what the sender reads and its icon (the
/// inside of a 20 x 20 SVG drawn with strokes of the text's colour; embedded, no request).
#[derive(Debug, Clone)]
pub struct FieldKind {
    pub value: &'static str,
    pub label: &'static str,
    pub icon: &'static str,
}

impl FieldKind {
    /// The palette: every type but the two that only repeat another under the other signing
    /// service's name (FREE_SIGNATURE is a SIGNATURE, DROPDOWN a SELECT: the same field for the
    /// signer and in the sealed PDF). Fields of those types made through the API still show,
    /// under the name of the one they repeat.
    pub fn all() -> Vec<FieldKind> {
        FieldType::ALL
            .into_iter()
            .filter(|t| !matches!(t, FieldType::FreeSignature | FieldType::Dropdown))
            .map(|t| FieldKind {
                value: t.as_str(),
                label: field_label(t),
                icon: field_icon(t),
            })
            .collect()
    }
}

/// The palette's icon of type `t` (see [`FieldKind`]).
fn field_icon(t: FieldType) -> &'static str {
    match t {
        FieldType::Signature | FieldType::FreeSignature => {
            r#"<path d="M2.5 14.5c2-5 4-9 5.5-8s-2.5 7 0 6.5 2.5-4 4.5-4 1 3 2.5 3 1.5-1.5 2.5-2"/><path d="M2.5 17.5h15"/>"#
        }
        FieldType::Initials => {
            r#"<path d="M2.5 15.5 6 4.5l3.5 11M3.7 12h4.6"/><path d="M12 4.5v11h3a2.75 2.75 0 0 0 0-5.5h-3h2.5a2.75 2.75 0 0 0 0-5.5z"/>"#
        }
        FieldType::Name => {
            r#"<circle cx="10" cy="6.5" r="3.5"/><path d="M3 17.5c.8-3.7 3.6-5.5 7-5.5s6.2 1.8 7 5.5"/>"#
        }
        FieldType::Email => {
            r#"<rect x="2.5" y="4.5" width="15" height="11" rx="1.5"/><path d="m3 5.5 7 5.5 7-5.5"/>"#
        }
        FieldType::Date => {
            r#"<rect x="2.5" y="4" width="15" height="13.5" rx="1.5"/><path d="M2.5 8.5h15M6.5 2.5v3M13.5 2.5v3M6 12h2M12 12h2M6 15h2"/>"#
        }
        FieldType::Text => r#"<path d="M3.5 5V3.5h13V5M10 3.5v13M7.5 16.5h5"/>"#,
        FieldType::Number => r#"<path d="M8 3 6 17M14 3l-2 14M3.5 7.5h14M2.5 12.5h14"/>"#,
        FieldType::Radio => {
            r#"<circle cx="10" cy="10" r="7.5"/><circle cx="10" cy="10" r="3" fill="currentColor"/>"#
        }
        FieldType::Checkbox => {
            r#"<rect x="2.5" y="2.5" width="15" height="15" rx="2"/><path d="m6 10 3 3 5-6"/>"#
        }
        FieldType::Select | FieldType::Dropdown => {
            r#"<rect x="2.5" y="5" width="15" height="10" rx="1.5"/><path d="m11.5 9 2 2 2-2"/>"#
        }
    }
}

pub(super) fn field_label(t: FieldType) -> &'static str {
    match t {
        FieldType::Signature => "Signature",
        FieldType::FreeSignature => "Signature",
        FieldType::Initials => "Initials",
        FieldType::Name => "Name",
        FieldType::Email => "E-mail",
        FieldType::Date => "Date signed",
        FieldType::Text => "Text",
        FieldType::Number => "Number",
        FieldType::Radio => "Radio buttons",
        FieldType::Checkbox => "Checkboxes",
        FieldType::Select | FieldType::Dropdown => "Drop-down list",
    }
}
