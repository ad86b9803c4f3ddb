//! `/settings/webhooks`: the signed-in owner's webhooks. The list, the form of a new one
//! (URL and events by checkboxes; its answer is the webhook's page with the secret shown once),
//! and deletion. Adding one asks for a session that confirmed who it is within the last few
//! minutes (`/account/confirm`, then back to the form as typed). The forms call `integrations::webhooks`, the use cases of the API's
//! `/api/v1/webhooks`, with the request shapes the API reads, so a URL or an event list is
//! refused in the same words on both.

use askama::Template;
use http::StatusCode;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::nav::{Nav, Section};
use super::settings::{Done, Problems, Tab, notice, tabs};
use super::settings_webhook;
use super::timeline::{Stamp, stamp};
use crate::core::lenient::Given;
use crate::http::api::wire::webhooks::CreateWebhookRequest;
use crate::http::reply::{Format, error_response, html_result, page, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{APP, Form, SignedIn, form_csrf, signed_in, urlencode, with_query};
use crate::identity::accounts::access::Source;
use crate::identity::principal::Principal;
use crate::integrations::webhooks as manage;
use crate::outbox::webhooks::Event;
use crate::outbox::webhooks::store::{App, Webhook};

const BACK: &str = "/settings/webhooks";

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || crate::http::with_state(state.clone())
    };
    let list = warp::path!("settings" / "webhooks")
        .and(warp::get())
        .and(s())
        .and(signed_in(&state, BACK))
        .and(crate::http::body::query::<Done>())
        .then(|st: AppState, who: SignedIn, q: Done| async move {
            list(&st, who, notice(q.done.as_ref())).await
        });
    let new = warp::path!("settings" / "webhooks" / "new")
        .and(warp::get())
        .and(s())
        .and(signed_in(&state, "/settings/webhooks/new"))
        .and(warp::query::<std::collections::HashMap<String, String>>())
        .then(
            |st: AppState, who: SignedIn, q: std::collections::HashMap<String, String>| async move {
                let form = HookForm::new(&st, &who, None);
                // Back from confirming who one is: the form as it was typed.
                match q.contains_key("url") {
                    true => page(Ok(form.filled(&Typed::of(&q)))),
                    false => page(Ok(form)),
                }
            },
        );
    let create = warp::path!("settings" / "webhooks")
        .and(warp::post())
        .and(s())
        .and(crate::http::source())
        .and(form_csrf(&state, APP, BACK))
        .then(|st, from, who, f| async move { create(st, from, who, f).await });
    let delete = warp::path!("settings" / "webhooks" / i64 / "delete")
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(
            |id, st: AppState, (_, user): SignedIn, _f: Form| async move {
                let who = Principal::browser(user.id);
                let deleted = manage::delete(&st.ctx(), &who, id, None).await;
                html_result(deleted.map(|_| redirect(&format!("{BACK}?done=deleted"))))
            },
        );
    list.or(new)
        .unify()
        .or(create)
        .unify()
        .or(delete)
        .unify()
        .boxed()
}

/// A webhook as listed.
struct Row {
    id: i64,
    url: String,
    events: String,
    created: Stamp,
    enabled: bool,
    /// "Zapier" or the app's, when not made by the owner through the API or these pages.
    origin: Option<&'static str>,
}

impl Row {
    fn of(w: &Webhook) -> Row {
        let origin = match (w.app, w.grant) {
            (App::Zapier, _) => Some("Made by Zapier"),
            (App::Api, Some(_)) => Some("Made by a connected app"),
            (App::Api, None) => None,
        };
        Row {
            id: w.id,
            url: w.url.clone(),
            events: summary(&w.events),
            created: stamp(&w.created_at),
            enabled: w.enabled,
            origin,
        }
    }
}

/// "Document signed, Document completed" or "4 events".
fn summary(events: &[Event]) -> String {
    match events {
        [one] => label(*one),
        [a, b] => format!("{}, {}", label(*a), label(*b)),
        many => format!("{} events", many.len()),
    }
}

/// `DOCUMENT_SIGNED` as people read it: "Document signed".
pub fn label(event: Event) -> String {
    let words = event.as_str().to_lowercase().replace('_', " ");
    super::settings::sentence(&words)
        .trim_end_matches('.')
        .to_string()
}

#[derive(Template)]
#[template(path = "app/settings_webhooks.html")]
struct ListPage {
    nav: Nav,
    tabs: Vec<Tab>,
    rows: Vec<Row>,
    notice: Option<&'static str>,
}

async fn list(
    state: &AppState,
    (session, user): SignedIn,
    notice: Option<&'static str>,
) -> Response {
    let who = Principal::browser(user.id);
    let nav = Nav::of(state, &session, &user, Section::Settings);
    let result = manage::list(&state.ctx(), &who)
        .await
        .map(|hooks| ListPage {
            nav,
            tabs: tabs("Webhooks"),
            rows: hooks.iter().map(Row::of).collect(),
            notice,
        });
    page(result)
}

/// A box of the events' checkboxes.
pub struct Choice {
    pub value: &'static str,
    pub label: String,
    pub checked: bool,
}

/// The form of a new webhook (`editing` is `None`) or of a webhook's change.
#[derive(Template)]
#[template(path = "app/settings_webhook_form.html")]
pub struct HookForm {
    pub nav: Nav,
    pub tabs: Vec<Tab>,
    pub editing: Option<i64>,
    pub url: String,
    pub enabled: bool,
    /// "Every event" is picked (else the boxes checked).
    pub all: bool,
    pub documents: Vec<Choice>,
    pub bookings: Vec<Choice>,
    pub problems: Problems,
}

impl HookForm {
    /// The form, empty or filled with `hook`'s values.
    pub fn new(state: &AppState, (session, user): &SignedIn, hook: Option<&Webhook>) -> HookForm {
        let events = hook.map(|h| h.events.clone()).unwrap_or_default();
        let mut form = HookForm {
            nav: Nav::of(state, session, user, Section::Settings),
            tabs: tabs("Webhooks"),
            editing: hook.map(|h| h.id),
            url: hook.map(|h| h.url.clone()).unwrap_or_default(),
            enabled: hook.is_none_or(|h| h.enabled),
            all: events.is_empty() || events.len() == Event::ALL.len(),
            documents: Vec::new(),
            bookings: Vec::new(),
            problems: Problems::default(),
        };
        form.choose(&events);
        form
    }

    /// Marks `events` as checked.
    fn choose(&mut self, events: &[Event]) {
        let choice = |e: Event| Choice {
            value: e.as_str(),
            label: label(e),
            checked: events.contains(&e),
        };
        self.documents = Event::ALL
            .into_iter()
            .filter(|e| !e.is_booking())
            .map(choice)
            .collect();
        self.bookings = Event::ALL
            .into_iter()
            .filter(|e| e.is_booking())
            .map(choice)
            .collect();
    }

    /// The form filled with what was typed.
    pub fn filled(mut self, typed: &Typed) -> HookForm {
        self.url = typed.url.clone();
        self.enabled = typed.enabled;
        self.all = typed.all;
        self.choose(&typed.events);
        self
    }

    /// The form as posted, refused with `e`: 400 with the problems beside their fields.
    pub fn refused(self, typed: &Typed, e: &crate::core::error::AppError) -> Response {
        let mut form = self.filled(typed);
        form.problems = Problems::of(e);
        page_as(StatusCode::BAD_REQUEST, Ok(form))
    }
}

/// A webhook form as posted: the URL, the events (all of them for `events=all`, else the
/// boxes checked, `event.NAME`), `enabled`.
pub struct Typed {
    pub url: String,
    pub all: bool,
    pub events: Vec<Event>,
    pub enabled: bool,
}

impl Typed {
    pub fn of(form: &Form) -> Typed {
        let all = form.get("events").is_some_and(|e| e == "all");
        Typed {
            all,
            url: form
                .get("url")
                .map(|u| u.trim().to_string())
                .unwrap_or_default(),
            events: Event::ALL
                .into_iter()
                .filter(|e| all || form.contains_key(&format!("event.{}", e.as_str())))
                .collect(),
            enabled: form.contains_key("enabled"),
        }
    }

    /// The URL as a request shape's member (left out when empty: "required").
    pub fn url(&self) -> Given<String> {
        match self.url.is_empty() {
            true => Given::Absent,
            false => Given::Valid(self.url.clone()),
        }
    }

    /// `path` with what was typed as its query, to come back to after confirming who one is
    /// (read again by `of`).
    pub fn back_to(&self, path: &str) -> String {
        let mut pairs = vec![("url".to_string(), self.url.clone())];
        if self.all {
            pairs.push(("events".into(), "all".into()));
        } else {
            pairs.extend(
                self.events
                    .iter()
                    .map(|e| (format!("event.{}", e.as_str()), "on".into())),
            );
        }
        if self.enabled {
            pairs.push(("enabled".into(), "on".into()));
        }
        let query: Vec<String> = pairs
            .iter()
            .map(|(k, v)| format!("{}={}", urlencode(k), urlencode(v)))
            .collect();
        format!("{path}?{}", query.join("&"))
    }

    /// The events as a request shape's member.
    pub fn events(&self) -> Given<Vec<Given<Event>>> {
        Given::Valid(self.events.iter().copied().map(Given::Valid).collect())
    }
}

/// `POST /settings/webhooks`: the new webhook's page with its secret, or the form again; a
/// session that has not confirmed who it is recently is sent to do so first, and back to the
/// form as it was typed.
async fn create(state: AppState, from: Source, who: SignedIn, form: Form) -> Response {
    let mut typed = Typed::of(&form);
    typed.enabled = true;
    let request = CreateWebhookRequest {
        url: typed.url(),
        events: typed.events(),
        secret: Given::Absent,
    };
    let principal = Principal::browser_session(who.1.id, &who.0);
    let limits = (state.config.max_webhooks_per_user, from);
    let made = match request.validate() {
        Ok(new) => {
            let secrets = &state.webhook_secrets;
            manage::create(&state.ctx(), secrets, &principal, new, limits).await
        }
        Err(e) => Err(e),
    };
    match made {
        Ok((hook, secret)) => settings_webhook::created(&state, who, hook, secret).await,
        Err(e) if e.code() == "confirmation_required" => {
            let back = typed.back_to("/settings/webhooks/new");
            redirect(&with_query("/account/confirm", &[("next", Some(&back))]))
        }
        Err(e) if e.status().is_client_error() && e.status() != StatusCode::NOT_FOUND => {
            HookForm::new(&state, &who, None).refused(&typed, &e)
        }
        Err(e) => error_response(&e, Format::Html),
    }
}
