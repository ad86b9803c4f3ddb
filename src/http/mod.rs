//! The HTTP layer, by audience: `api` (the JSON APIs under `/api` and what integrations call),
//! `oauth` (the provider's endpoints and consent page), `pages` (what people visit) and `server`
//! (the accept loop, the middleware every request passes, the shared state). What they share sits
//! here: the one error mapping (`reply`), bodies, credentials and sessions. Domain logic lives in
//! the domain modules.

pub mod api;
pub mod auth;
pub mod body;
pub mod cross_site;
pub mod oauth;
pub mod pages;
pub mod reply;
pub mod server;
pub mod session;
pub mod shown_once;

use std::convert::Infallible;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::http::server::state::AppState;

/// Injects the shared state into a filter chain.
pub fn with_state(
    state: AppState,
) -> impl Filter<Extract = (AppState,), Error = Infallible> + Clone {
    warp::any().map(move || state.clone())
}

/// The client's address, as the middleware resolved it (behind a trusted proxy, the address it
/// forwarded).
pub fn peer() -> impl Filter<Extract = (Option<std::net::SocketAddr>,), Error = Infallible> + Copy {
    warp::ext::optional::<server::middleware::PeerAddr>()
        .map(|p: Option<server::middleware::PeerAddr>| p.map(|p| p.0))
}

/// Where the request came from (client address and user agent), for the audit log.
pub fn origin()
-> impl Filter<Extract = (crate::signing::documents::audit::Origin,), Error = warp::Rejection> + Clone
{
    peer()
        .and(warp::header::optional::<String>("user-agent"))
        .map(
            |p: Option<std::net::SocketAddr>, ua| crate::signing::documents::audit::Origin {
                ip: p.map(|p| p.ip().to_string()),
                user_agent: ua,
            },
        )
}

/// Where a request came from, as a security notice tells it (client address and user agent).
pub fn source()
-> impl Filter<Extract = (crate::identity::accounts::access::Source,), Error = warp::Rejection> + Clone
{
    peer()
        .and(warp::header::optional::<String>("user-agent"))
        .map(
            |p: Option<std::net::SocketAddr>, agent| crate::identity::accounts::access::Source {
                address: p.map(|p| p.ip()),
                agent,
            },
        )
}

/// Every route of the appliance, by audience. Rejections become pending errors that the
/// middleware renders; a signed-in person's 404 page keeps the navigation.
pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let all = server::routes(state.clone())
        .or(api::routes(state.clone()))
        .unify()
        .or(oauth::routes(state.clone()))
        .unify()
        .or(pages::routes(state.clone()))
        .unify()
        .recover(reply::recover)
        .unify();
    warp::path::full()
        .and(session::cookies())
        .and(all)
        .then(
            move |path: warp::path::FullPath, cookies: Option<String>, resp| {
                let state = state.clone();
                async move {
                    let cookies = cookies.as_deref();
                    pages::app::error_page::dressed(&state, path.as_str(), cookies, resp).await
                }
            },
        )
        .boxed()
}
