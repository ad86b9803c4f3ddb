//! The web application for document owners: the pages a signed-in user works in (dashboard,
//! new document, editor, document page, templates: list, details, use, bulk send and its runs; settings: API tokens,
//! webhooks, embedding) and what they share (`nav`, the page chrome; `preview`,
//! the document's rendered pages). Each page calls the same use cases as the API, with the
//! user's browser as the principal (`Principal::browser`); the pages' scripts call `/api/v1`
//! itself with the session and the `X-CSRF-Token` of `session::APP` (`http::auth`).

mod as_template;
pub mod attachments;
mod bulk_send;
mod bulk_sends;
pub mod dashboard;
pub mod document;
pub mod editor;
pub(crate) mod editor_form;
pub mod error_page;
pub mod folders;
mod moves;
pub mod nav;
pub mod preview;
pub mod settings;
mod settings_delete;
mod settings_embedding;
mod settings_general;
mod settings_members;
mod settings_tokens;
mod settings_webhook;
mod settings_webhooks;
pub mod teams;
pub mod template_use;
pub mod templates;
pub mod timeline;
pub mod upload;
pub mod workspace;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::http::server::state::AppState;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    dashboard::routes(state.clone())
        .or(preview::routes(state.clone()))
        .unify()
        .or(editor::routes(state.clone()))
        .unify()
        .or(upload::routes(state.clone()))
        .unify()
        .or(templates::routes(state.clone()))
        .unify()
        .or(template_use::routes(state.clone()))
        .unify()
        .or(bulk_send::routes(state.clone()))
        .unify()
        .or(bulk_sends::routes(state.clone()))
        .unify()
        .or(document::routes(state.clone()))
        .unify()
        .or(moves::routes(state.clone()))
        .unify()
        .or(folders::routes(state.clone()))
        .unify()
        .or(as_template::routes(state.clone()))
        .unify()
        .or(attachments::routes(state.clone()))
        .unify()
        .or(settings::routes(state.clone()))
        .unify()
        .or(teams::routes(state))
        .unify()
        .boxed()
}
