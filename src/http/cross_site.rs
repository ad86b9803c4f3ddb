//! The one rule for the pages' GET routes that record or change something with the session
//! cookie alone (the owner's downloads, which add DOWNLOADED to the audit trail): such a
//! request must come from Docket's own pages, a bookmark or a typed address, never from
//! another site. The session cookie is SameSite=Lax, so a link or a redirect on another site
//! still carries it on a top-level GET; the browser says where a request came from in
//! `Sec-Fetch-Site` (and, when it sends one, `Origin`), which no page can forge.
//!
//! A request is refused (403) when it carries the session cookie and `Sec-Fetch-Site` is
//! `cross-site` or `same-site` (another host under the same registrable domain is another
//! site's page as far as Docket knows), or `Origin` is present and not one of ours. `same-origin`,
//! `none` (typed, bookmarked, opened from another application) and no header (older browsers,
//! clients that are not browsers) pass. A request without the session cookie acts as nobody and
//! passes; credentials in headers (API keys, bearer tokens) cannot be sent by another site's page.

use warp::Filter;

use crate::core::error::AppError;
use crate::http::reply::{Format, Refused};
use crate::http::server::state::AppState;
use crate::http::session::{cookies, session_token};

const REFUSED: &str = "this request came from another site, so Docket did not act on it; \
open the document in Docket and use its download buttons";

/// Passes a request that does not carry the session cookie or that comes from one of our own
/// pages (see the module's comment); refuses any other with the HTML 403.
pub fn from_our_pages(
    state: &AppState,
) -> impl Filter<Extract = (), Error = warp::Rejection> + Clone + use<> {
    let state = state.clone();
    cookies()
        .and(warp::header::optional::<String>("sec-fetch-site"))
        .and(warp::header::optional::<String>("origin"))
        .and(warp::header::optional::<String>("host"))
        .and_then(
            move |c: Option<String>, site: Option<String>, origin: Option<String>, host| {
                let state = state.clone();
                async move {
                    if session_token(&state, c.as_deref()).is_none() {
                        return Ok(());
                    }
                    let ours = our_origins(&state, host);
                    judge(site.as_deref(), origin.as_deref(), &ours)
                        .map_err(|e| warp::reject::custom(Refused::As(e, Format::Html)))
                }
            },
        )
        .untuple_one()
}

/// The origins that are Docket's own: the public URL's, the app URL's (signing links), and the
/// one the request was sent to (`Host`, in either scheme).
fn our_origins(state: &AppState, host: Option<String>) -> Vec<String> {
    let mut ours = vec![origin_of(&state.issuer()), origin_of(&state.app_base())];
    if let Some(h) = host {
        ours.push(format!("http://{h}"));
        ours.push(format!("https://{h}"));
    }
    ours.retain(|o| !o.is_empty());
    ours
}

/// `scheme://host[:port]` of a URL, as a browser writes it in `Origin`.
fn origin_of(url: &str) -> String {
    url::Url::parse(url)
        .map(|u| u.origin().ascii_serialization())
        .unwrap_or_default()
}

/// The rule itself, on the request's `Sec-Fetch-Site` and `Origin`.
fn judge(site: Option<&str>, origin: Option<&str>, ours: &[String]) -> Result<(), AppError> {
    let site_ok = match site.map(str::trim) {
        None => true,
        Some(s) => s.eq_ignore_ascii_case("same-origin") || s.eq_ignore_ascii_case("none"),
    };
    let origin_ok = match origin.map(str::trim) {
        None => true,
        Some(o) => ours.iter().any(|ours| ours.eq_ignore_ascii_case(o)),
    };
    if site_ok && origin_ok {
        Ok(())
    } else {
        Err(AppError::Forbidden(REFUSED.into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_our_own_pages_typed_addresses_and_old_clients_pass() {
        let ours = vec!["https://docket.example".to_string()];
        for (site, origin, pass) in [
            (None, None, true),
            (Some("same-origin"), None, true),
            (Some("none"), None, true),
            (Some("Same-Origin"), Some("https://docket.example"), true),
            (None, Some("https://docket.example"), true),
            (Some("cross-site"), None, false),
            (Some("same-site"), None, false),
            (Some("something-new"), None, false),
            (None, Some("https://evil.example"), false),
            (Some("same-origin"), Some("null"), false),
            (Some("none"), Some("http://docket.example"), false),
        ] {
            assert_eq!(
                judge(site, origin, &ours).is_ok(),
                pass,
                "{site:?} {origin:?}"
            );
        }
    }

    #[test]
    fn origins_are_written_as_browsers_write_them() {
        assert_eq!(
            origin_of("https://Docket.example:443/x"),
            "https://docket.example"
        );
        assert_eq!(origin_of("http://localhost:8080"), "http://localhost:8080");
        assert_eq!(origin_of("not a url"), "");
    }
}
