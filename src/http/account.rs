//! `GET /account`: who is logged in and the connected apps, each with Revoke
//! (`POST /account/apps/{id}/revoke`). What it lists and the revocation are `users::account`.

use std::collections::HashMap;

use bytes::Bytes;
use http::StatusCode;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::login::redirect;
use super::reply::{Format, error_response, html_response};
use super::session::{cookies, current};
use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::core::timefmt::human;
use crate::http::state::AppState;
use crate::identity::sessions::csrf;
use crate::oauth::account;
use crate::oauth::tokens::store::GrantView;
use crate::{core::assets::escape, core::assets::page};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || super::with_state(state.clone());
    let show = warp::path!("account")
        .and(warp::get())
        .and(s())
        .and(cookies())
        .and(warp::query::<HashMap<String, String>>())
        .then(|st, c, q: HashMap<String, String>| async move {
            let next = q.get("next").map(|n| super::session::safe_next(Some(n)));
            show(st, c, next).await
        });
    let revoke = warp::path!("account" / "apps" / i64 / "revoke")
        .and(warp::post())
        .and(s())
        .and(cookies())
        .and(super::body::capped_bytes(16 * 1024))
        .then(|id, st, c, b: Bytes| async move {
            let form: HashMap<String, String> =
                url::form_urlencoded::parse(&b).into_owned().collect();
            revoke(st, c, id, form).await
        });
    show.or(revoke).unify().boxed()
}

async fn show(state: AppState, cookies: Option<String>, next: Option<String>) -> Response {
    let (session, user) = match current(&state, cookies.as_deref()).await {
        Ok(Some(s)) => s,
        Ok(None) => return redirect("/auth/login?next=%2Faccount"),
        Err(e) => return error_response(&e, Format::Html),
    };
    let overview = match account::overview(&state.db, user.id).await {
        Ok(o) => o,
        Err(e) => return error_response(&e, Format::Html),
    };
    let factors_csrf = super::account_factors::factors_csrf(&state, &session);
    let security = super::account_factors::section(
        &state,
        &factors_csrf,
        overview.enrolled,
        overview.recovery_codes_left,
        &overview.passkeys,
        next.as_deref(),
    );
    let session_hash = SecretToken::presented(&session).hash();
    let apps = apps(&state, &session_hash, &overview.grants);
    let logout = csrf::token(&state.keys, "logout", &[&session_hash]);
    let main = format!(
        r#"<section class="stack">
  <div class="row spread"><h1>Your account</h1>
    <form method="post" action="/auth/logout"><input type="hidden" name="csrf_token" value="{logout}">
    <button class="button secondary" type="submit">Sign out</button></form></div>
  {back}
  <div class="card stack"><p><strong>{name}</strong> ({email})<br><span class="muted">Username {username}</span></p></div>
  {security}
  <h2>Connected apps</h2>
  {apps}
</section>
<script src="{webauthn}" defer></script>
<script src="{script}" defer></script>"#,
        back = back_link(next.as_deref()),
        script = crate::core::assets::url("js/account.js"),
        webauthn = crate::core::assets::url("js/webauthn.js"),
        name = escape(&user.name),
        email = escape(&user.email),
        username = escape(&user.username),
    );
    html_response(StatusCode::OK, &page("Your account", &main))
}

/// Back to where the user came from (a signing page that asked for a second factor).
fn back_link(next: Option<&str>) -> String {
    next.map(|n| {
        format!(
            r#"<div class="alert" role="status">When you are done here, <a href="{}" id="back-to-document">go back to your document</a>.</div>"#,
            escape(n)
        )
    })
    .unwrap_or_default()
}

/// The connected apps, each with its Revoke form.
fn apps(state: &AppState, session_hash: &str, grants: &[GrantView]) -> String {
    if grants.is_empty() {
        return r#"<p class="muted">No apps are connected to your account.</p>"#.to_string();
    }
    let items: String = grants
        .iter()
        .map(|g| {
            let token = csrf::token(&state.keys, "revoke", &[session_hash, &g.id.to_string()]);
            let scopes: Vec<&str> = g.scopes.iter().map(|s| s.describe()).collect();
            format!(
                r#"<li class="list-item"><div class="stack tight">
<h3 class="app-name">{name}</h3>
<p class="small">Can: {scopes}</p>
<p class="small muted">Allowed {granted} · last used {used}</p></div>
<form method="post" action="/account/apps/{id}/revoke"><input type="hidden" name="csrf_token" value="{token}">
<button class="button danger" type="submit" aria-label="Revoke {name}">Revoke</button></form></li>"#,
                name = escape(&g.client_name),
                scopes = escape(&scopes.join("; ")),
                granted = human(g.created_at),
                used = g.last_used_at.map(human).unwrap_or_else(|| "never".into()),
                id = g.id,
            )
        })
        .collect();
    format!(r#"<ul class="list" aria-label="Connected apps">{items}</ul>"#)
}

async fn revoke(
    state: AppState,
    cookies: Option<String>,
    grant: i64,
    form: HashMap<String, String>,
) -> Response {
    let (session, user) = match current(&state, cookies.as_deref()).await {
        Ok(Some(s)) => s,
        Ok(None) => return redirect("/auth/login?next=%2Faccount"),
        Err(e) => return error_response(&e, Format::Html),
    };
    let session_hash = SecretToken::presented(&session).hash();
    let ok = form.get("csrf_token").is_some_and(|t| {
        csrf::verify(
            &state.keys,
            "revoke",
            &[&session_hash, &grant.to_string()],
            t,
        )
    });
    if !ok {
        return error_response(
            &AppError::Forbidden("the form expired; reload the page".into()),
            Format::Html,
        );
    }
    match account::revoke_app(&state.db, user.id, grant).await {
        Ok(()) => redirect("/account"),
        Err(e) => error_response(&e, Format::Html),
    }
}
