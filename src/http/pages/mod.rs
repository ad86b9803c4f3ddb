//! The pages people visit, rendered on the server from askama templates: sign-in and account,
//! the owner's web application (`app`), the signing and direct-link pages (and `embed`, the
//! same in a frame), and the embedded assets they load.

pub mod account;
pub mod account_confirm;
pub mod account_factors;
pub mod account_profile;
pub mod app;
pub mod direct_page;
pub mod embed;
pub mod home;
pub mod login;
pub mod page;
pub mod page_image;
pub mod password_reset;
pub mod second_factor;
pub mod signing_page;
pub mod signup;
pub mod static_files;
pub mod team_invitation;
pub mod verify_page;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::http::server::state::AppState;

/// This audience's routes, in the order they are tried.
pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    signing_page::routes(state.clone())
        .or(signup::routes(state.clone()))
        .unify()
        .or(second_factor::routes(state.clone()))
        .unify()
        .or(password_reset::routes(state.clone()))
        .unify()
        .or(team_invitation::routes(state.clone()))
        .unify()
        .or(direct_page::routes(state.clone()))
        .unify()
        .or(embed::routes(state.clone()))
        .unify()
        .or(verify_page::routes(state.clone()))
        .unify()
        .or(login::routes(state.clone()))
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
        .boxed()
}
