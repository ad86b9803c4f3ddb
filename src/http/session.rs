//! Cookies and the logged-in user for the pages.

use warp::Filter;

use crate::core::error::AppError;
use crate::http::state::AppState;
use crate::identity::sessions::Session;
use crate::identity::users::User;

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
    let session = crate::identity::sessions::login::session(&state.db, token.clone()).await?;
    Ok(session.map(|s| (token, s)))
}

/// `s` encoded for a query string value.
pub fn urlencode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// Only same-origin paths may be a login's `next`; anything else goes to `/account`.
pub fn safe_next(next: Option<&str>) -> String {
    match next {
        Some(n)
            if n.starts_with('/')
                && !n.starts_with("//")
                && !n.starts_with("/\\")
                // Browsers drop tabs and newlines inside URLs (`/<TAB>/x` is `//x` to them).
                && !n.chars().any(char::is_control) =>
        {
            n.to_string()
        }
        _ => "/account".to_string(),
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
    }
}
