//! The pages' credential, the session cookie: the filters that authenticate a page
//! (`signed_in`), a page form (`form_csrf`: the session and the form's CSRF token) and a page's
//! JSON call (`call_csrf`: the session and the `X-CSRF-Token` header), and the helpers the page
//! routes share (cookies, CSRF tokens, safe `next` targets).
//!
//! A refused page goes to the sign-in form (`reply::Refused::Redirect`); a refused form gets
//! the HTML 403 "the form expired", a refused call the JSON 403 "sign in again".

use bytes::Bytes;
use serde::de::DeserializeOwned;
use warp::Filter;

use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::http::reply::{Format, Refused};
use crate::http::server::state::AppState;
use crate::identity::sessions::{Session, csrf};
use crate::identity::users::User;

/// The session cookie's value and its user.
pub type SignedIn = (String, User);

/// A page's query that says only where to go afterwards (`?next=`).
#[derive(Debug, Default, serde::Deserialize)]
pub struct NextQuery {
    pub next: Option<String>,
}

/// A form whose one field the page reads is its `csrf_token`, checked by the page itself (a
/// form shown before any session, or one bound to more than the session).
#[derive(Debug, Default, serde::Deserialize)]
pub struct TokenForm {
    pub csrf_token: Option<String>,
}

/// The CSRF purpose of the account's second-factor forms and calls.
pub const FACTORS: &str = "factors";

/// The CSRF purpose of the web application's calls to `/api/v1` and its forms.
pub const APP: &str = "app";

/// Largest form body a page accepts (16 KiB).
const FORM_LIMIT: u64 = 16 * 1024;

/// A form-encoded body of at most 16 KiB, read into `T` by the rules of `body::pairs` (the last
/// of a repeated field counts, unknown fields are ignored, a missing required one is a 400).
pub fn form<T: DeserializeOwned + Send + 'static>()
-> impl Filter<Extract = (T,), Error = warp::Rejection> + Clone {
    crate::http::body::capped_bytes(FORM_LIMIT).and_then(|b: Bytes| async move {
        crate::http::body::pairs::<T>(&b)
            .map_err(|e| warp::reject::custom(Refused::As(e, Format::Html)))
    })
}

/// The last `csrf_token` of a form body, as a form reads it.
fn presented_csrf(body: &[u8]) -> Option<String> {
    url::form_urlencoded::parse(body)
        .filter(|(k, _)| k == "csrf_token")
        .last()
        .map(|(_, v)| v.into_owned())
}

/// The signed-in browser of a page; without a session, the sign-in form (then `back`).
pub fn signed_in(
    state: &AppState,
    back: &'static str,
) -> impl Filter<Extract = (SignedIn,), Error = warp::Rejection> + Clone + use<> {
    let state = state.clone();
    cookies().and_then(move |c: Option<String>| {
        let state = state.clone();
        async move { session_or_sign_in(&state, c.as_deref(), back).await }
    })
}

/// The browser's session, if signed in: for the pages that decide themselves where an
/// anonymous visitor goes.
pub fn optional(
    state: &AppState,
) -> impl Filter<Extract = (Option<SignedIn>,), Error = warp::Rejection> + Clone + use<> {
    let state = state.clone();
    cookies().and_then(move |c: Option<String>| {
        let state = state.clone();
        async move {
            current(&state, c.as_deref())
                .await
                .map_err(|e| warp::reject::custom(Refused::As(e, Format::Html)))
        }
    })
}

/// A page form (body read first) from the signed-in browser whose `csrf_token` field is the
/// token of `purpose`; without a session, the sign-in form (then `back`).
/// The form is read into `T` (as [`form`]) only once the session and its token are checked.
pub fn form_csrf<T: DeserializeOwned + Send + 'static>(
    state: &AppState,
    purpose: &'static str,
    back: &'static str,
) -> impl Filter<Extract = (SignedIn, T), Error = warp::Rejection> + Clone + use<T> {
    let state = state.clone();
    cookies()
        .and(crate::http::body::capped_bytes(FORM_LIMIT))
        .and_then(move |c: Option<String>, body: Bytes| {
            let state = state.clone();
            async move {
                let s = session_or_sign_in(&state, c.as_deref(), back).await?;
                let presented = presented_csrf(&body);
                if !matches_session(&state, purpose, &s.0, presented.as_deref()) {
                    let e = AppError::Forbidden("the form expired; reload the page".into());
                    return Err(warp::reject::custom(Refused::As(e, Format::Html)));
                }
                let form = crate::http::body::pairs::<T>(&body)
                    .map_err(|e| warp::reject::custom(Refused::As(e, Format::Html)))?;
                Ok((s, form))
            }
        })
        .untuple_one()
}

/// A page's JSON call (body read first by `body`) from the signed-in browser whose
/// `X-CSRF-Token` is the token of `purpose`; any failure is the JSON 403 "sign in again".
pub fn call_csrf<B, T>(
    state: &AppState,
    purpose: &'static str,
    body: B,
) -> impl Filter<Extract = (SignedIn, T), Error = warp::Rejection> + Clone + use<B, T>
where
    B: Filter<Extract = (T,), Error = warp::Rejection> + Clone + Send + Sync,
    T: Send,
{
    let state = state.clone();
    cookies()
        .and(warp::header::optional::<String>("x-csrf-token"))
        .and(body)
        .and_then(move |c: Option<String>, presented: Option<String>, b: T| {
            let state = state.clone();
            async move {
                match current(&state, c.as_deref()).await {
                    Ok(Some(s)) if matches_session(&state, purpose, &s.0, presented.as_deref()) => {
                        Ok((s, b))
                    }
                    _ => {
                        let e = AppError::Forbidden("sign in again and reload the page".into());
                        Err(warp::reject::custom(Refused::As(e, Format::Json)))
                    }
                }
            }
        })
        .untuple_one()
}

/// The owner's browser calling the API: the session cookie with the `X-CSRF-Token` of `APP`.
/// `None` unless the call carries both (then it is an API call like any other, and without
/// `Authorization` a 401); a session that ended or a token that does not match is the JSON 403
/// "sign in again".
pub async fn api_caller(
    state: &AppState,
    cookie_header: Option<&str>,
    presented: Option<&str>,
) -> Result<Option<SignedIn>, AppError> {
    if presented.is_none() || session_token(state, cookie_header).is_none() {
        return Ok(None);
    }
    match current(state, cookie_header).await? {
        Some(s) if matches_session(state, APP, &s.0, presented) => Ok(Some(s)),
        _ => Err(AppError::Forbidden(
            "sign in again and reload the page".into(),
        )),
    }
}

async fn session_or_sign_in(
    state: &AppState,
    cookies: Option<&str>,
    back: &str,
) -> Result<SignedIn, warp::Rejection> {
    match current(state, cookies).await {
        Ok(Some(s)) => Ok(s),
        Ok(None) => Err(warp::reject::custom(Refused::Redirect(format!(
            "/auth/login?next={}",
            urlencode(back)
        )))),
        Err(e) => Err(warp::reject::custom(Refused::As(e, Format::Html))),
    }
}

/// The CSRF token of `purpose` for the forms and calls of session `session`.
pub fn csrf_token(state: &AppState, purpose: &str, session: &str) -> String {
    csrf::token(
        &state.keys,
        purpose,
        &[&SecretToken::presented(session).hash()],
    )
}

/// Whether `presented` is the CSRF token of `purpose` for session `session`: for a page whose
/// form is not form-encoded (a file upload), checked by the page once it has read the form.
pub fn matches_session(
    state: &AppState,
    purpose: &str,
    session: &str,
    presented: Option<&str>,
) -> bool {
    presented.is_some_and(|t| {
        csrf::verify(
            &state.keys,
            purpose,
            &[&SecretToken::presented(session).hash()],
            t,
        )
    })
}

/// The CSRF token of the "create an account" form on signing link `token`'s page.
pub fn invite_csrf(state: &AppState, token: &str) -> String {
    csrf::token(&state.keys, "invite", &[token])
}

/// The session cookie's value, if the browser sent one.
pub fn session_token(state: &AppState, cookies: Option<&str>) -> Option<String> {
    cookie(cookies, crate::identity::sessions::cookie_name(state.tls())).map(str::to_string)
}

/// The value of cookie `name` in a `Cookie` header.
pub fn cookie<'a>(header: Option<&'a str>, name: &str) -> Option<&'a str> {
    header?
        .split(';')
        .filter_map(|p| p.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
        .filter(|v| !v.is_empty())
}

/// The raw `Cookie` header.
pub fn cookies() -> impl Filter<Extract = (Option<String>,), Error = warp::Rejection> + Clone {
    warp::header::optional::<String>("cookie")
}

/// The session cookie's value and its user, when logged in.
pub async fn current(
    state: &AppState,
    cookie_header: Option<&str>,
) -> Result<Option<(String, User)>, AppError> {
    Ok(current_session(state, cookie_header)
        .await?
        .map(|(token, s)| (token, s.user)))
}

/// The session cookie's value and its session (user and sign-in time), when logged in.
pub async fn current_session(
    state: &AppState,
    cookie_header: Option<&str>,
) -> Result<Option<(String, Session)>, AppError> {
    let Some(token) = cookie(
        cookie_header,
        crate::identity::sessions::cookie_name(state.tls()),
    )
    .map(str::to_string) else {
        return Ok(None);
    };
    let session = crate::identity::sessions::login::session(&state.ctx(), token.clone()).await?;
    Ok(session.map(|s| (token, s)))
}

/// `s` encoded for a query string value.
pub fn urlencode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// Only same-origin paths may be an account page's `next`; anything else goes to `/account`
/// (confirming who one is, setting up a second factor: started from there).
pub fn safe_next(next: Option<&str>) -> String {
    local_next(next).unwrap_or_else(|| "/account".to_string())
}

/// Where a sign-in lands: `next` when it is a path of this site (the OAuth consent, a signing
/// link, the page that asked to sign in), else the documents list (`/`), where a sender's
/// work starts (issue 55, item 5).
pub fn landing(next: Option<&str>) -> String {
    local_next(next).unwrap_or_else(|| "/".to_string())
}

/// `next` when it is a path of this site (never `//host`, `/\\host` or an absolute URL), else
/// `None`: for the pages that carry a `next` along without a default of their own.
pub fn local_next(next: Option<&str>) -> Option<String> {
    next.filter(|n| {
        n.starts_with('/')
            && !n.starts_with("//")
            && !n.starts_with("/\\")
            // Browsers drop tabs and newlines inside URLs (`/<TAB>/x` is `//x` to them).
            && !n.chars().any(char::is_control)
    })
    .map(str::to_string)
}

/// `path` with the query `pairs` whose values are given (each encoded), e.g.
/// `with_query("/auth/login", &[("email", Some(e)), ("next", None)])`.
pub fn with_query(path: &str, pairs: &[(&str, Option<&str>)]) -> String {
    let query: Vec<String> = pairs
        .iter()
        .filter_map(|(k, v)| v.map(|v| format!("{k}={}", urlencode(v))))
        .collect();
    match query.is_empty() {
        true => path.to_string(),
        false => format!("{path}?{}", query.join("&")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_are_found_by_name() {
        assert_eq!(
            cookie(Some("a=1; docket_session=xyz; b=2"), "docket_session"),
            Some("xyz")
        );
        assert_eq!(cookie(Some("docket_session="), "docket_session"), None);
        assert_eq!(cookie(None, "x"), None);
    }

    #[test]
    fn next_must_stay_on_this_site() {
        assert_eq!(
            safe_next(Some("/auth/oauth2/authorize?x=1")),
            "/auth/oauth2/authorize?x=1"
        );
        for bad in [
            "https://evil.example",
            "//evil.example",
            "/\\evil.example",
            "/\t/evil.example",
            "/\t\\evil.example",
            "account",
        ] {
            assert_eq!(safe_next(Some(bad)), "/account");
        }
        assert_eq!(safe_next(None), "/account");
        assert_eq!(landing(None), "/");
        assert_eq!(landing(Some("//evil.example")), "/");
        assert_eq!(landing(Some("/sign/abc")), "/sign/abc");
    }

    #[test]
    fn a_carried_next_is_local_or_nothing_and_goes_into_a_query_encoded() {
        assert_eq!(local_next(Some("/sign/abc")).as_deref(), Some("/sign/abc"));
        for bad in [
            "https://evil.example",
            "//evil.example",
            "/\\evil",
            "/\t/evil",
            "",
        ] {
            assert_eq!(local_next(Some(bad)), None, "{bad:?}");
        }
        assert_eq!(
            with_query("/auth/login", &[("email", Some("a@b.c")), ("next", None)]),
            "/auth/login?email=a%40b.c"
        );
        assert_eq!(
            with_query("/auth/forgot", &[("next", Some("/sign/x?y=1"))]),
            "/auth/forgot?next=%2Fsign%2Fx%3Fy%3D1"
        );
        assert_eq!(with_query("/auth/login", &[("next", None)]), "/auth/login");
    }
}
