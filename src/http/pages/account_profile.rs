//! The account page's profile forms: `POST /account/name`, `POST /account/password` (asks the
//! current one; the other sessions end, this one stays; when ticked, every API token, webhook
//! and connected app is revoked too) and `POST /account/email` (a confirmed
//! session mails a link to the new address), `POST /account/language` (the language of the
//! recipients of the account's new documents), `POST /account/deadline` (how long each of
//! their recipients has), and the link's page, `GET/POST
//! /account/email/{token}`, whose button makes the change and answers 303 to
//! `/account/email-changed`, which names the new address once (`shown_once`). A change goes back to the account
//! page with `?done=...`, which says what happened; a refused form shows the account page again
//! with the refusal next to the field. The use cases are `accounts::profile`.

use askama::Template;
use http::StatusCode;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::http::reply::{self, page, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{APP, SignedIn, TokenForm, cookies, form_csrf, urlencode};
use crate::http::shown_once;
use crate::identity::accounts::access::{RevokeAll, Revoked};
use crate::identity::accounts::profile;
use crate::identity::sessions::csrf;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || crate::http::with_state(state.clone())
    };
    let name = warp::path!("account" / "name")
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, "/account"))
        .then(name)
        .map(reply::answer);
    let password = warp::path!("account" / "password")
        .and(warp::post())
        .and(s())
        .and(crate::http::peer())
        .and(form_csrf(&state, APP, "/account"))
        .then(password)
        .map(reply::answer);
    let email = warp::path!("account" / "email")
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, "/account"))
        .then(email)
        .map(reply::answer);
    let link = warp::path!("account" / "email" / String)
        .and(warp::get())
        .and(s())
        .then(link_page)
        .map(reply::answer);
    let confirm = warp::path!("account" / "email" / String)
        .and(warp::post())
        .and(s())
        .and(crate::http::session::form::<TokenForm>())
        .then(confirm)
        .map(reply::answer);
    let language = warp::path!("account" / "language")
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, "/account"))
        .then(language)
        .map(reply::answer);
    let deadline = warp::path!("account" / "deadline")
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, "/account"))
        .then(deadline)
        .map(reply::answer);
    let changed = warp::path!("account" / "email-changed")
        .and(warp::get())
        .and(s())
        .and(cookies())
        .map(changed);
    name.or(password)
        .unify()
        .or(changed)
        .unify()
        .or(language)
        .unify()
        .or(deadline)
        .unify()
        .or(email)
        .unify()
        .or(link)
        .unify()
        .or(confirm)
        .unify()
        .boxed()
}

/// The account page's query: `next`, and what its forms say after a change (`done`, with
/// the sessions it `ended` and what it `revoked`) or back from confirming who one is
/// (`new_email`, as typed).
#[derive(Debug, Default, serde::Deserialize)]
pub struct AccountQuery {
    pub next: Option<String>,
    done: Option<String>,
    ended: Option<String>,
    revoked: Option<String>,
    new_email: Option<String>,
}

/// The name form.
#[derive(serde::Deserialize)]
struct NameForm {
    #[serde(default)]
    name: String,
}

/// The password form: the current password, the new one twice, and whether to revoke every
/// token, webhook and connected app too (`revoke` sent at all: ticked).
#[derive(serde::Deserialize)]
struct PasswordForm {
    #[serde(default)]
    current: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    password2: String,
    revoke: Option<String>,
}

/// The recipients' language form.
#[derive(serde::Deserialize)]
struct LanguageForm {
    #[serde(default)]
    language: String,
}

/// The default deadline form: "14 days", "1 month", or blank for none.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct DeadlineForm {
    #[serde(default)]
    expiration_period: String,
}

/// The e-mail form.
#[derive(serde::Deserialize)]
struct EmailForm {
    #[serde(default)]
    email: String,
}

/// What the account page's profile forms show: what just changed, or why a form was refused.
#[derive(Debug, Default)]
pub struct Profile {
    /// A change that went through, as a sentence.
    pub done: Option<String>,
    /// A refusal that belongs to no one field (too many tries), as a sentence.
    pub error: Option<String>,
    /// The refusal of each field, as a sentence ("" when none).
    pub name_error: String,
    pub email_error: String,
    pub current_error: String,
    pub password_error: String,
    pub password2_error: String,
    pub language_error: String,
    pub deadline_error: String,
    /// The default deadline of the account's new documents, as typed or stored ("14 days").
    pub deadline: String,
    /// The language recipients of the account's new documents read (a code), as chosen.
    pub language: String,
    /// What the person typed into the name and e-mail forms, to show again.
    pub name: Option<String>,
    pub new_email: String,
    /// The address a link was sent to and not opened yet.
    pub awaiting: Option<String>,
    /// The part `done` and `error` concern: "name", "email" or "password".
    pub at: &'static str,
    status: Option<StatusCode>,
}

impl Profile {
    /// The notice of `?done=...` after a change, and `?new_email=` (back from confirming who
    /// one is, with what was typed).
    pub fn from_query(q: &AccountQuery) -> Profile {
        let ended = q
            .ended
            .as_deref()
            .and_then(|n| n.parse::<u32>().ok())
            .unwrap_or(0);
        let revoked = q
            .revoked
            .as_deref()
            .and_then(Revoked::from_query)
            .map_or_else(String::new, |r| format!(" {}", r.sentence()));
        let (at, done) = match q.done.as_deref() {
            Some("name") => ("name", Some("Your name was changed.".to_string())),
            Some("password") => (
                "password",
                Some(match ended {
                    0 => format!("Your password was changed. You stay signed in here.{revoked}"),
                    1 => format!(
                        "Your password was changed. One other session was signed out; you stay signed in here.{revoked}"
                    ),
                    n => format!(
                        "Your password was changed. {n} other sessions were signed out; you stay signed in here.{revoked}"
                    ),
                }),
            ),
            Some("email") => (
                "email",
                Some("Link sent. Check the inbox of your new address.".to_string()),
            ),
            Some("language") => (
                "language",
                Some("Saved: your new documents and templates address their recipients in this language.".to_string()),
            ),
            Some("deadline") => (
                "deadline",
                Some("Saved: your new documents and templates give each recipient this long.".to_string()),
            ),
            _ => ("", None),
        };
        Profile {
            done,
            at,
            new_email: q.new_email.clone().unwrap_or_default(),
            ..Profile::default()
        }
    }

    /// The page's status: 200, or the refusal's.
    pub fn status(&self) -> StatusCode {
        self.status.unwrap_or(StatusCode::OK)
    }

    /// The form `form` ("name", "email" or "password") refused with `e`; `None` when `e` is not a
    /// refusal the form can show.
    fn refused(form: &'static str, e: &AppError) -> Option<Profile> {
        let mut p = Profile {
            at: form,
            ..Profile::default()
        };
        let (field, message, status) = match e {
            AppError::BadRequest { details, .. } => {
                let first = details.first();
                let field = first.map_or(form, |d| d.path.as_str()).to_string();
                let message = first.map_or_else(|| e.to_string(), |d| d.message.clone());
                (field, message, StatusCode::UNPROCESSABLE_ENTITY)
            }
            AppError::Conflict(m) => (form.to_string(), m.clone(), StatusCode::CONFLICT),
            AppError::TooManyRequests { .. } => {
                p.error = Some(
                    match form {
                        "password" => "Too many wrong passwords. Wait a while, then try again.",
                        _ => "Too many requests. Wait a while, then try again.",
                    }
                    .into(),
                );
                p.status = Some(StatusCode::TOO_MANY_REQUESTS);
                return Some(p);
            }
            AppError::Overloaded { message, .. } => {
                p.error = Some(sentence(message));
                p.status = Some(StatusCode::SERVICE_UNAVAILABLE);
                return Some(p);
            }
            _ => return None,
        };
        let slot = match (form, field.as_str()) {
            ("name", _) => &mut p.name_error,
            ("language", _) => &mut p.language_error,
            ("deadline", _) => &mut p.deadline_error,
            ("email", _) => &mut p.email_error,
            (_, "current") => &mut p.current_error,
            (_, "password2") => &mut p.password2_error,
            _ => &mut p.password_error,
        };
        *slot = sentence(&message);
        p.status = Some(status);
        Some(p)
    }
}

/// `s` as a sentence: a capital first letter and a full stop.
fn sentence(s: &str) -> String {
    let mut chars = s.trim().chars();
    let mut out: String = chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    if !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    out
}

/// The account page again, its form `which` refused with `e` (the error page when the form
/// cannot show it).
async fn refused(
    state: AppState,
    signed_in: SignedIn,
    which: &'static str,
    e: AppError,
    keep: impl FnOnce(&mut Profile),
) -> Result<Response, AppError> {
    let Some(mut p) = Profile::refused(which, &e) else {
        return Err(e);
    };
    keep(&mut p);
    crate::http::pages::account::show(state, signed_in, None, p).await
}

/// `POST /account/language`.
async fn language(
    state: AppState,
    signed_in: SignedIn,
    form: LanguageForm,
) -> Result<Response, AppError> {
    match profile::change_language(&state.ctx(), &signed_in.1, &form.language).await {
        Ok(_) => Ok(redirect("/account?done=language#recipients-language")),
        Err(e) => refused(state, signed_in, "language", e, |_| {}).await,
    }
}

/// `POST /account/deadline`.
async fn deadline(
    state: AppState,
    signed_in: SignedIn,
    form: DeadlineForm,
) -> Result<Response, AppError> {
    let who = crate::identity::principal::Principal::browser(signed_in.1.id);
    let typed = form.expiration_period;
    let set =
        crate::signing::documents::team_settings::set_account_period(&state.ctx(), &who, &typed)
            .await;
    match set {
        Ok(_) => Ok(redirect("/account?done=deadline#deadline")),
        Err(e) => refused(state, signed_in, "deadline", e, |p| p.deadline = typed).await,
    }
}

/// `POST /account/name`.
async fn name(state: AppState, signed_in: SignedIn, form: NameForm) -> Result<Response, AppError> {
    let typed = form.name;
    match profile::change_name(&state.ctx(), &signed_in.1, &typed).await {
        Ok(_) => Ok(redirect("/account?done=name#profile")),
        Err(e) => refused(state, signed_in, "name", e, |p| p.name = Some(typed)).await,
    }
}

/// `POST /account/password`.
async fn password(
    state: AppState,
    peer: Option<std::net::SocketAddr>,
    signed_in: SignedIn,
    form: PasswordForm,
) -> Result<Response, AppError> {
    let (session, user) = (signed_in.0.clone(), &signed_in.1);
    let new = (form.password.as_str(), form.password2.as_str());
    let address = peer.map(|p| p.ip());
    // Unticked by default here: the person knew the old password, so nothing says a stranger
    // did too.
    let revoke = form
        .revoke
        .is_some()
        .then_some(crate::integrations::access::revoke_all as RevokeAll);
    let changed = profile::change_password(
        &state.ctx(),
        &state.passwords,
        (session, user),
        &form.current,
        new,
        (address, revoke),
    )
    .await;
    match changed {
        Ok((ended, revoked)) => {
            let revoked =
                revoked.map_or_else(String::new, |r| format!("&revoked={}", r.to_query()));
            Ok(redirect(&format!(
                "/account?done=password&ended={ended}{revoked}#password"
            )))
        }
        Err(e) => refused(state, signed_in, "password", e, |_| {}).await,
    }
}

/// `POST /account/email`.
async fn email(
    state: AppState,
    signed_in: SignedIn,
    form: EmailForm,
) -> Result<Response, AppError> {
    let typed = form.email.trim().to_string();
    let (session, user) = (signed_in.0.clone(), &signed_in.1);
    match profile::request_email_change(&state.ctx(), session, user, &typed).await {
        Ok(_) => Ok(redirect("/account?done=email#email")),
        Err(e) if e.code() == "confirmation_required" => {
            let back = format!("/account?new_email={}#email", urlencode(&typed));
            Ok(redirect(&format!(
                "/account/confirm?next={}",
                urlencode(&back)
            )))
        }
        Err(e) => refused(state, signed_in, "email", e, |p| p.new_email = typed).await,
    }
}

/// The page of an e-mail change's link: the old and the new address, and the button that
/// makes the change (a link alone changes nothing: mail scanners open links).
#[derive(Template)]
#[template(path = "account/email_link.html")]
struct LinkPage<'a> {
    old_email: &'a str,
    new_email: &'a str,
    /// "Use NEW".
    button: String,
    token: &'a str,
    csrf: String,
}

/// The link was used, or its hour is over.
#[derive(Template)]
#[template(path = "account/email_expired.html")]
struct Expired;

/// The change is made.
#[derive(Template)]
#[template(path = "account/email_changed.html")]
struct Changed<'a> {
    email: &'a str,
}

fn link_csrf(state: &AppState, token: &str) -> String {
    let hash = SecretToken::presented(token).hash();
    csrf::token(&state.keys, "email-change", &[&hash])
}

/// `GET /account/email/{token}`.
async fn link_page(token: String, state: AppState) -> Result<Response, AppError> {
    Ok(
        match profile::pending_email(&state.ctx(), token.clone()).await? {
            Some(p) => page(Ok(LinkPage {
                old_email: &p.old,
                new_email: &p.new,
                button: format!("Use {}", p.new),
                csrf: link_csrf(&state, &token),
                token: &token,
            })),
            None => page_as(StatusCode::GONE, Ok(Expired)),
        },
    )
}

/// `POST /account/email/{token}`: the change made.
async fn confirm(token: String, state: AppState, form: TokenForm) -> Result<Response, AppError> {
    let hash = SecretToken::presented(&token).hash();
    let presented = form.csrf_token.unwrap_or_default();
    if !csrf::verify(&state.keys, "email-change", &[&hash], &presented) {
        return Err(AppError::Forbidden(
            "the form expired; reload the page".into(),
        ));
    }
    Ok(
        match profile::confirm_email_change(&state.ctx(), token).await? {
            Some(user) => shown_once::redirect(&state, "", CHANGED, &user.email),
            None => page_as(StatusCode::GONE, Ok(Expired)),
        },
    )
}

/// The page that says the address changed.
const CHANGED: &str = "/account/email-changed";

/// `GET /account/email-changed`: the new address, once (brought across from the change by the
/// sealed cookie of `shown_once`; it is no secret, so it binds no session, as the change may be
/// made signed out); afterwards, the account page, which shows it.
fn changed(state: AppState, cookie_header: Option<String>) -> Response {
    let taken = shown_once::take(&state, cookie_header.as_deref(), "", CHANGED);
    taken.finish(match taken.secret.as_deref() {
        Some(email) => page(Ok(Changed { email })),
        None => redirect("/account"),
    })
}
