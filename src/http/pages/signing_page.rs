//! `GET {app_url}/sign/<token>`: the signing page, and the rendered pages of
//! the PDF it shows. The page is a shell filled by `assets/js/sign.js` from `/sign/<token>/state`.
//! Unknown links get 404, cancelled ones 410, finished ones 409, each as a page that says so
//! (a completed one with its signed copy, `/sign/<token>/download`). Every page is in the
//! document's language (`meta.language`).
//! A document that asks for ACCOUNT access shows only its title and sender until the recipient
//! is signed in to their account (`signing::auth`), with ways to sign in or create the account.

use crate::core::ids::FieldId;
use askama::Template;
use http::StatusCode;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::core::i18n::Tr;
use crate::http::auth::{link_session, visit};
use crate::http::pages::page_image::WidthQuery;
use crate::http::reply::{self, page, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::urlencode;
use crate::http::with_state;
use crate::signing::documents::Status;
use crate::signing::documents::meta::Attachment;
use crate::signing::documents::recipients::Role;
use crate::signing::workflow::auth::ActionAuth;
use crate::signing::workflow::flow::Origin;
use crate::signing::workflow::signed_copy;
use crate::{signing::workflow::link, signing::workflow::link::Gate};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || with_state(state.clone())
    };
    let session = || link_session(&state);
    let image = warp::path!("sign" / String / "pages" / String)
        .and(warp::get())
        .and(crate::http::body::query::<WidthQuery>())
        .and(session())
        .and(s())
        .then(page_image)
        .map(reply::answer);
    let shown = warp::path!("sign" / String)
        .and(warp::get())
        .and(crate::http::origin())
        .and(session())
        .and(s())
        .then(show)
        .map(reply::answer);
    let download = warp::path!("sign" / String / "download")
        .and(warp::get())
        .and(crate::http::origin())
        .and(session())
        .and(s())
        .then(download)
        .map(reply::answer);
    let signature = warp::path!("sign" / String / "fields" / FieldId / "signature.png")
        .and(warp::get())
        .and(session())
        .and(s())
        .then(signature)
        .map(reply::answer);
    image
        .or(signature)
        .unify()
        .or(download)
        .unify()
        .or(shown)
        .unify()
        .boxed()
}

/// `GET /sign/<token>/pages/<n>.png?w=<800|1200|1600>`: page `n` of the link's document
/// (`page_image::reply`). The link is a credential: no shared caches, but the browser may keep
/// the image a while.
async fn page_image(
    token: String,
    file: String,
    query: WidthQuery,
    session: Option<String>,
    state: AppState,
) -> Result<Response, AppError> {
    let visit = visit(token, session);
    let (n, width) = crate::http::pages::page_image::parse(&file, &query)?;
    let page = link::page_source(&state.ctx(), visit, n).await?;
    crate::http::pages::page_image::reply(&state, &page, n, width, "private, max-age=3600").await
}

/// `GET /sign/<token>/fields/<id>/signature.png`: the signature this recipient drew into one of
/// their fields, for the page to show it in its box.
async fn signature(
    token: String,
    field: FieldId,
    session: Option<String>,
    state: AppState,
) -> Result<Response, AppError> {
    let visit = visit(token, session);
    let png = link::signature(&state.ctx(), visit, field).await?;
    let mut resp = Response::new(png.into());
    let h = resp.headers_mut();
    h.insert("content-type", "image/png".parse().expect("static"));
    h.insert(
        "cache-control",
        "private, no-cache".parse().expect("static"),
    );
    Ok(resp)
}

/// `GET /sign/<token>/download`: the sealed PDF once everyone has signed, through a signed,
/// expiring download address (as the API hands one out); the download is audited.
async fn download(
    token: String,
    origin: Origin,
    session: Option<String>,
    state: AppState,
) -> Result<Response, AppError> {
    let d = signed_copy::download(&state.ctx(), visit(token, session), origin).await?;
    let url = crate::http::api::sending::download_url(&state, &d.blob, &d.name);
    let mut resp = redirect(&url);
    resp.headers_mut()
        .insert("cache-control", "no-store".parse().expect("static"));
    Ok(resp)
}

/// `GET /sign/<token>`: the page, or what is left to say about the document.
async fn show(
    token: String,
    origin: Origin,
    session: Option<String>,
    state: AppState,
) -> Result<Response, AppError> {
    let visit = visit(token, session);
    let (token, session) = (visit.token.clone(), visit.session.clone());
    let opened = link::open(&state.ctx(), visit, origin).await?;
    let (title, status, role, gate) = (opened.title, opened.status, opened.role, opened.gate);
    let tr = opened.language.tr();
    match status {
        Status::Cancelled => {
            let text = tr.t("sign-cancelled");
            return Ok(notice(StatusCode::GONE, tr, &title, &text, None));
        }
        Status::Completed if role != Role::Cc && gate.is_none() => {
            // The link still hands its recipient the signed copy.
            let text = tr.t("sign-completed-download");
            let link = format!("/sign/{token}/download");
            return Ok(notice(StatusCode::CONFLICT, tr, &title, &text, Some(&link)));
        }
        Status::Completed | Status::Rejected if role != Role::Cc => {
            let text = tr.t(if status == Status::Completed {
                "sign-completed"
            } else {
                "sign-rejected"
            });
            return Ok(notice(StatusCode::CONFLICT, tr, &title, &text, None));
        }
        _ => {}
    }
    if let Some(ended) = &opened.expired {
        let text = tr.t1("sign-expired", "date", ended);
        return Ok(notice(StatusCode::GONE, tr, &title, &text, None));
    }
    if let Some(gate) = gate {
        return Ok(gate_page(&state, tr, &token, &title, &gate, session));
    }
    Ok(page(Ok(DocumentPage {
        tr,
        title: &title,
        token: &token,
        attachments: &opened.attachments,
    })))
}

/// The signing page's shell, with the sender's link attachments.
#[derive(Template)]
#[template(path = "sign/document.html")]
struct DocumentPage<'a> {
    tr: Tr,
    title: &'a str,
    token: &'a str,
    attachments: &'a [Attachment],
}

/// The way in to a document that asks for ACCOUNT access.
#[derive(Template)]
#[template(path = "sign/gate.html")]
struct GatePage<'a> {
    tr: Tr,
    title: &'a str,
    token: &'a str,
    sender_name: &'a str,
    sender_email: &'a str,
    /// The recipient's address.
    email: &'a str,
    /// The account this browser is signed in to, when it is another one.
    signed_in_as: Option<&'a str>,
    logout_csrf: String,
    /// The signing page, to come back to after signing in.
    here: String,
    here_query: String,
    email_query: String,
    /// The token of the form that mails a link to create the account, when there is none.
    invite_csrf: Option<String>,
    /// What finishing will also ask for, in words ("a code from your authenticator app").
    asked: Option<String>,
}

/// The proof finishing asks for besides the sign-in, as the gate says it.
fn asked(tr: Tr, method: Option<ActionAuth>) -> Option<String> {
    let id = match method? {
        ActionAuth::TwoFactor => "gate-asked-totp",
        ActionAuth::Passkey => "gate-asked-passkey",
        ActionAuth::Password => "gate-asked-password",
        ActionAuth::Account => return None,
    };
    Some(tr.t(id))
}

/// A link with nothing left to do.
#[derive(Template)]
#[template(path = "sign/notice.html")]
struct NoticePage<'a> {
    tr: Tr,
    title: &'a str,
    text: &'a str,
    /// Where the signed copy downloads, when the link still offers it.
    download: Option<&'a str>,
}

/// The page of a document that asks for ACCOUNT access, for a visitor not signed in as its
/// recipient: the title, the sender, and the way in.
fn gate_page(
    state: &AppState,
    tr: Tr,
    token: &str,
    title: &str,
    gate: &Gate,
    session: Option<String>,
) -> Response {
    let here = format!("/sign/{token}");
    let other = match (&gate.signer, gate.code) {
        (Some(s), "wrong_account") => Some(s.email.as_str()),
        _ => None,
    };
    let logout_csrf = match other {
        Some(_) => {
            let session = session.unwrap_or_default();
            let hash = crate::core::crypto::SecretToken::presented(&session).hash();
            crate::identity::sessions::csrf::token(&state.keys, "logout", &[&hash])
        }
        None => String::new(),
    };
    let invite_csrf = (other.is_none() && !gate.account_exists)
        .then(|| crate::http::session::invite_csrf(state, token));
    let shown = GatePage {
        tr,
        title,
        token,
        sender_name: &gate.sender.0,
        sender_email: &gate.sender.1,
        email: &gate.email,
        signed_in_as: other,
        logout_csrf,
        here_query: urlencode(&here),
        email_query: urlencode(&gate.email),
        here,
        invite_csrf,
        asked: asked(tr, gate.then),
    };
    page(Ok(shown))
}

fn notice(status: StatusCode, tr: Tr, title: &str, text: &str, download: Option<&str>) -> Response {
    page_as(
        status,
        Ok(NoticePage {
            tr,
            title,
            text,
            download,
        }),
    )
}
