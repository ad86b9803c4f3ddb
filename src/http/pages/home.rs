//! `GET /`: signed out, the start page (what Docket is, and Sign in); signed in, the
//! dashboard of the web application (`app::dashboard`).

use std::collections::HashMap;

use askama::Template;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::http::reply::page;
use crate::http::server::state::AppState;
use crate::http::session::{SignedIn, optional};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    warp::path::end()
        .and(warp::get())
        .and(warp::query::<HashMap<String, String>>())
        .and(optional(&state))
        .and(crate::http::with_state(state))
        .then(|q, who: Option<SignedIn>, st| async move {
            match who {
                Some(signed) => crate::http::pages::app::dashboard::show(st, signed, q).await,
                None => page(Ok(Home)),
            }
        })
        .boxed()
}

/// The start page of a visitor who is not signed in.
#[derive(Template)]
#[template(path = "home.html")]
struct Home;
