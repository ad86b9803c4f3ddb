//! The "not found" page of a signed-in person: the web application's navigation around it, so
//! that the way back is where it always is (issue 55, item 11). Signed out, or on a recipient's
//! pages (`/sign/...`, `/d/...`), the plain error page stays.

use askama::Template;
use http::StatusCode;
use warp::reply::Response;

use super::nav::{Nav, Section};
use super::workspace::Place;
use crate::core::error::AppError;
use crate::http::reply::{Format, HtmlError, PendingError, format_for, page_as};
use crate::http::server::state::AppState;
use crate::http::session::current;

#[derive(Template)]
#[template(path = "app/error.html")]
struct ErrorPage {
    nav: Nav,
    code: u16,
    title: &'static str,
    message: String,
}

/// The error of `resp`, a page's answer to `path`, when it is one this module dresses: a 404
/// written as HTML, or still to be written for a page's path.
fn not_found<'a>(path: &str, resp: &'a Response) -> Option<&'a AppError> {
    let recipients = path.starts_with("/sign/") || path.starts_with("/d/");
    let err = match resp.extensions().get::<PendingError>() {
        Some(PendingError(e)) => Some(e).filter(|_| format_for(path) == Format::Html),
        None => resp.extensions().get::<HtmlError>().map(|HtmlError(e)| e),
    };
    err.filter(|e| e.status() == StatusCode::NOT_FOUND && !recipients)
}

/// `resp`, the answer to `path` for a browser that sent `cookies`: a 404 page inside the
/// navigation when the browser is signed in, else as it is.
pub async fn dressed(
    state: &AppState,
    path: &str,
    cookies: Option<&str>,
    resp: Response,
) -> Response {
    let Some(err) = not_found(path, &resp) else {
        return resp;
    };
    let Ok(Some((session, user))) = current(state, cookies).await else {
        return resp;
    };
    let place = Place::Personal;
    let Ok(nav) = Nav::of(state, &session, &user, Section::Elsewhere, &place).await else {
        return resp;
    };
    let status = err.status();
    let page = ErrorPage {
        nav,
        code: status.as_u16(),
        title: status.canonical_reason().unwrap_or("Error"),
        message: err.public_message(),
    };
    page_as(status, Ok(page))
}
