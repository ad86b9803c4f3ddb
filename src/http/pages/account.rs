//! `GET /account`: who is logged in, their name, e-mail and password (`account_profile`), sign-in
//! security, and the connected apps, each with Revoke (`POST /account/apps/{id}/revoke`). What
//! it lists and the revocation are `users::account`.

use crate::core::ids::GrantId;

use askama::Template;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::http::pages::account_factors::Security;
use crate::http::pages::account_profile::{AccountQuery, Profile};
use crate::http::pages::app::nav::{Nav, Section};
use crate::http::pages::app::timeline::Stamp;
use crate::http::reply::{self, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{SignedIn, TokenForm, safe_next, signed_in};
use crate::identity::accounts::profile::awaiting_confirmation;
use crate::identity::sessions::csrf;
use crate::oauth::tokens::store::GrantView;
use crate::{identity::users::User, oauth::account};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || crate::http::with_state(state.clone())
    };
    let show = warp::path!("account")
        .and(warp::get())
        .and(s())
        .and(signed_in(&state, "/account"))
        .and(crate::http::body::query::<AccountQuery>())
        .then(shown)
        .map(reply::answer);
    // The form is read before the session is checked; its token is bound to the app too.
    let revoke = warp::path!("account" / "apps" / GrantId / "revoke")
        .and(warp::post())
        .and(s())
        .and(crate::http::session::form::<TokenForm>())
        .and(signed_in(&state, "/account"))
        .then(revoke)
        .map(reply::answer);
    show.or(revoke).unify().boxed()
}

/// `GET /account`: `next` (where a factor set up here leads back to) and what the profile
/// forms say.
async fn shown(
    state: AppState,
    signed_in: SignedIn,
    q: AccountQuery,
) -> Result<Response, AppError> {
    let next = q.next.as_deref().map(|n| safe_next(Some(n)));
    let profile = Profile::from_query(&q);
    show(state, signed_in, next, profile).await
}

/// The account page, its profile forms as `profile` says (after a change, or a refused one).
pub async fn show(
    state: AppState,
    (session, user): SignedIn,
    next: Option<String>,
    mut profile: Profile,
) -> Result<Response, AppError> {
    let overview = account::overview(&state.ctx(), user.id).await?;
    profile.awaiting = awaiting_confirmation(&state.ctx(), user.id).await?;
    profile.language = crate::identity::accounts::profile::language(&state.ctx(), user.id)
        .await?
        .as_str()
        .to_string();
    if profile.deadline.is_empty() && profile.deadline_error.is_empty() {
        let who = crate::identity::principal::Principal::browser(user.id);
        profile.deadline =
            crate::signing::documents::team_settings::read_account_period(&state.ctx(), &who)
                .await?
                .map(|p| p.describe())
                .unwrap_or_default();
    }
    let factors_csrf =
        crate::http::session::csrf_token(&state, crate::http::session::FACTORS, &session);
    let security = crate::http::pages::account_factors::Security::of(
        &state,
        factors_csrf,
        &overview,
        next.as_deref(),
    );
    let session_hash = SecretToken::presented(&session).hash();
    let status = profile.status();
    let place = crate::http::pages::app::workspace::Place::Personal;
    let nav = Nav::of(&state, &session, &user, Section::Account, &place).await?;
    Ok(page_as(
        status,
        Ok(AccountPage {
            nav,
            user: &user,
            languages: crate::http::pages::app::editor_form::languages(&profile.language, None),
            profile,
            security,
            apps: apps(&state, &session_hash, &overview.grants),
        }),
    ))
}

/// The account page: who is signed in, sign-in security, the connected apps.
#[derive(Template)]
#[template(path = "account/overview.html")]
struct AccountPage<'a> {
    nav: Nav,
    user: &'a User,
    profile: Profile,
    languages: Vec<crate::http::pages::app::editor_form::Choice>,
    security: Security<'a>,
    apps: Vec<AppItem>,
}

/// A connected app as listed, with its Revoke form's token.
struct AppItem {
    id: GrantId,
    name: String,
    scopes: String,
    granted: Stamp,
    /// `None`: never.
    used: Option<Stamp>,
    csrf: String,
}

/// The connected apps, each with its Revoke form's token.
fn apps(state: &AppState, session_hash: &str, grants: &[GrantView]) -> Vec<AppItem> {
    grants
        .iter()
        .map(|g| {
            let scopes: Vec<&str> = g.scopes.iter().map(|s| s.describe()).collect();
            AppItem {
                id: g.id,
                name: g.client_name.clone(),
                scopes: scopes.join("; "),
                granted: Stamp::at(g.created_at),
                used: g.last_used_at.map(Stamp::at),
                csrf: csrf::token(&state.keys, "revoke", &[session_hash, &g.id.to_string()]),
            }
        })
        .collect()
}

/// `POST /account/apps/{id}/revoke`.
async fn revoke(
    grant: GrantId,
    state: AppState,
    form: TokenForm,
    (session, user): SignedIn,
) -> Result<Response, AppError> {
    let session_hash = SecretToken::presented(&session).hash();
    let ok = form.csrf_token.is_some_and(|t| {
        csrf::verify(
            &state.keys,
            "revoke",
            &[&session_hash, &grant.to_string()],
            &t,
        )
    });
    if !ok {
        return Err(AppError::Forbidden(
            "the form expired; reload the page".into(),
        ));
    }
    account::revoke_app(&state.ctx(), user.id, grant).await?;
    Ok(redirect("/account"))
}
