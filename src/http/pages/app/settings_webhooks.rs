//! `/settings/webhooks`: the signed-in owner's webhooks (`/t/{slug}/settings/webhooks`: a
//! team's, for its admins; they take the documents' events only). The list, the form of a new one
//! (URL and events by checkboxes; it goes on to the webhook's page, which shows the secret once),
//! and deletion. Adding one asks for a session that confirmed who it is within the last few
//! minutes (`/account/confirm`, then back to the form as typed). The forms call `integrations::webhooks`, the use cases of the API's
//! `/api/v1/webhooks`, with the request shapes the API reads, so a URL or an event list is
//! refused in the same words on both.

use askama::Template;
use http::StatusCode;
use serde::de::IgnoredAny;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::nav::{Nav, Section};
use super::settings::{Done, Problems, Tab, notice, tabs};
use super::settings_webhook;
use super::timeline::{Stamp, stamp};
use super::workspace::{Place, place};
use crate::core::error::AppError;
use crate::core::lenient::Given;
use crate::http::api::wire::webhooks::CreateWebhookRequest;
use crate::http::reply::{self, page, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{APP, SignedIn, form_csrf, signed_in, urlencode, with_query};
use crate::identity::accounts::access::Source;
use crate::integrations::webhooks as manage;
use crate::outbox::webhooks::Event;
use crate::outbox::webhooks::store::{App, Webhook};

const BACK: &str = "/settings/webhooks";

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || crate::http::with_state(state.clone())
    };
    let list = place()
        .and(warp::path!("settings" / "webhooks"))
        .and(warp::get())
        .and(s())
        .and(signed_in(&state, BACK))
        .and(crate::http::body::query::<Done>())
        .then(list)
        .map(reply::answer);
    let new = place()
        .and(warp::path!("settings" / "webhooks" / "new"))
        .and(warp::get())
        .and(s())
        .and(signed_in(&state, "/settings/webhooks/new"))
        .and(crate::http::body::query::<Retyped>())
        .then(new)
        .map(reply::answer);
    let create = place()
        .and(warp::path!("settings" / "webhooks"))
        .and(warp::post())
        .and(s())
        .and(crate::http::source())
        .and(form_csrf(&state, APP, BACK))
        .then(create)
        .map(reply::answer);
    let delete = place()
        .and(warp::path!("settings" / "webhooks" / i64 / "delete"))
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(delete)
        .map(reply::answer);
    list.or(new)
        .unify()
        .or(create)
        .unify()
        .or(delete)
        .unify()
        .boxed()
}

/// `GET /settings/webhooks/new`: the form, empty or (back from confirming who one is) as it was
/// typed.
async fn new(at: Place, state: AppState, who: SignedIn, q: Retyped) -> Result<Response, AppError> {
    // What it lists is the team's for its admins only: the others are refused as the API
    // refuses them.
    manage::list(&state.ctx(), &at.principal(&who.1)).await?;
    let form = HookForm::new(&state, &at, &who, None).await?;
    Ok(page(Ok(match q.0 {
        Some(typed) => form.filled(&typed),
        None => form,
    })))
}

/// `POST /settings/webhooks/{id}/delete`.
async fn delete(
    at: Place,
    id: i64,
    state: AppState,
    (_, user): SignedIn,
    _form: IgnoredAny,
) -> Result<Response, AppError> {
    manage::delete(&state.ctx(), &at.principal(&user), id, None).await?;
    Ok(redirect(&at.link(&format!("{BACK}?done=deleted"))))
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
            (App::Cal, _) => Some("Made through the Cal.com API (v1)"),
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

/// `GET /settings/webhooks`.
async fn list(
    at: Place,
    state: AppState,
    (session, user): SignedIn,
    q: Done,
) -> Result<Response, AppError> {
    let nav = Nav::of(&state, &session, &user, Section::Settings, &at).await?;
    let hooks = manage::list(&state.ctx(), &at.principal(&user)).await?;
    Ok(page(Ok(ListPage {
        tabs: tabs(&nav, "Webhooks"),
        nav,
        rows: hooks.iter().map(Row::of).collect(),
        notice: notice(q.done.as_ref()),
    })))
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
    /// The form in `at`, empty or filled with `hook`'s values.
    pub async fn new(
        state: &AppState,
        at: &Place,
        (session, user): &SignedIn,
        hook: Option<&Webhook>,
    ) -> Result<HookForm, AppError> {
        let events = hook.map(|h| h.events.clone()).unwrap_or_default();
        let nav = Nav::of(state, session, user, Section::Settings, at).await?;
        let mut form = HookForm {
            tabs: tabs(&nav, "Webhooks"),
            nav,
            editing: hook.map(|h| h.id),
            url: hook.map(|h| h.url.clone()).unwrap_or_default(),
            enabled: hook.is_none_or(|h| h.enabled),
            all: events.is_empty() || events.len() == Event::ALL.len(),
            documents: Vec::new(),
            bookings: Vec::new(),
            problems: Problems::default(),
        };
        form.choose(&events);
        Ok(form)
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
        // Bookings are a person's own: a team's webhooks are not offered them.
        let personal = self.nav.role.is_none();
        self.bookings = Event::ALL
            .into_iter()
            .filter(|e| personal && e.is_booking())
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

/// The webhook form as it was typed, in the query of the way back from confirming who one is
/// (`Typed::back_to`); `None` when the query has no `url` (the form as it is).
pub struct Retyped(pub Option<Typed>);

/// A webhook form's fields: `url`, `events`, `enabled` and a box `event.NAME` per event.
/// Whether a box is checked is whether it was sent at all (a browser sends only the checked).
#[derive(Default)]
struct HookFields {
    url: Option<String>,
    events: Option<String>,
    enabled: bool,
    checked: Vec<String>,
}

impl<'de> serde::Deserialize<'de> for HookFields {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<HookFields, D::Error> {
        let mut fields = HookFields::default();
        for (name, value) in std::collections::BTreeMap::<String, String>::deserialize(d)? {
            match name.as_str() {
                "url" => fields.url = Some(value),
                "events" => fields.events = Some(value),
                "enabled" => fields.enabled = true,
                _ if name.starts_with("event.") => fields.checked.push(name),
                _ => {}
            }
        }
        Ok(fields)
    }
}

impl From<HookFields> for Typed {
    fn from(f: HookFields) -> Typed {
        let all = f.events.as_deref() == Some("all");
        let checked = |e: &Event| f.checked.contains(&format!("event.{}", e.as_str()));
        Typed {
            all,
            url: f
                .url
                .as_deref()
                .map(str::trim)
                .unwrap_or_default()
                .to_string(),
            events: Event::ALL
                .into_iter()
                .filter(|e| all || checked(e))
                .collect(),
            enabled: f.enabled,
        }
    }
}

impl<'de> serde::Deserialize<'de> for Typed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Typed, D::Error> {
        HookFields::deserialize(d).map(Typed::from)
    }
}

impl<'de> serde::Deserialize<'de> for Retyped {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Retyped, D::Error> {
        let fields = HookFields::deserialize(d)?;
        Ok(Retyped(fields.url.is_some().then(|| Typed::from(fields))))
    }
}

impl Typed {
    /// The form as a team's webhook takes it: "every event" is every document event.
    pub fn in_place(mut self, at: &Place) -> Typed {
        if at.slug().is_some() {
            self.events.retain(|e| !e.is_booking());
        }
        self
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

/// `POST /settings/webhooks`: on to the new webhook's page with its secret, or the form again; a
/// session that has not confirmed who it is recently is sent to do so first, and back to the
/// form as it was typed.
async fn create(
    at: Place,
    state: AppState,
    from: Source,
    who: SignedIn,
    typed: Typed,
) -> Result<Response, AppError> {
    let mut typed = typed.in_place(&at);
    typed.enabled = true;
    let request = CreateWebhookRequest {
        url: typed.url(),
        events: typed.events(),
        secret: Given::Absent,
    };
    let principal = crate::identity::principal::Principal::browser_session(who.1.id, &who.0)
        .acting_for(at.acts_for());
    let limits = (state.config.max_webhooks_per_user, from);
    let made = match request.validate() {
        Ok(new) => {
            let secrets = &state.webhook_secrets;
            manage::create(&state.ctx(), secrets, &principal, new, limits).await
        }
        Err(e) => Err(e),
    };
    match made {
        Ok((hook, secret)) => Ok(settings_webhook::created(&state, &at, &who, &hook, &secret)),
        Err(e) if e.code() == "confirmation_required" => {
            let back = typed.back_to(&at.link("/settings/webhooks/new"));
            Ok(redirect(&with_query(
                "/account/confirm",
                &[("next", Some(&back))],
            )))
        }
        Err(e) if e.status().is_client_error() && e.status() != StatusCode::NOT_FOUND => {
            Ok(HookForm::new(&state, &at, &who, None)
                .await?
                .refused(&typed, &e))
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_reads_its_boxes_and_comes_back_from_its_query() {
        let body =
            b"url=%20https%3A%2F%2Fa.example%20&event.DOCUMENT_SIGNED=on&event.NOPE=on&zzz=1";
        let typed: Typed = crate::http::body::pairs(body).unwrap();
        assert_eq!(typed.url, "https://a.example");
        assert_eq!(typed.events, vec![Event::DocumentSigned]);
        assert!(!typed.all && !typed.enabled);
        let all: Typed = crate::http::body::pairs(b"events=x&events=all&enabled=").unwrap();
        assert_eq!(all.events.len(), Event::ALL.len());
        assert!(all.all && all.enabled && all.url.is_empty());
        let back = typed.back_to("/settings/webhooks/new");
        let query = back.split_once('?').unwrap().1;
        let again: Retyped = crate::http::body::pairs(query.as_bytes()).unwrap();
        assert_eq!(again.0.unwrap().events, typed.events);
        let none: Retyped = crate::http::body::pairs(b"events=all").unwrap();
        assert!(none.0.is_none());
    }
}
