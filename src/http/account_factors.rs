//! The account page's second factors (`factors`): TOTP enrolment with a QR code drawn here and
//! recovery codes, turning TOTP off, and passkeys (add, rename, remove). Forms carry CSRF tokens
//! bound to the session; the passkey calls are JSON with the token in `X-CSRF-Token`. The use
//! cases are `factors::account`.

use std::collections::HashMap;

use askama::Template;
use bytes::Bytes;
use http::StatusCode;
use serde_json::json;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::reply::redirect;
use super::reply::{Format, error_response, form_status, json_response, page, page_as};
use super::session::{cookies, current, safe_next, urlencode};
use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::core::lenient::OrDefault;
use crate::core::timefmt::human;
use crate::http::state::AppState;
use crate::identity::accounts::factors as account;
use crate::identity::factors::Enrolment;
use crate::identity::factors::request::{ChallengeRequest, NewPasskeyRequest};
use crate::identity::sessions::csrf;
use crate::identity::users::User;
use crate::oauth::account::Overview;
use crate::{
    identity::accounts::factors::Confirmation, identity::accounts::factors::NewPasskey,
    identity::accounts::factors::PasskeyChange,
};

type Form = HashMap<String, String>;

fn form() -> impl Filter<Extract = (Form,), Error = warp::Rejection> + Clone {
    super::body::capped_bytes(16 * 1024)
        .map(|b: Bytes| -> Form { url::form_urlencoded::parse(&b).into_owned().collect() })
}

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || super::with_state(state.clone());
    let post_form = |tail: &'static str| {
        warp::path("account")
            .and(warp::path("totp"))
            .and(warp::path(tail))
            .and(warp::path::end())
            .and(warp::post())
    };
    let start = post_form("start")
        .and(s())
        .and(cookies())
        .and(form())
        .then(|st, c, f| async move { totp_start(st, c, f).await });
    let confirm = post_form("confirm")
        .and(s())
        .and(cookies())
        .and(form())
        .then(|st, c, f| async move { totp_confirm(st, c, f).await });
    let disable = post_form("disable")
        .and(s())
        .and(cookies())
        .and(form())
        .then(|st, c, f| async move { totp_disable(st, c, f).await });
    let options = warp::path!("account" / "passkeys" / "options")
        .and(warp::post())
        .and(s())
        .and(cookies())
        .and(warp::header::optional::<String>("x-csrf-token"))
        .and(super::body::optional_json::<OrDefault<ChallengeRequest>>())
        .then(|st, c, t, _b: OrDefault<ChallengeRequest>| async move {
            passkey_options(st, c, t).await
        });
    let add = warp::path!("account" / "passkeys")
        .and(warp::post())
        .and(s())
        .and(cookies())
        .and(warp::header::optional::<String>("x-csrf-token"))
        .and(super::body::json::<OrDefault<NewPasskeyRequest>>())
        .then(|st, c, t, b: OrDefault<_>| async move { passkey_add(st, c, t, b.0).await });
    let rename = warp::path!("account" / "passkeys" / i64 / "rename")
        .and(warp::post())
        .and(s())
        .and(cookies())
        .and(form())
        .then(|id, st, c, f| async move { passkey_change(st, c, id, f, true).await });
    let remove = warp::path!("account" / "passkeys" / i64 / "delete")
        .and(warp::post())
        .and(s())
        .and(cookies())
        .and(form())
        .then(|id, st, c, f| async move { passkey_change(st, c, id, f, false).await });
    start
        .or(confirm)
        .unify()
        .or(disable)
        .unify()
        .or(options)
        .unify()
        .or(add)
        .unify()
        .or(rename)
        .unify()
        .or(remove)
        .unify()
        .boxed()
}

/// The CSRF token for the account's second-factor forms and calls.
pub fn factors_csrf(state: &AppState, session: &str) -> String {
    csrf::token(
        &state.keys,
        "factors",
        &[&SecretToken::presented(session).hash()],
    )
}

/// The signed-in session and user when the CSRF token matches; otherwise the response to give.
pub(super) async fn signed_in(
    state: &AppState,
    cookies: Option<&str>,
    presented: Option<&str>,
) -> Result<(String, User), Response> {
    let (session, user) = match current(state, cookies).await {
        Ok(Some(s)) => s,
        Ok(None) => return Err(redirect("/auth/login?next=%2Faccount")),
        Err(e) => return Err(error_response(&e, Format::Html)),
    };
    let ok = presented.is_some_and(|t| {
        csrf::verify(
            &state.keys,
            "factors",
            &[&SecretToken::presented(&session).hash()],
            t,
        )
    });
    if !ok {
        return Err(error_response(
            &AppError::Forbidden("the form expired; reload the page".into()),
            Format::Html,
        ));
    }
    Ok((session, user))
}

/// The answer to a change refused with `e`: the confirmation page when it needs one (back to
/// the account page afterwards), the error page otherwise.
fn refused_page(e: &AppError, next: Option<&str>) -> Response {
    if e.code() == "confirmation_required" {
        let back = account_link(next);
        return redirect(&format!("/account/confirm?next={}", urlencode(&back)));
    }
    error_response(e, Format::Html)
}

fn next_of(form: &Form) -> Option<String> {
    form.get("next")
        .filter(|n| !n.is_empty())
        .map(|n| safe_next(Some(n)))
}

fn account_link(next: Option<&str>) -> String {
    match next {
        Some(n) => format!("/account?next={}", urlencode(n)),
        None => "/account".into(),
    }
}

/// The enrolment page: the QR code, the secret as text, and the confirmation form.
#[derive(Template)]
#[template(path = "account/totp_enrol.html")]
struct EnrolPage<'a> {
    error: Option<&'a str>,
    /// The QR code's SVG in base64, for a `data:` URL.
    qr: String,
    secret: &'a str,
    csrf: &'a str,
    next: Option<&'a str>,
    back: String,
}

fn enrol_page(csrf: &str, e: &Enrolment, next: Option<&str>, error: Option<&str>) -> Response {
    use base64::Engine;
    let page = EnrolPage {
        error,
        qr: base64::engine::general_purpose::STANDARD.encode(e.qr_svg.as_bytes()),
        secret: &e.secret_text,
        csrf,
        next,
        back: account_link(next),
    };
    page_as(form_status(error, StatusCode::BAD_REQUEST), Ok(page))
}

async fn totp_start(state: AppState, cookies: Option<String>, form: Form) -> Response {
    let user = match signed_in(
        &state,
        cookies.as_deref(),
        form.get("csrf_token").map(String::as_str),
    )
    .await
    {
        Ok(u) => u,
        Err(r) => return r,
    };
    let (session, user) = user;
    let next = next_of(&form);
    match account::start_totp(&state.db, &state.factors, &user, session).await {
        Ok(e) => enrol_page(
            form.get("csrf_token").map(String::as_str).unwrap_or(""),
            &e,
            next.as_deref(),
            None,
        ),
        Err(e) => refused_page(&e, next.as_deref()),
    }
}

async fn totp_confirm(state: AppState, cookies: Option<String>, form: Form) -> Response {
    let csrf = form.get("csrf_token").cloned().unwrap_or_default();
    let (_, user) = match signed_in(&state, cookies.as_deref(), Some(&csrf)).await {
        Ok(u) => u,
        Err(r) => return r,
    };
    let next = next_of(&form);
    let code = form.get("code").cloned().unwrap_or_default();
    match account::confirm_totp(&state.db, &state.factors, &user, code).await {
        Ok(Confirmation::RecoveryCodes(codes)) => recovery_codes_page(&codes, next.as_deref()),
        Ok(Confirmation::Refused {
            why,
            enrolment: Some(en),
        }) => enrol_page(&csrf, &en, next.as_deref(), Some(&why)),
        Ok(Confirmation::Refused {
            enrolment: None, ..
        }) => redirect(&account_link(next.as_deref())),
        Err(e) => error_response(&e, Format::Html),
    }
}

/// TOTP is on: the recovery codes, shown this once.
#[derive(Template)]
#[template(path = "account/recovery_codes.html")]
struct RecoveryCodesPage<'a> {
    codes: &'a [String],
    back: &'a str,
}

fn recovery_codes_page(codes: &[String], next: Option<&str>) -> Response {
    let back = next.unwrap_or("/account");
    page(Ok(RecoveryCodesPage { codes, back }))
}

async fn totp_disable(state: AppState, cookies: Option<String>, form: Form) -> Response {
    let user = match signed_in(
        &state,
        cookies.as_deref(),
        form.get("csrf_token").map(String::as_str),
    )
    .await
    {
        Ok(u) => u,
        Err(r) => return r,
    };
    let code = form.get("code").cloned().unwrap_or_default();
    match account::disable_totp(&state.db, &state.factors, user.1.id, code).await {
        Ok(()) => redirect("/account"),
        Err(e) => error_response(&e, Format::Html),
    }
}

async fn passkey_options(
    state: AppState,
    cookies: Option<String>,
    csrf: Option<String>,
) -> Response {
    let (session, user) = match signed_in_json(&state, cookies.as_deref(), csrf.as_deref()).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    match account::passkey_options(&state.db, &state.factors, user, session).await {
        Ok(options) => json_response(StatusCode::OK, &json!({"publicKey": options})),
        Err(e) => error_response(&e, Format::Json),
    }
}

/// The signed-in session and user of a JSON call whose `X-CSRF-Token` matches; otherwise the
/// 403 to answer with.
pub(super) async fn signed_in_json(
    state: &AppState,
    cookies: Option<&str>,
    csrf: Option<&str>,
) -> Result<(String, User), Response> {
    signed_in(state, cookies, csrf).await.map_err(|_| {
        let e = AppError::Forbidden("sign in again and reload the page".into());
        error_response(&e, Format::Json)
    })
}

/// `{"credential": <RegistrationResponseJSON>, "name": "Laptop"}` → `{"id": n}`.
async fn passkey_add(
    state: AppState,
    cookies: Option<String>,
    csrf: Option<String>,
    body: NewPasskeyRequest,
) -> Response {
    let (session, user) = match signed_in_json(&state, cookies.as_deref(), csrf.as_deref()).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let answer = match body.answer() {
        Ok(a) => a,
        Err(e) => return error_response(&e, Format::Json),
    };
    let new = NewPasskey {
        answer,
        name: body.name(),
    };
    match account::add_passkey(&state.db, &state.factors, user.id, session, new).await {
        Ok(id) => json_response(StatusCode::CREATED, &json!({"id": id})),
        Err(e) => error_response(&e, Format::Json),
    }
}

async fn passkey_change(
    state: AppState,
    cookies: Option<String>,
    id: i64,
    form: Form,
    rename: bool,
) -> Response {
    let user = match signed_in(
        &state,
        cookies.as_deref(),
        form.get("csrf_token").map(String::as_str),
    )
    .await
    {
        Ok(u) => u,
        Err(r) => return r,
    };
    let (session, user) = user;
    let change = if rename {
        PasskeyChange::Rename(form.get("name").cloned().unwrap_or_default())
    } else {
        PasskeyChange::Remove
    };
    match account::change_passkey(&state.db, user.id, session, id, change).await {
        Ok(()) => redirect("/account"),
        Err(e) => refused_page(&e, None),
    }
}

/// The "Sign-in security" and "Passkeys" parts of the account page
/// (`pages/account/security.html`).
pub struct Security<'a> {
    /// The token of the second-factor forms and calls (`factors_csrf`).
    pub csrf: String,
    pub totp: bool,
    pub recovery_left: i64,
    pub passkeys: Vec<PasskeyItem>,
    /// Whether passkeys can be added here (the app URL names a host).
    pub passkeys_on: bool,
    /// Where the user came from, to go back after setting up a factor.
    pub next: Option<&'a str>,
}

/// A passkey as listed.
pub struct PasskeyItem {
    pub id: i64,
    pub name: String,
    pub added: String,
    pub used: String,
}

impl<'a> Security<'a> {
    pub fn of(state: &AppState, csrf: String, overview: &Overview, next: Option<&'a str>) -> Self {
        let passkeys = overview
            .passkeys
            .iter()
            .map(|p| PasskeyItem {
                id: p.id,
                name: p.name.clone(),
                added: human(p.created_at),
                used: p.last_used_at.map(human).unwrap_or_else(|| "never".into()),
            })
            .collect();
        Security {
            csrf,
            totp: overview.enrolled.totp,
            recovery_left: overview.recovery_codes_left,
            passkeys,
            passkeys_on: state.factors.rp.is_some(),
            next,
        }
    }
}
