//! `GET /`: signed out, the start page (what Docket is, and Sign in); signed in, the
//! dashboard of the web application (`app::dashboard`).

use std::collections::HashMap;

use askama::Template;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::reply::page;
use super::session::{SignedIn, optional};
use super::state::AppState;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    warp::path::end()
        .and(warp::get())
        .and(warp::query::<HashMap<String, String>>())
        .and(optional(&state))
        .and(super::with_state(state))
        .then(|q, who: Option<SignedIn>, st| async move {
            match who {
                Some(signed) => super::app::dashboard::show(st, signed, q).await,
                None => page(Ok(Home)),
            }
        })
        .boxed()
}

/// The start page of a visitor who is not signed in.
#[derive(Template)]
#[template(path = "home.html")]
struct Home;
