//! `/settings/webhooks/{id}`: one of the owner's webhooks. Its page (URL, events, state, the
//! secret once after creation, the delivery log with "Redeliver" per delivery, "Send a test
//! event"), its edit form (`/edit`, posted to the page's address), a test event and a
//! redelivery. Each form calls the use case of the API's route (`integrations::webhooks`):
//! `PATCH /api/v1/webhooks/{id}`, `.../test`, `.../deliveries/{d}/redeliver`. Another user's
//! webhook or delivery is a 404.

use askama::Template;
use http::StatusCode;
use serde::de::IgnoredAny;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::document::sign_in_first;
use super::nav::{Nav, Section};
use super::settings::{Done, Tab, notice, tabs};
use super::settings_webhooks::{HookForm, Retyped, Typed, label};
use super::timeline::{Stamp, human, stamp};
use super::workspace::{Place, place};
use crate::core::error::AppError;
use crate::core::lenient::Given;
use crate::http::api::wire::webhooks::{TestWebhookRequest, UpdateWebhookRequest};
use crate::http::reply::{self, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{APP, SignedIn, cookies, form_csrf, optional, with_query};
use crate::http::shown_once;
use crate::identity::accounts::access::Source;
use crate::integrations::webhooks as manage;
use crate::outbox::webhooks::Event;
use crate::outbox::webhooks::store::{Delivery, DeliveryStatus, Webhook};

const BACK: &str = "/settings/webhooks";

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || crate::http::with_state(state.clone())
    };
    let shown = place()
        .and(warp::path!("settings" / "webhooks" / i64))
        .and(warp::get())
        .and(s())
        .and(optional(&state))
        .and(crate::http::body::query::<Done>())
        .and(cookies())
        .then(page)
        .map(reply::answer);
    let edit = place()
        .and(warp::path!("settings" / "webhooks" / i64 / "edit"))
        .and(warp::get())
        .and(s())
        .and(optional(&state))
        .and(crate::http::body::query::<Retyped>())
        .then(edit)
        .map(reply::answer);
    let save = place()
        .and(warp::path!("settings" / "webhooks" / i64))
        .and(warp::post())
        .and(s())
        .and(crate::http::source())
        .and(form_csrf(&state, APP, BACK))
        .then(save)
        .map(reply::answer);
    let test = place()
        .and(warp::path!("settings" / "webhooks" / i64 / "test"))
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(test)
        .map(reply::answer);
    let redeliver = place()
        .and(warp::path!(
            "settings" / "webhooks" / i64 / "deliveries" / i64 / "redeliver"
        ))
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(redeliver)
        .map(reply::answer);
    shown
        .or(edit)
        .unify()
        .or(save)
        .unify()
        .or(test)
        .unify()
        .or(redeliver)
        .unify()
        .boxed()
}

/// The test form: the event to send (none, or one that is no event: the use case's default).
#[derive(serde::Deserialize)]
struct TestForm {
    event: Option<String>,
}

/// `GET /settings/webhooks/{id}`: the page, with the secret once after creation (brought back
/// by the browser from the creation's redirect, see `shown_once`).
async fn page(
    at: Place,
    id: i64,
    state: AppState,
    who: Option<SignedIn>,
    q: Done,
    cookies: Option<String>,
) -> Result<Response, AppError> {
    let path = at.link(&format!("{BACK}/{id}"));
    let Some(who) = who else {
        return Ok(sign_in_first(&path));
    };
    let taken = shown_once::take(&state, cookies.as_deref(), &who.0, &path);
    let view = View {
        notice: notice(q.done.as_ref()),
        secret: taken.secret.clone(),
        ..View::default()
    };
    Ok(taken.finish(show(&state, &at, who, id, view).await))
}

/// `GET /settings/webhooks/{id}/edit`: the form, with the webhook's values or (back from
/// confirming who one is) as it was typed.
async fn edit(
    at: Place,
    id: i64,
    state: AppState,
    who: Option<SignedIn>,
    q: Retyped,
) -> Result<Response, AppError> {
    let Some(who) = who else {
        return Ok(sign_in_first(&at.link(&format!("{BACK}/{id}/edit"))));
    };
    let hook = manage::get(&state.ctx(), &at.principal(&who.1), id).await?;
    let form = HookForm::new(&state, &at, &who, Some(&hook)).await?;
    Ok(reply::page(Ok(match q.0 {
        Some(typed) => form.filled(&typed),
        None => form,
    })))
}

/// `POST /settings/webhooks/{id}/test`.
async fn test(
    at: Place,
    id: i64,
    state: AppState,
    who: SignedIn,
    form: TestForm,
) -> Result<Response, AppError> {
    let request = TestWebhookRequest {
        event: form
            .event
            .as_deref()
            .and_then(Event::parse)
            .map_or(Given::Absent, Given::Valid),
    };
    let principal = at.principal(&who.1);
    let sent = match request.validate() {
        Ok(event) => manage::send_test(&state.ctx(), &principal, id, event).await,
        Err(e) => Err(e),
    };
    after(&state, &at, who, id, sent, "test").await
}

/// `POST /settings/webhooks/{id}/deliveries/{d}/redeliver`.
async fn redeliver(
    at: Place,
    id: i64,
    delivery: i64,
    state: AppState,
    who: SignedIn,
    _form: IgnoredAny,
) -> Result<Response, AppError> {
    let principal = at.principal(&who.1);
    let queued = manage::redeliver(&state.ctx(), &principal, id, delivery).await;
    after(&state, &at, who, id, queued, "redelivered").await
}

/// After a test event or a redelivery: back to the page with its notice, or the page with the
/// use case's refusal (a webhook switched off) over the log.
async fn after(
    state: &AppState,
    at: &Place,
    who: SignedIn,
    id: i64,
    result: Result<Delivery, AppError>,
    done: &str,
) -> Result<Response, AppError> {
    match result {
        Ok(_) => Ok(redirect(&at.link(&format!("{BACK}/{id}?done={done}")))),
        Err(e) if e.status() == StatusCode::BAD_REQUEST => {
            let view = View {
                refusal: Some(super::settings::sentence(&e.public_message())),
                ..View::default()
            };
            let mut resp = show(state, at, who, id, view).await;
            if resp.status() == StatusCode::OK {
                *resp.status_mut() = StatusCode::BAD_REQUEST;
            }
            Ok(resp)
        }
        Err(e) => Err(e),
    }
}

/// `POST /settings/webhooks/{id}`: the change saved (back to the page), or the form again. A
/// new address or switching it on asks for a session that confirmed who it is recently: to
/// confirm first, then back to the form as it was typed.
async fn save(
    at: Place,
    id: i64,
    state: AppState,
    from: Source,
    who: SignedIn,
    typed: Typed,
) -> Result<Response, AppError> {
    let typed = typed.in_place(&at);
    let request = UpdateWebhookRequest {
        url: typed.url(),
        events: typed.events(),
        enabled: Given::Valid(typed.enabled),
    };
    let principal = crate::identity::principal::Principal::browser_session(who.1.id, &who.0)
        .acting_for(at.acts_for());
    let saved = match request.validate() {
        Ok(change) => manage::update(&state.ctx(), &principal, id, change, from).await,
        Err(e) => Err(e),
    };
    match saved {
        Ok(_) => Ok(redirect(&at.link(&format!("{BACK}/{id}?done=saved")))),
        Err(e) if e.code() == "confirmation_required" => {
            let back = typed.back_to(&at.link(&format!("{BACK}/{id}/edit")));
            Ok(redirect(&with_query(
                "/account/confirm",
                &[("next", Some(&back))],
            )))
        }
        Err(e) if e.status() == StatusCode::BAD_REQUEST => {
            let hook = manage::get(&state.ctx(), &principal, id).await?;
            Ok(HookForm::new(&state, &at, &who, Some(&hook))
                .await?
                .refused(&typed, &e))
        }
        Err(e) => Err(e),
    }
}

/// A delivery as the log shows it.
struct Row {
    id: i64,
    /// Its state (`PENDING:1`), for the page's script to see what changed.
    key: String,
    when: String,
    when_iso: String,
    event: String,
    status: &'static str,
    tone: &'static str,
    http: Option<i64>,
    attempts: i64,
    /// The next try: in words, and as ISO 8601.
    next: Option<(String, String)>,
    /// The start of the receiver's answer.
    excerpt: Option<String>,
    /// Why the last attempt failed.
    error: Option<String>,
    /// Sent at least once, so worth sending again.
    redeliverable: bool,
    /// A test event (or its redelivery), not a real one: badged.
    test: bool,
}

impl Row {
    fn of(d: &Delivery) -> Row {
        let (status, tone) = match d.status {
            DeliveryStatus::Delivered => ("Delivered", "ok"),
            DeliveryStatus::Pending if d.attempts == 0 => ("Queued", ""),
            DeliveryStatus::Pending => ("Retrying", "warn"),
            DeliveryStatus::Failed => ("Failed", "bad"),
        };
        Row {
            id: d.id,
            key: format!("{}:{}", d.status.as_str(), d.attempts),
            when: human(&d.created_at),
            when_iso: d.created_at.clone(),
            event: label(d.event),
            status,
            tone,
            http: d.last_status,
            attempts: d.attempts,
            next: d
                .next_attempt_at
                .as_deref()
                .map(|n| (human(n), n.to_string())),
            excerpt: d.response_excerpt.clone(),
            error: d.last_error.clone(),
            redeliverable: d.status != DeliveryStatus::Pending,
            test: d.test,
        }
    }
}

/// What a rendering of the page shows besides the webhook and its log.
#[derive(Default)]
struct View {
    /// The secret, right after creation.
    secret: Option<String>,
    notice: Option<&'static str>,
    /// A refused test or redelivery.
    refusal: Option<String>,
}

#[derive(Template)]
#[template(path = "app/settings_webhook.html")]
struct HookPage {
    nav: Nav,
    tabs: Vec<Tab>,
    hook: Webhook,
    events: Vec<(&'static str, String)>,
    created: Stamp,
    rows: Vec<Row>,
    view: View,
}

/// The answer to a creation: 303 to the new webhook's page, which shows its secret once.
pub fn created(
    state: &AppState,
    at: &Place,
    who: &SignedIn,
    hook: &Webhook,
    secret: &str,
) -> Response {
    let to = at.link(&format!("{BACK}/{}?done=added", hook.id));
    shown_once::redirect(state, &who.0, &to, secret)
}

async fn show(
    state: &AppState,
    at: &Place,
    (session, user): SignedIn,
    id: i64,
    view: View,
) -> Response {
    let (ctx, who) = (state.ctx(), at.principal(&user));
    let found = async {
        let nav = Nav::of(state, &session, &user, Section::Settings, at).await?;
        let hook = manage::get(&ctx, &who, id).await?;
        let log = manage::deliveries(&ctx, &who, id).await?;
        Ok::<_, AppError>((nav, hook, log))
    };
    let result = found.await.map(|(nav, hook, log)| HookPage {
        tabs: tabs(&nav, "Webhooks"),
        nav,
        events: hook
            .events
            .iter()
            .map(|e| (e.as_str(), label(*e)))
            .collect(),
        created: stamp(&hook.created_at),
        hook,
        rows: log.iter().map(Row::of).collect(),
        view,
    });
    page_as(StatusCode::OK, result)
}
