//! The HTTP layer: warp routes per area, thin handlers, one error mapping (`reply`), and the
//! middleware every request passes. Domain logic lives in the domain modules.

pub mod account;
pub mod account_confirm;
pub mod account_factors;
pub mod account_profile;
pub mod app;
pub mod auth;
pub mod authorize;
pub mod body;
pub mod bookings;
pub mod cross_site;
pub mod direct_page;
pub mod documents;
pub mod health;
pub mod home;
pub mod limits;
pub mod login;
pub mod middleware;
pub mod multipart_limits;
pub mod oauth_api;
pub mod openapi;
#[cfg(test)]
mod openapi_check;
pub mod page;
pub mod page_image;
pub mod password_reset;
pub mod proxy;
pub mod redact;
pub mod reply;
pub mod second_factor;
pub mod sending;
pub mod server;
pub mod session;
pub mod signing;
pub mod signing_page;
pub mod signup;
pub mod state;
pub mod static_files;
pub mod template_edit;
pub mod templates;
pub mod uploads;
pub mod webhooks;
pub mod zapier;

use std::convert::Infallible;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::http::state::AppState;

/// Injects the shared state into a filter chain.
pub fn with_state(
    state: AppState,
) -> impl Filter<Extract = (AppState,), Error = Infallible> + Clone {
    warp::any().map(move || state.clone())
}

/// The client's address, as the middleware resolved it (behind a trusted proxy, the address it
/// forwarded).
pub fn peer() -> impl Filter<Extract = (Option<std::net::SocketAddr>,), Error = Infallible> + Copy {
    warp::ext::optional::<middleware::PeerAddr>()
        .map(|p: Option<middleware::PeerAddr>| p.map(|p| p.0))
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

/// Every route of the appliance. Rejections become pending errors that the middleware renders.
pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    health::routes(state.clone())
        .or(bookings::routes(state.clone()))
        .unify()
        .or(oauth_api::routes(state.clone()))
        .unify()
        .or(documents::routes(state.clone()))
        .unify()
        .or(uploads::routes(state.clone()))
        .unify()
        .or(sending::routes(state.clone()))
        .unify()
        .or(signing::routes(state.clone()))
        .unify()
        .or(signing_page::routes(state.clone()))
        .unify()
        .or(signup::routes(state.clone()))
        .unify()
        .or(templates::routes(state.clone()))
        .unify()
        .or(webhooks::routes(state.clone()))
        .unify()
        .or(zapier::routes(state.clone()))
        .unify()
        .or(openapi::routes(state.clone()))
        .unify()
        .or(second_factor::routes(state.clone()))
        .unify()
        .or(password_reset::routes(state.clone()))
        .unify()
        .or(direct_page::routes(state.clone()))
        .unify()
        .or(login::routes(state.clone()))
        .unify()
        .or(authorize::routes(state.clone()))
        .unify()
        .or(account_factors::routes(state.clone()))
        .unify()
        .or(account_confirm::routes(state.clone()))
        .unify()
        .or(account_profile::routes(state.clone()))
        .unify()
        .or(account::routes(state.clone()))
        .unify()
        .or(app::routes(state.clone()))
        .unify()
        .or(static_files::routes())
        .unify()
        .or(home::routes(state.clone()))
        .unify()
        .recover(reply::recover)
        .unify()
        .boxed()
}
