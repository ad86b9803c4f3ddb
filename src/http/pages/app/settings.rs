//! The signed-in owner's settings (`/settings/...`): API tokens (`settings_tokens`),
//! webhooks (`settings_webhooks`, `settings_webhook`) and the sites that may frame the signing
//! pages (`settings_embedding`). Server-rendered pages and plain forms
//! posted with the session's CSRF token (`session::form_csrf` of `session::APP`); each form
//! calls the same use case as the admin CLI (tokens) or the API (webhooks), with the user's
//! browser as the principal. What they share is here: the sub-navigation, a refused form's
//! messages by field, and the one-line notices an action leaves after its redirect.

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::{settings_tokens, settings_webhook, settings_webhooks};
use crate::core::error::AppError;
use crate::http::reply::redirect;
use crate::http::server::state::AppState;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    // A team's settings open on its members (what every member may see), one's own on the
    // API tokens.
    let home = super::workspace::place()
        .and(warp::path!("settings"))
        .and(warp::get())
        .map(|at: super::workspace::Place| match at {
            super::workspace::Place::Personal => redirect("/settings/tokens"),
            team => redirect(&team.link("/settings/members")),
        });
    home.or(settings_tokens::routes(state.clone()))
        .unify()
        .or(settings_webhooks::routes(state.clone()))
        .unify()
        .or(settings_webhook::routes(state.clone()))
        .unify()
        .or(super::settings_members::routes(state.clone()))
        .unify()
        .or(super::settings_general::routes(state.clone()))
        .unify()
        .or(super::settings_embedding::routes(state.clone()))
        .unify()
        .or(super::settings_delete::routes(state))
        .unify()
        .boxed()
}

/// A link of the settings' sub-navigation.
#[derive(Debug, Clone)]
pub struct Tab {
    pub href: String,
    pub label: &'static str,
    pub current: bool,
}

/// The settings' areas of the page's workspace, `current` marked: a team's members and
/// general settings come first, then (for its admins) what connects other programs.
pub fn tabs(nav: &super::nav::Nav, current: &str) -> Vec<Tab> {
    let mut areas = Vec::new();
    if nav.role.is_some() {
        areas.push(("/settings/members", "Members"));
        areas.push(("/settings/general", "General"));
    }
    if nav.role.is_none() || nav.team_admin() {
        areas.push(("/settings/tokens", "API tokens"));
        areas.push(("/settings/webhooks", "Webhooks"));
        areas.push(("/settings/embedding", "Embedding"));
    }
    areas
        .into_iter()
        .map(|(path, label)| Tab {
            href: nav.link(path),
            label,
            current: label == current,
        })
        .collect()
}

/// What a refused form shows: a line over the form, and each field's own message.
#[derive(Debug, Clone, Default)]
pub struct Problems {
    pub summary: Option<String>,
    fields: Vec<(String, String)>,
}

impl Problems {
    /// The problems of `e`: its details by field (their paths' first segment), or its message.
    pub fn of(e: &AppError) -> Problems {
        let fields: Vec<(String, String)> = e
            .details()
            .iter()
            .map(|d| {
                let field = d.path.split(['[', '.']).next().unwrap_or_default();
                (field.to_string(), sentence(&d.message))
            })
            .collect();
        let summary = match fields.len() {
            0 => sentence(&e.public_message()),
            1 => "Correct the field marked below.".into(),
            _ => "Correct the fields marked below.".into(),
        };
        Problems {
            summary: Some(summary),
            fields,
        }
    }

    /// The message of field `name`, or "" (the `field` partial shows none).
    pub fn at(&self, name: &str) -> String {
        let mut found = self
            .fields
            .iter()
            .filter(|(f, _)| f == name)
            .map(|(_, m)| m.as_str());
        let first = found.next().unwrap_or_default().to_string();
        found.fold(first, |all, m| format!("{all} {m}"))
    }
}

/// `text` with a capital letter and a full stop.
pub fn sentence(text: &str) -> String {
    let t = text.trim();
    let mut chars = t.chars();
    let mut out: String = match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => return String::new(),
    };
    if !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    out
}

/// The notice for `?done=...` after an action's redirect, from a fixed list (never the query's
/// text itself).
/// What a page's `?done=` says was just done.
#[derive(serde::Deserialize)]
pub struct Done {
    pub done: Option<String>,
}

pub fn notice(done: Option<&String>) -> Option<&'static str> {
    Some(match done?.as_str() {
        "revoked" => "The token was revoked. Programs that use it are refused from now on.",
        "deleted" => "The webhook was deleted, with its delivery log.",
        "added" => "The webhook was added.",
        "saved" => "Your changes were saved.",
        "test" => "A test event was queued. Refresh the log in a moment to see how it went.",
        "redelivered" => {
            "The delivery was queued again. Refresh the log in a moment to see how it went."
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::FieldError;

    #[test]
    fn problems_are_sentences_by_field() {
        let e = AppError::validation(vec![
            FieldError::new("events[2]", "must be one of A, B"),
            FieldError::new("url", "required"),
        ]);
        let p = Problems::of(&e);
        assert_eq!(p.at("events"), "Must be one of A, B.");
        assert_eq!(p.at("url"), "Required.");
        assert_eq!(p.at("name"), "");
        assert_eq!(
            p.summary.as_deref(),
            Some("Correct the fields marked below.")
        );
        let p = Problems::of(&AppError::Conflict("at most 20 webhooks".into()));
        assert_eq!(p.summary.as_deref(), Some("At most 20 webhooks."));
        assert_eq!(notice(Some(&"<b>".to_string())), None);
    }
}
