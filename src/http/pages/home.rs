//! `GET /`: signed out, the start page (what Docket is, and Sign in); signed in, the
//! dashboard of the web application (`app::dashboard`).

use askama::Template;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::http::pages::app::dashboard::{self, DashboardQuery};
use crate::http::pages::app::workspace::Place;
use crate::http::reply::{self, page};
use crate::http::server::state::AppState;
use crate::http::session::{SignedIn, optional};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    warp::path::end()
        .and(warp::get())
        .and(crate::http::body::query::<DashboardQuery>())
        .and(optional(&state))
        .and(crate::http::with_state(state))
        .then(home)
        .map(reply::answer)
        .boxed()
}

/// `GET /`: the dashboard of a signed-in user, else the start page.
async fn home(
    q: DashboardQuery,
    who: Option<SignedIn>,
    state: AppState,
) -> Result<Response, AppError> {
    match who {
        Some(signed) => dashboard::show(state, Place::Personal, signed, q).await,
        None => Ok(page(Ok(Home))),
    }
}

/// The start page of a visitor who is not signed in.
#[derive(Template)]
#[template(path = "home.html")]
struct Home;
