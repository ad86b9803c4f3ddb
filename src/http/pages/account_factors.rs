//! The account page's second factors (`factors`): TOTP enrolment with a QR code drawn here and
//! recovery codes (post, redirect, get: the enrolment's own page, the codes shown once through
//! `shown_once`), turning TOTP off, and passkeys (add, rename, remove). Forms carry CSRF tokens
//! bound to the session; the passkey calls are JSON with the token in `X-CSRF-Token`. The use
//! cases are `factors::account`.

use askama::Template;
use http::StatusCode;
use serde_json::json;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use serde::de::IgnoredAny;

use crate::http::body::{json, optional_json};
use crate::http::reply::{self, Format, form_status, json_response, page, page_as, redirect};
use crate::http::session::{FACTORS, NextQuery, SignedIn, call_csrf, form_csrf};
use crate::http::session::{cookies, csrf_token, safe_next, signed_in, urlencode};
use crate::http::shown_once;

use crate::core::error::AppError;
use crate::core::lenient::OrDefault;
use crate::http::api::wire::passkeys::{ChallengeRequest, NewPasskeyRequest};
use crate::http::pages::app::timeline::Stamp;
use crate::http::server::state::AppState;
use crate::identity::accounts::factors as account;
use crate::identity::factors::Enrolment;
use crate::oauth::account::Overview;
use crate::{
    identity::accounts::factors::Confirmation, identity::accounts::factors::NewPasskey,
    identity::accounts::factors::PasskeyChange,
};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    totp(state.clone()).or(passkeys(state)).unify().boxed()
}

/// The TOTP forms (start, confirm, turn off), each answered by a redirect to a page: the
/// enrolment under way, and the recovery codes, which cross the redirect once (`shown_once`).
fn totp(state: AppState) -> BoxedFilter<(Response,)> {
    let s = || crate::http::with_state(state.clone());
    let form = || form_csrf::<TotpForm>(&state, FACTORS, "/account");
    let enrolment = warp::path!("account" / "totp")
        .and(warp::get())
        .and(s())
        .and(signed_in(&state, "/account"))
        .and(crate::http::body::query::<NextQuery>())
        .then(totp_page)
        .map(reply::answer);
    let codes = warp::path!("account" / "totp" / "recovery-codes")
        .and(warp::get())
        .and(s())
        .and(signed_in(&state, "/account"))
        .and(crate::http::body::query::<NextQuery>())
        .and(cookies())
        .then(recovery_codes)
        .map(reply::answer);
    let start = warp::path!("account" / "totp" / "start")
        .and(warp::post())
        .and(s())
        .and(form())
        .then(totp_start)
        .map(reply::answer);
    let confirm = warp::path!("account" / "totp" / "confirm")
        .and(warp::post())
        .and(s())
        .and(form())
        .then(totp_confirm)
        .map(reply::answer);
    let disable = warp::path!("account" / "totp" / "disable")
        .and(warp::post())
        .and(s())
        .and(form())
        .then(totp_disable)
        .map(reply::answer);
    enrolment
        .or(codes)
        .unify()
        .or(start)
        .unify()
        .or(confirm)
        .unify()
        .or(disable)
        .unify()
        .boxed()
}

/// The passkeys: the JSON calls that add one, and the forms that rename or remove one.
fn passkeys(state: AppState) -> BoxedFilter<(Response,)> {
    let s = || crate::http::with_state(state.clone());
    let options = warp::path!("account" / "passkeys" / "options")
        .and(warp::post())
        .and(s())
        .and(call_csrf(
            &state,
            FACTORS,
            optional_json::<OrDefault<ChallengeRequest>>(),
        ))
        .then(passkey_options)
        .map(reply::answer_as(Format::Json));
    let add = warp::path!("account" / "passkeys")
        .and(warp::post())
        .and(s())
        .and(call_csrf(
            &state,
            FACTORS,
            json::<OrDefault<NewPasskeyRequest>>(),
        ))
        .then(passkey_add)
        .map(reply::answer_as(Format::Json));
    let rename = warp::path!("account" / "passkeys" / i64 / "rename")
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, FACTORS, "/account"))
        .then(passkey_rename)
        .map(reply::answer);
    let remove = warp::path!("account" / "passkeys" / i64 / "delete")
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, FACTORS, "/account"))
        .then(passkey_remove)
        .map(reply::answer);
    options
        .or(add)
        .unify()
        .or(rename)
        .unify()
        .or(remove)
        .unify()
        .boxed()
}

/// The TOTP forms: the code (to confirm or to turn it off), the form's token (the enrolment
/// page's own form carries it on) and where to go after setting up.
#[derive(serde::Deserialize)]
struct TotpForm {
    #[serde(default)]
    csrf_token: String,
    next: Option<String>,
    #[serde(default)]
    code: String,
}

/// A passkey's new name.
#[derive(serde::Deserialize)]
struct NameForm {
    #[serde(default)]
    name: String,
}

/// The answer to a change refused with `e`: the confirmation page when it needs one (back to
/// the account page afterwards), the error page otherwise.
fn refused_page(e: AppError, next: Option<&str>) -> Result<Response, AppError> {
    if e.code() == "confirmation_required" {
        let back = account_link(next);
        return Ok(redirect(&format!(
            "/account/confirm?next={}",
            urlencode(&back)
        )));
    }
    Err(e)
}

fn next_of(form: &TotpForm) -> Option<String> {
    checked_next(form.next.as_deref())
}

/// A given, non-empty `next`, made safe (`session::safe_next`).
fn checked_next(next: Option<&str>) -> Option<String> {
    next.filter(|n| !n.is_empty()).map(|n| safe_next(Some(n)))
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

/// `page` (`/account/totp` or its recovery codes) with the `next` it was given.
fn with_next(page: &str, next: Option<&str>) -> String {
    match next {
        Some(n) => format!("{page}?next={}", urlencode(n)),
        None => page.into(),
    }
}

/// `POST /account/totp/start`: an enrolment begins; 303 to its page.
async fn totp_start(
    state: AppState,
    (session, user): SignedIn,
    form: TotpForm,
) -> Result<Response, AppError> {
    let next = next_of(&form);
    match account::start_totp(&state.ctx(), &state.factors, &user, session).await {
        Ok(_) => Ok(redirect(&with_next("/account/totp", next.as_deref()))),
        Err(e) => refused_page(e, next.as_deref()),
    }
}

/// `GET /account/totp`: the enrolment under way (a reload shows the same key), or the account
/// page when none is.
async fn totp_page(
    state: AppState,
    (session, user): SignedIn,
    q: NextQuery,
) -> Result<Response, AppError> {
    let next = checked_next(q.next.as_deref());
    let Some(e) = account::pending_totp(&state.ctx(), &state.factors, &user).await? else {
        return Ok(redirect(&account_link(next.as_deref())));
    };
    let csrf = csrf_token(&state, FACTORS, &session);
    Ok(enrol_page(&csrf, &e, next.as_deref(), None))
}

/// `POST /account/totp/confirm`: TOTP on, 303 to the recovery codes, which cross the redirect
/// sealed for this session and page (`shown_once`); a refused code, the enrolment page again
/// with why.
async fn totp_confirm(
    state: AppState,
    (session, user): SignedIn,
    form: TotpForm,
) -> Result<Response, AppError> {
    let next = next_of(&form);
    let (csrf, code) = (form.csrf_token, form.code);
    Ok(
        match account::confirm_totp(&state.ctx(), &state.factors, &user, code).await? {
            Confirmation::RecoveryCodes(codes) => shown_once::redirect(
                &state,
                &session,
                &with_next(CODES, next.as_deref()),
                &codes.join("\n"),
            ),
            Confirmation::Refused {
                why,
                enrolment: Some(en),
            } => enrol_page(&csrf, &en, next.as_deref(), Some(&why)),
            Confirmation::Refused {
                enrolment: None, ..
            } => redirect(&account_link(next.as_deref())),
        },
    )
}

/// The recovery codes' page.
const CODES: &str = "/account/totp/recovery-codes";

/// `GET /account/totp/recovery-codes`: the codes just made, once; afterwards (a reload, another
/// tab) the account page, which counts the codes left.
async fn recovery_codes(
    state: AppState,
    (session, _): SignedIn,
    q: NextQuery,
    cookies: Option<String>,
) -> Result<Response, AppError> {
    let next = checked_next(q.next.as_deref());
    let taken = shown_once::take(&state, cookies.as_deref(), &session, CODES);
    let page = match taken.secret.as_deref() {
        Some(codes) => {
            let codes: Vec<String> = codes.lines().map(str::to_string).collect();
            recovery_codes_page(&codes, next.as_deref())
        }
        None => redirect(&account_link(next.as_deref())),
    };
    Ok(taken.finish(page))
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

/// `POST /account/totp/disable`.
async fn totp_disable(
    state: AppState,
    (_, user): SignedIn,
    form: TotpForm,
) -> Result<Response, AppError> {
    account::disable_totp(&state.ctx(), &state.factors, user.id, form.code).await?;
    Ok(redirect("/account"))
}

/// `POST /account/passkeys/options`: the challenge.
async fn passkey_options(
    state: AppState,
    (session, user): SignedIn,
    _asked: OrDefault<ChallengeRequest>,
) -> Result<Response, AppError> {
    let options = account::passkey_options(&state.ctx(), &state.factors, user, session).await?;
    Ok(json_response(
        StatusCode::OK,
        &json!({"publicKey": options}),
    ))
}

/// `{"credential": <RegistrationResponseJSON>, "name": "Laptop"}` → `{"id": n}`.
async fn passkey_add(
    state: AppState,
    (session, user): SignedIn,
    body: OrDefault<NewPasskeyRequest>,
) -> Result<Response, AppError> {
    let body = body.0;
    let new = NewPasskey {
        answer: body.answer()?,
        name: body.name(),
    };
    let id = account::add_passkey(&state.ctx(), &state.factors, user.id, session, new).await?;
    Ok(json_response(StatusCode::CREATED, &json!({"id": id})))
}

/// `POST /account/passkeys/{id}/rename`.
async fn passkey_rename(
    id: i64,
    state: AppState,
    who: SignedIn,
    form: NameForm,
) -> Result<Response, AppError> {
    passkey_change(state, who, id, PasskeyChange::Rename(form.name)).await
}

/// `POST /account/passkeys/{id}/delete`.
async fn passkey_remove(
    id: i64,
    state: AppState,
    who: SignedIn,
    _form: IgnoredAny,
) -> Result<Response, AppError> {
    passkey_change(state, who, id, PasskeyChange::Remove).await
}

async fn passkey_change(
    state: AppState,
    (session, user): SignedIn,
    id: i64,
    change: PasskeyChange,
) -> Result<Response, AppError> {
    match account::change_passkey(&state.ctx(), user.id, session, id, change).await {
        Ok(()) => Ok(redirect("/account")),
        Err(e) => refused_page(e, None),
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
