//! An invitation to join a team: `GET /invitations/{token}` shows the team, who invited and
//! the role, with the one way in that fits the visitor: a "Join" button for the invited
//! account, a refusal naming the invited address (and a sign-out) for another account, a
//! sign-in link for an address that has an account, or a form that creates the account on the
//! way (by the sign-up form's rules; the invitation proves the address, so this does not wait
//! for open sign-up). `POST /invitations/{token}` joins, or creates the account and joins,
//! then goes to the team (`/t/{slug}`). The use cases are `teams::invitations`.

use askama::Template;
use http::{HeaderValue, StatusCode, header};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::http::reply::{self, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{SignedIn, cookies, current, with_query};
use crate::identity::principal::Principal;
use crate::identity::sessions::csrf;
use crate::identity::users::password;
use crate::signing::workflow::invites::Signup;
use crate::teams::invitations::{self, Offer};

/// The CSRF purpose of the "Join" form, bound to the session and the invitation.
const JOIN: &str = "team-invitation";
/// The CSRF purpose of the form that creates the account, bound to the invitation (it is shown
/// before any session).
const CREATE: &str = "team-invitation-account";

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || crate::http::with_state(state.clone());
    let show = warp::path!("invitations" / String)
        .and(warp::get())
        .and(s())
        .and(cookies())
        .then(show)
        .map(reply::answer);
    let submit = warp::path!("invitations" / String)
        .and(warp::post())
        .and(s())
        .and(cookies())
        .and(crate::http::session::form::<Posted>())
        .then(submit)
        .map(reply::answer);
    show.or(submit).unify().boxed()
}

/// The page's forms as posted: the token, and the new account's fields when it makes one.
#[derive(serde::Deserialize)]
struct Posted {
    #[serde(default)]
    csrf_token: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    password2: String,
}

#[derive(Template)]
#[template(path = "invitation/page.html")]
struct InvitationPage<'a> {
    team: &'a str,
    inviter: &'a str,
    email: &'a str,
    role: &'static str,
    expires: String,
    here: String,
    error: Option<&'a str>,
    join_label: String,
    /// The invited account is signed in: the "Join" form's token.
    join: Option<String>,
    /// Another account is signed in: its address and the sign-out form's token.
    other: Option<(&'a str, String)>,
    /// Nobody is signed in and the address has an account: the sign-in link.
    sign_in: Option<String>,
    /// Nobody is signed in and the address has no account: the new account form's token.
    create: Option<String>,
    min_len: usize,
    password_hint: String,
}

/// The invitation was used, revoked, replaced, or has expired, or never existed.
#[derive(Template)]
#[template(path = "invitation/gone.html")]
struct Gone;

fn gone() -> Response {
    page_as(StatusCode::GONE, Ok(Gone))
}

fn hash_of(token: &str) -> String {
    SecretToken::presented(token).hash()
}

fn session_hash(session: &str) -> String {
    SecretToken::presented(session).hash()
}

/// The page of `offer` for the visitor `signed_in`, with `error` above its form.
fn render(
    state: &AppState,
    token: &str,
    offer: &Offer,
    signed_in: Option<&SignedIn>,
    error: Option<&str>,
    status: StatusCode,
) -> Response {
    let here = invitations::path(token);
    let invitation = hash_of(token);
    let mine = |(_, u): &&SignedIn| u.email.eq_ignore_ascii_case(&offer.email);
    let join = signed_in
        .filter(mine)
        .map(|(s, _)| csrf::token(&state.keys, JOIN, &[&session_hash(s), &invitation]));
    let other = signed_in.filter(|s| !mine(s)).map(|(s, u)| {
        let logout = csrf::token(&state.keys, "logout", &[&session_hash(s)]);
        (u.email.as_str(), logout)
    });
    let anonymous = signed_in.is_none();
    let sign_in = (anonymous && offer.account_exists).then(|| {
        with_query(
            "/auth/login",
            &[("next", Some(&here)), ("email", Some(&offer.email))],
        )
    });
    let create = (anonymous && !offer.account_exists)
        .then(|| csrf::token(&state.keys, CREATE, &[&invitation]));
    let shown = InvitationPage {
        team: &offer.team.name,
        inviter: offer
            .inviter
            .as_deref()
            .unwrap_or(crate::teams::notices::AN_ADMINISTRATOR),
        email: &offer.email,
        role: crate::teams::notices::role_words(offer.role),
        expires: crate::core::timefmt::human(offer.expires_at),
        here,
        error,
        join_label: format!("Join {}", offer.team.name),
        join,
        other,
        sign_in,
        create,
        min_len: password::MIN_LEN,
        password_hint: format!("At least {} characters.", password::MIN_LEN),
    };
    page_as(status, Ok(shown))
}

/// `GET /invitations/{token}`.
async fn show(
    token: String,
    state: AppState,
    cookie_header: Option<String>,
) -> Result<Response, AppError> {
    let Some(offer) = invitations::offer(&state.ctx(), token.clone()).await? else {
        return Ok(gone());
    };
    let signed_in = current(&state, cookie_header.as_deref()).await?;
    Ok(render(
        &state,
        &token,
        &offer,
        signed_in.as_ref(),
        None,
        StatusCode::OK,
    ))
}

fn expired_form() -> AppError {
    AppError::Forbidden("the form expired; reload the page".into())
}

/// `POST /invitations/{token}`: joined (or the account made and joined), on to the team.
async fn submit(
    token: String,
    state: AppState,
    cookie_header: Option<String>,
    form: Posted,
) -> Result<Response, AppError> {
    let ctx = state.ctx();
    let Some(offer) = invitations::offer(&ctx, token.clone()).await? else {
        return Ok(gone());
    };
    let invitation = hash_of(&token);
    let signed_in = current(&state, cookie_header.as_deref()).await?;
    let Some((session, user)) = &signed_in else {
        return create_and_join(&state, token, &offer, form).await;
    };
    let parts = [session_hash(session), invitation];
    let parts = [parts[0].as_str(), parts[1].as_str()];
    if !csrf::verify(&state.keys, JOIN, &parts, &form.csrf_token) {
        return Err(expired_form());
    }
    let who = Principal::browser_session(user.id, session);
    match invitations::accept(&ctx, &who, token.clone()).await {
        Ok(joined) => Ok(redirect(&format!("/t/{}", joined.team.slug))),
        Err(AppError::Gone(_)) => Ok(gone()),
        // Signed in as another account (the page showed the refusal; a stale tab did not).
        Err(AppError::Forbidden(why)) => Ok(render(
            &state,
            &token,
            &offer,
            signed_in.as_ref(),
            Some(&why),
            StatusCode::FORBIDDEN,
        )),
        Err(e) => Err(e),
    }
}

/// The new account's form, posted without a session: the account made, signed in and joined.
async fn create_and_join(
    state: &AppState,
    token: String,
    offer: &Offer,
    form: Posted,
) -> Result<Response, AppError> {
    if !csrf::verify(&state.keys, CREATE, &[&hash_of(&token)], &form.csrf_token) {
        return Err(expired_form());
    }
    let again = |why: &str, status| render(state, &token, offer, None, Some(why), status);
    if offer.account_exists {
        let why = "This address has a Docket account already: sign in to join.";
        return Ok(again(why, StatusCode::CONFLICT));
    }
    let (name, password) = match Signup::check(&form.name, &form.password, &form.password2) {
        Ok(checked) => checked.into_parts(),
        Err(why) => return Ok(again(&why, StatusCode::BAD_REQUEST)),
    };
    let ctx = state.ctx();
    let joined = match invitations::accept_new_account(
        &ctx,
        &state.passwords,
        token.clone(),
        name,
        password,
    )
    .await
    {
        Ok(joined) => joined,
        Err(AppError::Gone(_)) => return Ok(gone()),
        // Made meanwhile, in another tab or by an administrator: signing in is the way now.
        Err(AppError::Conflict(_)) => {
            let Some(now) = invitations::offer(&ctx, token.clone()).await? else {
                return Ok(gone());
            };
            let why = "This address has a Docket account already: sign in to join.";
            return Ok(render(
                state,
                &token,
                &now,
                None,
                Some(why),
                StatusCode::CONFLICT,
            ));
        }
        Err(e) => return Err(e),
    };
    let mut resp = redirect(&format!("/t/{}", joined.membership.team.slug));
    let cookie = crate::identity::sessions::set_cookie(&joined.session, state.tls());
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        resp.headers_mut().append(header::SET_COOKIE, v);
    }
    Ok(resp)
}
