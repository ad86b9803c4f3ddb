//! `GET {app_url}/sign/<token>`: the signing page, and the rendered pages of
//! the PDF it shows. The page is a shell filled by `assets/js/sign.js` from `/sign/<token>/state`.
//! Unknown links get 404, cancelled ones 410, finished ones 409, each as a page that says so.
//! A document that asks for ACCOUNT access shows only its title and sender until the recipient
//! is signed in to their account (`signing::auth`), with ways to sign in or create the account.

use http::StatusCode;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::reply::{html_response, html_result};
use super::session::urlencode;
use super::signing::{session_token, visit};
use super::with_state;
use crate::core::error::AppError;
use crate::http::state::AppState;
use crate::signing::documents::Status;
use crate::signing::documents::recipients::Role;
use crate::signing::workflow::flow::Origin;
use crate::{core::assets::escape, core::assets::page, core::assets::url};
use crate::{signing::pdf::PageWidth, signing::pdf::RETRY_AFTER_SECS, signing::pdf::RenderError};
use crate::{signing::workflow::link, signing::workflow::link::Gate};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || with_state(state.clone());
    let image = warp::path!("sign" / String / "pages" / String)
        .and(warp::get())
        .and(warp::query::<std::collections::HashMap<String, String>>())
        .and(super::session::cookies())
        .and(s())
        .then(
            |token: String, file: String, q, c: Option<String>, st| async move {
                match page_image(st, token, file, q, c).await {
                    Ok(r) => r,
                    Err(e) => super::reply::error_response(&e, super::reply::Format::Json),
                }
            },
        );
    let shown = warp::path!("sign" / String)
        .and(warp::get())
        .and(super::origin())
        .and(super::session::cookies())
        .and(s())
        .then(|token: String, origin, c: Option<String>, st| async move {
            html_result(show(st, token, origin, c).await)
        });
    let signature = warp::path!("sign" / String / "fields" / i64 / "signature.png")
        .and(warp::get())
        .and(super::session::cookies())
        .and(s())
        .then(
            |token: String, field: i64, c: Option<String>, st| async move {
                match signature(st, token, field, c).await {
                    Ok(r) => r,
                    Err(e) => super::reply::error_response(&e, super::reply::Format::Json),
                }
            },
        );
    image.or(signature).unify().or(shown).unify().boxed()
}

/// `GET /sign/<token>/pages/<n>.png?w=<800|1200|1600>`: page `n` (1-based) rendered at that
/// width (default 1200), from the page cache; a placeholder image (with `X-Docket-Page:
/// placeholder`) for a page that cannot be drawn; 503 with Retry-After when every renderer
/// stays busy.
async fn page_image(
    state: AppState,
    token: String,
    file: String,
    query: std::collections::HashMap<String, String>,
    cookies: Option<String>,
) -> Result<Response, AppError> {
    let n: usize = file
        .strip_suffix(".png")
        .and_then(|n| n.parse().ok())
        .filter(|n| *n >= 1)
        .ok_or_else(|| AppError::not_found("page"))?;
    let width = match query.get("w") {
        None => PageWidth::parse(1200),
        Some(w) => w.parse().ok().and_then(PageWidth::parse),
    }
    .ok_or_else(|| AppError::bad_request(format!("w must be one of {:?}", PageWidth::ALLOWED)))?;
    let (blob, size) = link::page_source(&state.db, visit(&state, token, cookies), n).await?;
    let path = state
        .blobs
        .local_path_async(&blob)
        .await
        .map_err(AppError::from)?;
    // A client that leaves drops this future, and with it its share of the render.
    let image = state
        .pages
        .get_or_render(&blob, &path, n - 1, width, size)
        .await
        .map_err(|e| match e {
            RenderError::Busy => AppError::Overloaded {
                message: e.to_string(),
                retry_after: RETRY_AFTER_SECS,
            },
            RenderError::NoSuchPage(_) => AppError::not_found("page"),
            RenderError::Failed(cause) => {
                AppError::internal(format!("rendering page {n} failed: {cause}"))
            }
        })?;
    let mut resp = Response::new(image.png.into());
    let h = resp.headers_mut();
    h.insert("content-type", "image/png".parse().expect("static"));
    if image.placeholder {
        // The page cannot be drawn: the image says so; this header tells programs.
        h.insert("x-docket-page", "placeholder".parse().expect("static"));
    }
    // The link is a credential: no shared caches, but the browser may keep it a while.
    h.insert(
        "cache-control",
        "private, max-age=3600".parse().expect("static"),
    );
    Ok(resp)
}

/// `GET /sign/<token>/fields/<id>/signature.png`: the signature this recipient drew into one of
/// their fields, for the page to show it in its box.
async fn signature(
    state: AppState,
    token: String,
    field: i64,
    cookies: Option<String>,
) -> Result<Response, AppError> {
    let png = link::signature(&state.db, visit(&state, token, cookies), field).await?;
    let mut resp = Response::new(png.into());
    let h = resp.headers_mut();
    h.insert("content-type", "image/png".parse().expect("static"));
    h.insert(
        "cache-control",
        "private, no-cache".parse().expect("static"),
    );
    Ok(resp)
}

/// The sender's link attachments as a list of links that open apart from the page (no
/// referrer, no opener); the URLs were checked as http(s) when the document was created.
fn attachment_list(links: &[crate::signing::documents::meta::Attachment]) -> String {
    if links.is_empty() {
        return String::new();
    }
    let items: String = links
        .iter()
        .map(|a| {
            format!(
                "    <li><a href=\"{}\" target=\"_blank\" rel=\"noopener noreferrer\">{}</a></li>\n",
                escape(&a.data),
                escape(&a.label)
            )
        })
        .collect();
    format!("  <ul class=\"attachments\" aria-label=\"Attachments\">\n{items}  </ul>\n")
}

async fn show(
    state: AppState,
    token: String,
    origin: Origin,
    cookies: Option<String>,
) -> Result<Response, AppError> {
    let opened = link::open(
        &state.db,
        visit(&state, token.clone(), cookies.clone()),
        origin,
        state.app_base(),
    )
    .await?;
    let links = attachment_list(&opened.attachments);
    let (title, status, role, gate) = (opened.title, opened.status, opened.role, opened.gate);
    match status {
        Status::Cancelled => {
            return Ok(notice(
                StatusCode::GONE,
                &title,
                "This document was cancelled by its sender. There is nothing left to do.",
            ));
        }
        Status::Completed | Status::Rejected if role != Role::Cc => {
            let what = if status == Status::Completed {
                "Everyone has finished: this document is complete. The signed copy was sent by e-mail."
            } else {
                "This document was rejected and can no longer be signed."
            };
            return Ok(notice(StatusCode::CONFLICT, &title, what));
        }
        _ => {}
    }
    if let Some(gate) = gate {
        return Ok(gate_page(&state, &token, &title, &gate, cookies.as_deref()));
    }
    let main = format!(
        r#"<section class="signing" id="signing" data-token="{token}" aria-live="polite">
  <h1>{title}</h1>
{links}  <p class="muted" id="signing-status">Loading the document…</p>
  <noscript><p class="notice">Signing needs JavaScript; please turn it on for this page.</p></noscript>
</section>
<script src="{webauthn}" defer></script>
<script src="{script}" defer></script>"#,
        webauthn = crate::core::assets::url("js/webauthn.js"),
        token = escape(&token),
        title = escape(&title),
        script = url("js/sign.js"),
    );
    Ok(html_response(StatusCode::OK, &page(&title, &main)))
}

/// The page of a document that asks for ACCOUNT access, for a visitor not signed in as its
/// recipient: the title, the sender, and the way in.
fn gate_page(
    state: &AppState,
    token: &str,
    title: &str,
    gate: &Gate,
    cookies: Option<&str>,
) -> Response {
    let here = format!("/sign/{token}");
    let mut body = format!(
        r#"<p class="muted">Sent by {name} ({sender})</p>
<p>This document asks you to sign in to your Docket account for <strong>{email}</strong> before you can see it.</p>"#,
        name = escape(&gate.sender.0),
        sender = escape(&gate.sender.1),
        email = escape(&gate.email),
    );
    match (&gate.signer, gate.code) {
        (Some(s), "wrong_account") => {
            let session = session_token(state, cookies).unwrap_or_default();
            let hash = crate::core::crypto::SecretToken::presented(&session).hash();
            let csrf = crate::identity::sessions::csrf::token(&state.keys, "logout", &[&hash]);
            body.push_str(&format!(
                r#"<div class="alert" role="alert">You are signed in as {who}. Sign out, then sign in as {email}.</div>
<form method="post" action="/auth/logout"><input type="hidden" name="csrf_token" value="{csrf}">
<input type="hidden" name="next" value="{here}">
<button class="button primary" type="submit">Sign out</button></form>"#,
                who = escape(&s.email),
                email = escape(&gate.email),
                here = escape(&here),
            ));
        }
        _ => {
            body.push_str(&format!(
                r#"<div class="row"><a class="button primary" id="sign-in" href="/auth/login?next={next}&amp;email={email}">Sign in</a></div>"#,
                next = escape(&urlencode(&here)),
                email = escape(&urlencode(&gate.email)),
            ));
            if !gate.account_exists {
                body.push_str(&format!(
                    r#"<form method="post" action="/sign/{token}/account" class="stack">
<input type="hidden" name="csrf_token" value="{csrf}">
<p>No Docket account yet? We will e-mail {email} a link to create one.</p>
<div><button class="button secondary" id="create-account" type="submit">Create an account</button></div></form>"#,
                    token = escape(token),
                    csrf = super::signup::invite_csrf(state, token),
                    email = escape(&gate.email),
                ));
            }
        }
    }
    let main = format!(
        r#"<section class="narrow"><div class="card stack" id="account-gate"><h1>{}</h1>{body}</div></section>"#,
        escape(title)
    );
    html_response(StatusCode::OK, &page(title, &main))
}

fn notice(status: StatusCode, title: &str, text: &str) -> Response {
    let main = format!(
        r#"<section class="card narrow stack"><h1>{}</h1><p>{}</p></section>"#,
        escape(title),
        escape(text)
    );
    html_response(status, &page(title, &main))
}
