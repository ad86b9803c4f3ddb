//! `GET /documents/new` and `GET /templates/new`: the upload page. The file goes to `POST
//! /api/v1/documents/upload` (or `/templates/upload`; `assets/js/upload.js`), which makes the
//! draft (template) only once the file is accepted; then the editor (`/documents/{id}/edit`,
//! `/templates/{id}/edit`).

use askama::Template;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::nav::{Nav, Section};
use super::workspace::{Place, place};
use crate::core::error::AppError;
use crate::http::reply;
use crate::http::server::state::AppState;
use crate::http::session::{SignedIn, signed_in};

/// What is made from the PDF: its words, its API and where its editor is.
struct Kind {
    section: Section,
    heading: &'static str,
    intro: &'static str,
    /// The list it belongs to, and its name.
    back: (&'static str, &'static str),
    /// `POST` the PDF here (`?title=` follows).
    endpoint: &'static str,
    /// The answer's member with the new id, and the editor's path before it.
    id_key: &'static str,
    editor: &'static str,
}

const DOCUMENT: Kind = Kind {
    section: Section::Documents,
    heading: "New document",
    intro: "Upload the PDF to be signed. Next you add the recipients and place their fields.",
    back: ("/", "Documents"),
    endpoint: "/api/v1/documents/upload",
    id_key: "documentId",
    editor: "/documents/",
};

const TEMPLATE: Kind = Kind {
    section: Section::Templates,
    heading: "New template",
    intro: "Upload the PDF you send again and again. Next you add the recipients (roles such as \
            \"Tenant\" need no e-mail yet) and place their fields; each use of the template \
            then makes a document from it.",
    back: ("/templates", "Templates"),
    endpoint: "/api/v1/templates/upload",
    id_key: "templateId",
    editor: "/templates/",
};

#[derive(Template)]
#[template(path = "app/new_document.html")]
struct NewDocumentPage {
    nav: Nav,
    kind: &'static Kind,
    /// `--max-upload-mb`, for the hint (the server is what refuses).
    max_mb: u64,
}

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let document = place()
        .and(warp::path!("documents" / "new"))
        .and(warp::get())
        .and(signed_in(&state, "/documents/new"))
        .and(crate::http::with_state(state.clone()))
        .then(new_document)
        .map(reply::page);
    let template = place()
        .and(warp::path!("templates" / "new"))
        .and(warp::get())
        .and(signed_in(&state, "/templates/new"))
        .and(crate::http::with_state(state))
        .then(new_template)
        .map(reply::page);
    document.or(template).unify().boxed()
}

/// `GET /documents/new`.
async fn new_document(
    at: Place,
    who: SignedIn,
    state: AppState,
) -> Result<NewDocumentPage, AppError> {
    new_page(&DOCUMENT, at, who, state).await
}

/// `GET /templates/new`.
async fn new_template(
    at: Place,
    who: SignedIn,
    state: AppState,
) -> Result<NewDocumentPage, AppError> {
    new_page(&TEMPLATE, at, who, state).await
}

/// The upload page of `kind`.
async fn new_page(
    kind: &'static Kind,
    at: Place,
    (session, user): SignedIn,
    state: AppState,
) -> Result<NewDocumentPage, AppError> {
    Ok(NewDocumentPage {
        nav: Nav::of(&state, &session, &user, kind.section, &at).await?,
        kind,
        max_mb: state.config.max_upload_bytes / (1024 * 1024),
    })
}
