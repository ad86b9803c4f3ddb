//! `/api/v2/document...` and `/api/v2/template...`: the legacy reads (get, find, get-many)
//! over `signing::envelopes::reads`, numbers in the path taken as the Python client writes
//! them (`/document/7.0`).

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::wire::{DocumentIds, FindQuery, TemplateIds};
use super::{ok, reader};
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, TemplateId};
use crate::core::lenient::Int;
use crate::http::auth::caller;
use crate::http::body::{object, query};
use crate::http::server::state::AppState;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::signing::envelopes::legacy::{
    LegacyDocument, LegacyDocumentSummary, LegacyTemplate, LegacyTemplateSummary,
};
use crate::signing::envelopes::reads::{self, Kind};
use crate::signing::envelopes::{Many, Page, Reader};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let read = Scope::ReadDocument;
    let document = warp::path!("api" / "v2" / "document" / Int)
        .and(warp::get())
        .and(caller(&state, read))
        .and(reader())
        .then(document)
        .map(ok);
    let documents = warp::path!("api" / "v2" / "document")
        .and(warp::get())
        .and(caller(&state, read))
        .and(reader())
        .and(query::<FindQuery>())
        .then(documents)
        .map(ok);
    let documents_many = warp::path!("api" / "v2" / "document" / "get-many")
        .and(warp::post())
        .and(caller(&state, read))
        .and(reader())
        .and(object::<DocumentIds>())
        .then(documents_many)
        .map(ok);
    let template = warp::path!("api" / "v2" / "template" / Int)
        .and(warp::get())
        .and(caller(&state, read))
        .and(reader())
        .then(template)
        .map(ok);
    let templates = warp::path!("api" / "v2" / "template")
        .and(warp::get())
        .and(caller(&state, read))
        .and(reader())
        .and(query::<FindQuery>())
        .then(templates)
        .map(ok);
    let templates_many = warp::path!("api" / "v2" / "template" / "get-many")
        .and(warp::post())
        .and(caller(&state, read))
        .and(reader())
        .and(object::<TemplateIds>())
        .then(templates_many)
        .map(ok);
    document
        .or(documents)
        .unify()
        .or(documents_many)
        .unify()
        .or(template)
        .unify()
        .or(templates)
        .unify()
        .or(templates_many)
        .unify()
        .boxed()
}

/// A number from the path that names a row (a non-positive one names none: 404).
fn row(n: Int, what: &str) -> Result<i64, AppError> {
    (n.0 > 0)
        .then_some(n.0)
        .ok_or_else(|| AppError::not_found(what))
}

async fn document(
    id: Int,
    who: Principal,
    state: AppState,
    r: Reader,
) -> Result<LegacyDocument, AppError> {
    let id = DocumentId::new(row(id, "document")?);
    reads::legacy_document(&state.ctx(), &who, id, r).await
}

async fn documents(
    who: Principal,
    state: AppState,
    r: Reader,
    q: FindQuery,
) -> Result<Page<LegacyDocumentSummary>, AppError> {
    let find = q.find(Some(Kind::Document))?;
    let paging = (find.page, find.per_page);
    let (legacy, count) = reads::legacy_find(&state.ctx(), &who, find, r).await?;
    Ok(Page::of(legacy.documents, count, paging))
}

async fn documents_many(
    who: Principal,
    state: AppState,
    r: Reader,
    b: DocumentIds,
) -> Result<Many<LegacyDocumentSummary>, AppError> {
    let legacy = reads::legacy_many(&state.ctx(), &who, b.envelopes()?, r).await?;
    Ok(Many {
        data: legacy.documents,
    })
}

async fn template(
    id: Int,
    who: Principal,
    state: AppState,
    r: Reader,
) -> Result<LegacyTemplate, AppError> {
    let id = TemplateId::new(row(id, "template")?);
    reads::legacy_template(&state.ctx(), &who, id, r).await
}

async fn templates(
    who: Principal,
    state: AppState,
    r: Reader,
    q: FindQuery,
) -> Result<Page<LegacyTemplateSummary>, AppError> {
    let find = q.find(Some(Kind::Template))?;
    let paging = (find.page, find.per_page);
    let (legacy, count) = reads::legacy_find(&state.ctx(), &who, find, r).await?;
    Ok(Page::of(legacy.templates, count, paging))
}

async fn templates_many(
    who: Principal,
    state: AppState,
    r: Reader,
    b: TemplateIds,
) -> Result<Many<LegacyTemplateSummary>, AppError> {
    let legacy = reads::legacy_many(&state.ctx(), &who, b.envelopes()?, r).await?;
    Ok(Many {
        data: legacy.templates,
    })
}
