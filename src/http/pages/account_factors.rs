//! The account page's second factors (`factors`): TOTP enrolment with a QR code drawn here and
//! recovery codes, turning TOTP off, and passkeys (add, rename, remove). Forms carry CSRF tokens
//! bound to the session; the passkey calls are JSON with the token in `X-CSRF-Token`. The use
//! cases are `factors::account`.

use askama::Template;
use http::StatusCode;
use serde_json::json;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::http::reply::redirect;
use crate::http::reply::{Format, error_response, form_status, json_response, page, page_as};
use crate::http::session::{FACTORS, Form, SignedIn, call_csrf, form_csrf};
use crate::http::session::{safe_next, urlencode};

use crate::core::error::AppError;
use crate::core::lenient::OrDefault;
use crate::http::pages::app::timeline::Stamp;
use crate::http::server::state::AppState;
use crate::identity::accounts::factors as account;
use crate::identity::factors::Enrolment;
use crate::identity::factors::request::{ChallengeRequest, NewPasskeyRequest};
use crate::oauth::account::Overview;
use crate::{
    identity::accounts::factors::Confirmation, identity::accounts::factors::NewPasskey,
    identity::accounts::factors::PasskeyChange,
};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || crate::http::with_state(state.clone())
    };
    let signed_form = || form_csrf(&state, FACTORS, "/account");
    let post_form = |tail: &'static str| {
        warp::path("account")
            .and(warp::path("totp"))
            .and(warp::path(tail))
            .and(warp::path::end())
            .and(warp::post())
    };
    let start = post_form("start")
        .and(s())
        .and(signed_form())
        .then(|st, u, f| async move { totp_start(st, u, f).await });
    let confirm = post_form("confirm")
        .and(s())
        .and(signed_form())
        .then(|st, u, f| async move { totp_confirm(st, u, f).await });
    let disable = post_form("disable")
        .and(s())
        .and(signed_form())
        .then(|st, u, f| async move { totp_disable(st, u, f).await });
    let options = warp::path!("account" / "passkeys" / "options")
        .and(warp::post())
        .and(s())
        .and(call_csrf(
            &state,
            FACTORS,
            crate::http::body::optional_json::<OrDefault<ChallengeRequest>>(),
        ))
        .then(|st, u, _b: OrDefault<ChallengeRequest>| async move { passkey_options(st, u).await });
    let add = warp::path!("account" / "passkeys")
        .and(warp::post())
        .and(s())
        .and(call_csrf(
            &state,
            FACTORS,
            crate::http::body::json::<OrDefault<NewPasskeyRequest>>(),
        ))
        .then(
            |st, u, b: OrDefault<NewPasskeyRequest>| async move { passkey_add(st, u, b.0).await },
        );
    let rename = warp::path!("account" / "passkeys" / i64 / "rename")
        .and(warp::post())
        .and(s())
        .and(signed_form())
        .then(|id, st, u, f| async move { passkey_change(st, u, id, f, true).await });
    let remove = warp::path!("account" / "passkeys" / i64 / "delete")
        .and(warp::post())
        .and(s())
        .and(signed_form())
        .then(|id, st, u, f| async move { passkey_change(st, u, id, f, false).await });
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

async fn totp_start(state: AppState, (session, user): SignedIn, form: Form) -> Response {
    let next = next_of(&form);
    match account::start_totp(&state.ctx(), &state.factors, &user, session).await {
        Ok(e) => enrol_page(
            form.get("csrf_token").map(String::as_str).unwrap_or(""),
            &e,
            next.as_deref(),
            None,
        ),
        Err(e) => refused_page(&e, next.as_deref()),
    }
}

async fn totp_confirm(state: AppState, (_, user): SignedIn, form: Form) -> Response {
    let csrf = form.get("csrf_token").cloned().unwrap_or_default();
    let next = next_of(&form);
    let code = form.get("code").cloned().unwrap_or_default();
    match account::confirm_totp(&state.ctx(), &state.factors, &user, code).await {
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
    /// Whether `back` is the signing page that sent the user to set up the app.
    to_document: bool,
}

fn recovery_codes_page(codes: &[String], next: Option<&str>) -> Response {
    let back = next.unwrap_or("/account");
    let to_document = back.starts_with("/sign/");
    page(Ok(RecoveryCodesPage {
        codes,
        back,
        to_document,
    }))
}

async fn totp_disable(state: AppState, (_, user): SignedIn, form: Form) -> Response {
    let code = form.get("code").cloned().unwrap_or_default();
    match account::disable_totp(&state.ctx(), &state.factors, user.id, code).await {
        Ok(()) => redirect("/account"),
        Err(e) => error_response(&e, Format::Html),
    }
}

async fn passkey_options(state: AppState, (session, user): SignedIn) -> Response {
    match account::passkey_options(&state.ctx(), &state.factors, user, session).await {
        Ok(options) => json_response(StatusCode::OK, &json!({"publicKey": options})),
        Err(e) => error_response(&e, Format::Json),
    }
}

/// `{"credential": <RegistrationResponseJSON>, "name": "Laptop"}` → `{"id": n}`.
async fn passkey_add(
    state: AppState,
    (session, user): SignedIn,
    body: NewPasskeyRequest,
) -> Response {
    let answer = match body.answer() {
        Ok(a) => a,
        Err(e) => return error_response(&e, Format::Json),
    };
    let new = NewPasskey {
        answer,
        name: body.name(),
    };
    match account::add_passkey(&state.ctx(), &state.factors, user.id, session, new).await {
        Ok(id) => json_response(StatusCode::CREATED, &json!({"id": id})),
        Err(e) => error_response(&e, Format::Json),
    }
}

async fn passkey_change(
    state: AppState,
    (session, user): SignedIn,
    id: i64,
    form: Form,
    rename: bool,
) -> Response {
    let change = if rename {
        PasskeyChange::Rename(form.get("name").cloned().unwrap_or_default())
    } else {
        PasskeyChange::Remove
    };
    match account::change_passkey(&state.ctx(), user.id, session, id, change).await {
        Ok(()) => redirect("/account"),
        Err(e) => refused_page(&e, None),
    }
}

/// The "Sign-in security" and "Passkeys" parts of the account page
/// (`pages/account/security.html`).
pub struct Security<'a> {
    /// The token of the second-factor forms and calls (`session::FACTORS`).
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
    pub added: Stamp,
    /// `None`: never.
    pub used: Option<Stamp>,
}

impl<'a> Security<'a> {
    pub fn of(state: &AppState, csrf: String, overview: &Overview, next: Option<&'a str>) -> Self {
        let passkeys = overview
            .passkeys
            .iter()
            .map(|p| PasskeyItem {
                id: p.id,
                name: p.name.clone(),
                added: Stamp::at(p.created_at),
                used: p.last_used_at.map(Stamp::at),
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
