//! The one mapping from `AppError` (and warp rejections) to responses: JSON
//! `{"error","code","message","details"?}` for APIs, the HTML error page for pages.

use std::convert::Infallible;

use http::{HeaderValue, StatusCode, header};
use serde::Serialize;
use warp::reply::Response;
use warp::{Rejection, Reply};

use crate::core::error::AppError;

/// How an error is shown: decided by the request path (see `format_for`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    /// The signing service's API v2 (`/api/v2/`, `/api/v2-beta/`): its clients' error shape
    /// and statuses (`V2Error`).
    JsonV2,
    Html,
}

/// JSON for the APIs and machine endpoints, HTML for the pages people visit.
pub fn format_for(path: &str) -> Format {
    // The scheduling service's API v1 answers under `/v1/` and its bare names (`http::api::cal_v1`).
    let json_prefixes = ["/api/", "/.well-known/", "/v1/", "/hooks/", "/webhooks/"];
    let json_paths = [
        "/api",
        "/healthz",
        "/readyz",
        "/listBookings",
        "/hooks",
        "/webhooks",
        "/memberships",
        "/me",
        "/bookings",
    ];
    // A signing link's page is HTML; the calls it makes under `/sign/<token>/` are JSON.
    let signing_call = path
        .strip_prefix("/sign/")
        .is_some_and(|rest| rest.trim_end_matches('/').contains('/'));
    let v2 = ["/api/v2", "/api/v2-beta"];
    if v2
        .iter()
        .any(|p| path == *p || path.strip_prefix(p).is_some_and(|r| r.starts_with('/')))
    {
        return Format::JsonV2;
    }
    if signing_call
        || json_paths.contains(&path)
        || json_prefixes.iter().any(|p| path.starts_with(p))
    {
        Format::Json
    } else {
        Format::Html
    }
}

/// An error answer under `/api` (and the OAuth endpoints' non-RFC errors).
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = Error)]
pub struct ErrorBody<'a> {
    error: &'static str,
    code: &'static str,
    message: String,
    /// Each problem with its path (invalid input only).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    #[schema(required = false)]
    details: &'a [crate::core::error::FieldError],
}

/// An error answer of the API v2: `message` and `code` (its clients require both, or they
/// report a malformed answer instead of the error), the code in the peer's upper case, and
/// each problem of invalid input in `issues` with its path as a list.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = V2Error)]
pub struct V2Error {
    message: String,
    code: String,
    /// The message again, as the peer's download routes name it.
    error: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schema(required = false)]
    issues: Vec<V2Issue>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct V2Issue {
    message: String,
    /// Keys (text) and list positions (numbers) from the body's root.
    path: Vec<serde_json::Value>,
}

impl V2Error {
    fn of(err: &AppError) -> V2Error {
        let message = err.public_message();
        V2Error {
            code: err.code().to_ascii_uppercase(),
            error: message.clone(),
            message,
            issues: err
                .details()
                .iter()
                .map(|d| V2Issue {
                    message: d.message.clone(),
                    path: issue_path(&d.path),
                })
                .collect(),
        }
    }
}

/// `a.b[2].c` as `["a", "b", 2, "c"]`.
fn issue_path(path: &str) -> Vec<serde_json::Value> {
    path.split(['.', '['])
        .filter(|s| !s.is_empty())
        .map(
            |s| match s.strip_suffix(']').and_then(|n| n.parse::<u64>().ok()) {
                Some(n) => serde_json::Value::from(n),
                None => serde_json::Value::from(s.trim_end_matches(']')),
            },
        )
        .collect()
}

/// The status of an API v2 error: the peer answers a conflict with the object's state
/// (already sent, already completed, gone, not yet possible) as a bad request, the one
/// status of these its clients type besides 401, 403, 404 and 500.
fn v2_status(status: StatusCode) -> StatusCode {
    match status {
        StatusCode::CONFLICT | StatusCode::GONE | StatusCode::UNPROCESSABLE_ENTITY => {
            StatusCode::BAD_REQUEST
        }
        other => other,
    }
}

/// The response for `err`. Internal causes are logged here (inside the request's span, so with
/// its request id) and replaced by a generic message.
pub fn error_response(err: &AppError, format: Format) -> Response {
    match err {
        AppError::Internal(cause) => tracing::error!(%cause, "request failed"),
        AppError::Unavailable(cause) => tracing::warn!(%cause, "service unavailable"),
        _ => {}
    }
    let status = err.status();
    let mut resp = match format {
        Format::Json => json_response(
            status,
            &ErrorBody {
                error: err.code(),
                code: err.code(),
                message: err.public_message(),
                details: err.details(),
            },
        ),
        Format::JsonV2 => json_response(v2_status(status), &V2Error::of(err)),
        Format::Html => {
            let mut resp = html_response(status, &error_page(status, &err.public_message()));
            resp.extensions_mut().insert(HtmlError(err.clone()));
            resp
        }
    };
    let headers = resp.headers_mut();
    match err {
        AppError::Unauthorized(_) => {
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"docket\", error=\"invalid_token\""),
            );
        }
        AppError::AuthRequired { .. } => {
            // The credential is a browser session: the scheme names the login form.
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Session realm=\"docket\", login=\"/auth/login\""),
            );
        }
        AppError::InsufficientScope(scope) => {
            if let Ok(v) = HeaderValue::from_str(&format!(
                "Bearer realm=\"docket\", error=\"insufficient_scope\", scope=\"{scope}\""
            )) {
                headers.insert(header::WWW_AUTHENTICATE, v);
            }
        }
        AppError::Overloaded { retry_after, .. } => {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(*retry_after));
        }
        AppError::InsufficientStorage(_) => {
            headers.insert(
                header::RETRY_AFTER,
                HeaderValue::from(crate::core::disk_space::RETRY_AFTER_SECS),
            );
        }
        AppError::TooManyRequests { retry_after, limit } => {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(*retry_after));
            if *limit > 0 {
                headers.insert("x-ratelimit-limit", HeaderValue::from(*limit));
                headers.insert("x-ratelimit-remaining", HeaderValue::from(0u64));
                headers.insert("x-ratelimit-reset", HeaderValue::from(*retry_after));
            }
        }
        _ => {}
    }
    resp
}

/// Marks a response as the plain error page of `AppError` (for `pages::app::error_page`, which
/// shows a signed-in person's 404 inside the navigation).
#[derive(Debug, Clone)]
pub struct HtmlError(pub AppError);

/// The HTML error page.
#[derive(askama::Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    code: u16,
    title: &'a str,
    message: &'a str,
}

fn error_page(status: StatusCode, message: &str) -> String {
    let title = status.canonical_reason().unwrap_or("Error");
    let page = ErrorPage {
        code: status.as_u16(),
        title,
        message,
    };
    // The page has no fallible part; should rendering fail all the same, the status alone
    // (never the message unescaped).
    askama::Template::render(&page).unwrap_or_else(|_| format!("{} {title}", status.as_u16()))
}

/// `303 See Other` to `location`: where a form that succeeded, or a page that needs a sign-in,
/// sends the browser. Every page route redirects through this one.
pub fn redirect(location: &str) -> Response {
    let mut resp = Response::new(Default::default());
    *resp.status_mut() = StatusCode::SEE_OTHER;
    if let Ok(v) = HeaderValue::from_str(location) {
        resp.headers_mut().insert(header::LOCATION, v);
    }
    resp
}

pub fn json_response<T: Serialize>(status: StatusCode, value: &T) -> Response {
    let mut resp = warp::reply::json(value).into_response();
    *resp.status_mut() = status;
    resp
}

pub fn html_response(status: StatusCode, html: &str) -> Response {
    let mut resp = warp::reply::html(html.to_string()).into_response();
    *resp.status_mut() = status;
    resp
}

/// A handler's JSON result: 200 with the value, or the error's response.
pub fn json_result<T: Serialize>(result: Result<T, AppError>) -> Response {
    json_result_as(StatusCode::OK, result)
}

/// A handler's result that is JSON text already (e.g. `bookings::Json`): 200 with it as it is,
/// or the error's response.
pub fn json_text_result(result: Result<String, AppError>) -> Response {
    match result {
        Ok(text) => {
            let mut resp = Response::new(text.into());
            resp.headers_mut().insert(
                http::header::CONTENT_TYPE,
                http::HeaderValue::from_static("application/json"),
            );
            resp
        }
        Err(e) => error_response(&e, Format::Json),
    }
}

/// A handler's JSON result: `status` with the value, or the error's response.
pub fn json_result_as<T: Serialize>(status: StatusCode, result: Result<T, AppError>) -> Response {
    match result {
        Ok(v) => json_response(status, &v),
        Err(e) => error_response(&e, Format::Json),
    }
}

/// A document or template write's JSON result, as `who` may see it: the answer itself for a
/// caller that may read documents, else its receipt (ids and outcome; `documents::receipt`).
/// Every write route under `/api/v1/documents` and `/api/v1/templates` answers through this.
pub fn write_result<T: Serialize>(
    who: &crate::identity::principal::Principal,
    result: Result<T, AppError>,
) -> Response {
    let value = result.and_then(|v| serde_json::to_value(v).map_err(AppError::internal));
    json_result(value.map(|v| crate::signing::documents::receipt::shown_to(who, v)))
}

/// A document or template write's answer as `who` may see it (as [`write_result`]), for a
/// handler that ends in [`answer`].
pub fn written<T: Serialize>(
    who: &crate::identity::principal::Principal,
    value: T,
) -> Result<Response, AppError> {
    let value = serde_json::to_value(value).map_err(AppError::internal)?;
    let shown = crate::signing::documents::receipt::shown_to(who, value);
    Ok(json_response(StatusCode::OK, &shown))
}

/// A handler's JSON result that made something: 201 with the value, or the error's response.
pub fn json_created<T: Serialize>(result: Result<T, AppError>) -> Response {
    json_result_as(StatusCode::CREATED, result)
}

/// A page handler's result: 200 with the rendered page (the middleware adds the pages' security
/// headers to every HTML answer), or the HTML error page; the page of `json_result`.
pub fn page<T: askama::Template>(result: Result<T, AppError>) -> Response {
    page_as(StatusCode::OK, result)
}

/// A page handler's result: `status` with the rendered page, or the HTML error page. A template
/// that fails to render is an internal error, shown as that page too.
pub fn page_as<T: askama::Template>(status: StatusCode, result: Result<T, AppError>) -> Response {
    let html = result.and_then(|p| p.render().map_err(AppError::internal));
    match html {
        Ok(html) => html_response(status, &html),
        Err(e) => error_response(&e, Format::Html),
    }
}

/// The status of a form page: `refused` when it is shown again with an error, else 200.
pub fn form_status(error: Option<&str>, refused: StatusCode) -> StatusCode {
    if error.is_some() {
        refused
    } else {
        StatusCode::OK
    }
}

/// A filter-level failure carrying the `AppError` to show.
#[derive(Debug)]
pub struct Rejected(pub AppError);

impl warp::reject::Reject for Rejected {}

pub fn reject(err: AppError) -> Rejection {
    warp::reject::custom(Rejected(err))
}

/// A filter's refusal whose answer is decided where it is raised: a page's redirect to the
/// sign-in form, or an error in a format the path does not tell (a page's JSON call).
#[derive(Debug)]
pub enum Refused {
    Redirect(String),
    As(AppError, Format),
}

impl warp::reject::Reject for Refused {}

/// What a rejection means for the client.
pub fn rejection_error(r: &Rejection) -> AppError {
    if let Some(Rejected(e)) = r.find::<Rejected>() {
        return e.clone();
    }
    if r.is_not_found() {
        return AppError::NotFound("there is nothing at this address".into());
    }
    if r.find::<warp::reject::MethodNotAllowed>().is_some() {
        return AppError::MethodNotAllowed;
    }
    if r.find::<warp::reject::PayloadTooLarge>().is_some() {
        return AppError::PayloadTooLarge("the request body is too large".into());
    }
    if let Some(e) = r.find::<warp::reject::UnsupportedMediaType>() {
        return AppError::UnsupportedMediaType(e.to_string());
    }
    if let Some(e) = r.find::<warp::reject::InvalidQuery>() {
        return AppError::bad_request(format!("invalid query string: {e}"));
    }
    if let Some(e) = r.find::<warp::reject::MissingHeader>() {
        return AppError::bad_request(e.to_string());
    }
    if let Some(e) = r.find::<warp::reject::InvalidHeader>() {
        return AppError::bad_request(e.to_string());
    }
    if let Some(e) = r.find::<warp::filters::body::BodyDeserializeError>() {
        return AppError::bad_request(e.to_string());
    }
    if r.find::<warp::reject::LengthRequired>().is_some() {
        return AppError::bad_request("a Content-Length header is required");
    }
    AppError::internal(format!("unhandled rejection: {r:?}"))
}

/// Marks a response as "this rejection, not yet rendered": the middleware renders it as JSON or
/// HTML once it knows the request path.
#[derive(Debug, Clone)]
pub struct PendingError(pub AppError);

/// The top-level `recover`: a `Refused` becomes its answer, every other rejection a
/// `PendingError` response.
pub async fn recover(r: Rejection) -> Result<Response, Infallible> {
    match r.find::<Refused>() {
        Some(Refused::Redirect(location)) => return Ok(redirect(location)),
        Some(Refused::As(err, format)) => return Ok(error_response(err, *format)),
        None => {}
    }
    Ok(pending(rejection_error(&r)))
}

/// `err` as a response not yet written: the middleware writes it once it knows the request path
/// (JSON for the APIs, the error page for pages; `format_for`).
pub fn pending(err: AppError) -> Response {
    let mut resp = Response::new(Default::default());
    *resp.status_mut() = err.status();
    resp.extensions_mut().insert(PendingError(err));
    resp
}

/// A handler's result as the response: what it built, or its error, written in one place (the
/// middleware, through [`pending`]) in the format the request path asks. The shape every named
/// handler ends in: `.then(handler).map(reply::answer)`.
pub fn answer<R: Reply>(result: Result<R, AppError>) -> Response {
    match result {
        Ok(r) => r.into_response(),
        Err(e) => pending(e),
    }
}

/// [`answer`] for the few routes whose refusal is written in a format their path does not tell
/// (a page's JSON call, e.g. `/account/passkeys`; the HTML form under `/sign/<token>/`): the
/// error is written here, at once, in `format`. `.then(handler).map(reply::answer_as(Format::Json))`.
pub fn answer_as<R: Reply>(
    format: Format,
) -> impl Fn(Result<R, AppError>) -> Response + Clone + Send + Sync + 'static {
    move |result| match result {
        Ok(r) => r.into_response(),
        Err(e) => error_response(&e, format),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_v2_errors_carry_message_code_and_issues() {
        assert_eq!(format_for("/api/v2/envelope"), Format::JsonV2);
        assert_eq!(format_for("/api/v2-beta/document/7.0"), Format::JsonV2);
        assert_eq!(format_for("/api/v2x"), Format::Json);
        let err = AppError::validation(vec![crate::core::error::FieldError::new(
            "recipients[1].email",
            "not an e-mail address",
        )]);
        let resp = error_response(&err, Format::JsonV2);
        assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
        let conflict = error_response(&AppError::Conflict("sent".into()), Format::JsonV2);
        assert_eq!(conflict.status(), StatusCode::BAD_REQUEST);
        let v = serde_json::to_value(V2Error::of(&err)).unwrap();
        assert!(
            v["message"].is_string()
                && v["code"]
                    .as_str()
                    .unwrap()
                    .chars()
                    .all(|c| !c.is_lowercase())
        );
        assert_eq!(
            v["issues"][0]["path"],
            serde_json::json!(["recipients", 1, "email"])
        );
        let nf = serde_json::to_value(V2Error::of(&AppError::not_found("envelope"))).unwrap();
        assert_eq!(nf["code"], "NOT_FOUND");
        assert!(nf.get("issues").is_none());
    }

    #[test]
    fn api_paths_get_json_pages_get_html() {
        assert_eq!(format_for("/api/v1/documents"), Format::Json);
        assert_eq!(format_for("/api"), Format::Json);
        assert_eq!(format_for("/healthz"), Format::Json);
        assert_eq!(
            format_for("/.well-known/oauth-authorization-server"),
            Format::Json
        );
        assert_eq!(format_for("/auth/login"), Format::Html);
        assert_eq!(format_for("/apiary"), Format::Html);
        assert_eq!(format_for("/sign/abc"), Format::Html);
        assert_eq!(format_for("/sign/abc/"), Format::Html);
        assert_eq!(format_for("/sign/abc/complete"), Format::Json);
    }

    #[test]
    fn an_answer_is_the_response_or_its_error_left_for_the_middleware() {
        let done = answer(Ok(redirect("/app")));
        assert_eq!(done.status(), 303);
        assert!(done.extensions().get::<PendingError>().is_none());
        let refused = answer::<Response>(Err(AppError::not_found("document")));
        assert_eq!(refused.status(), 404);
        let Some(PendingError(e)) = refused.extensions().get::<PendingError>() else {
            panic!("the error is left for the middleware to write");
        };
        assert_eq!(e.status(), 404);
    }

    #[test]
    fn unauthorized_and_rate_limited_carry_their_headers() {
        let r = error_response(&AppError::Unauthorized("no".into()), Format::Json);
        assert_eq!(r.status(), 401);
        assert!(r.headers().contains_key(header::WWW_AUTHENTICATE));
        let r = error_response(
            &AppError::TooManyRequests {
                retry_after: 7,
                limit: 10,
            },
            Format::Json,
        );
        assert_eq!(r.headers()[header::RETRY_AFTER], "7");
        assert_eq!(r.headers()["x-ratelimit-limit"], "10");
        for format in [Format::Json, Format::Html] {
            let busy = AppError::Overloaded {
                retry_after: 2,
                message: "busy".into(),
            };
            let r = error_response(&busy, format);
            assert_eq!(r.status(), 503);
            assert_eq!(r.headers()[header::RETRY_AFTER], "2");
            let full = AppError::InsufficientStorage("full".into());
            let r = error_response(&full, format);
            assert_eq!(r.status(), 507);
            assert_eq!(r.headers()[header::RETRY_AFTER], "60");
        }
    }

    /// A page whose one value cannot be shown.
    #[derive(askama::Template)]
    #[template(source = "<p>{{ value }}</p>", ext = "html")]
    struct Broken {
        value: Unshowable,
    }

    struct Unshowable;

    impl std::fmt::Display for Unshowable {
        fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            Err(std::fmt::Error)
        }
    }

    #[test]
    fn pages_answer_like_json_results() {
        let html = |r: &Response| {
            r.headers()[header::CONTENT_TYPE]
                .to_str()
                .unwrap()
                .to_string()
        };
        let shown = page_as(
            StatusCode::GONE,
            Ok(ErrorPage {
                code: 410,
                title: "Gone",
                message: "gone",
            }),
        );
        assert_eq!(shown.status(), 410);
        assert!(html(&shown).starts_with("text/html"));
        let refused = page(Err::<Broken, _>(AppError::not_found("document")));
        assert_eq!(refused.status(), 404);
        assert!(html(&refused).starts_with("text/html"));
        let broken = page(Ok(Broken { value: Unshowable }));
        assert_eq!(
            broken.status(),
            500,
            "a page that cannot render is the error page"
        );
        assert!(html(&broken).starts_with("text/html"));
    }

    #[test]
    fn the_error_page_escapes_its_message() {
        let html = error_page(StatusCode::NOT_FOUND, "<script>\"x\"");
        assert!(html.contains("&lt;script&gt;&quot;x&quot;"), "{html}");
        assert!(html.contains("<title>Not Found · Docket</title>"), "{html}");
        assert!(html.contains("/assets/css/docket.css?v="), "{html}");
    }

    #[test]
    fn html_errors_escape_messages() {
        let r = error_response(&AppError::NotFound("<script>".into()), Format::Html);
        assert_eq!(r.status(), 404);
        assert!(
            r.headers()[header::CONTENT_TYPE]
                .to_str()
                .unwrap()
                .starts_with("text/html")
        );
    }
}
