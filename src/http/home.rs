//! The start page at `/`.

use askama::Template;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::reply::page;

pub fn routes() -> BoxedFilter<(Response,)> {
    warp::path::end()
        .and(warp::get())
        .map(|| page(Ok(Home)))
        .boxed()
}

#[derive(Template)]
#[template(path = "home.html")]
struct Home;
