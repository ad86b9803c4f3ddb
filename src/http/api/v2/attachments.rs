//! `/api/v2/envelope/attachment...` (by envelope id) and `/api/v2/document/attachment...` (by
//! document number): find, create, update and delete the links of a document or template,
//! over `signing::envelopes::attachments` (the use cases of `signing::attachments`). Update
//! and delete name the attachment by its id, the same under either prefix.

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::ok;
use super::wire_attachments::{
    CreateDocumentAttachment, CreateEnvelopeAttachment, DeleteAttachment, DocumentAttachmentQuery,
    EnvelopeAttachmentQuery, UpdateAttachment,
};
use crate::core::error::AppError;
use crate::http::auth::caller;
use crate::http::body::{object, query};
use crate::http::server::state::AppState;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::signing::attachments::AttachmentView;
use crate::signing::envelopes::Many;
use crate::signing::envelopes::attachments::{self, Created};
use crate::signing::envelopes::changes::Success;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let (read, write) = (Scope::ReadDocument, Scope::WriteDocument);
    let envelope_find = warp::path!("api" / "v2" / "envelope" / "attachment")
        .and(warp::get())
        .and(caller(&state, read))
        .and(query::<EnvelopeAttachmentQuery>())
        .then(envelope_find)
        .map(ok);
    let envelope_create = warp::path!("api" / "v2" / "envelope" / "attachment" / "create")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<CreateEnvelopeAttachment>())
        .then(envelope_create)
        .map(ok);
    let envelope_update = warp::path!("api" / "v2" / "envelope" / "attachment" / "update")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<UpdateAttachment>())
        .then(update)
        .map(ok);
    let envelope_delete = warp::path!("api" / "v2" / "envelope" / "attachment" / "delete")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<DeleteAttachment>())
        .then(delete)
        .map(ok);
    let document_find = warp::path!("api" / "v2" / "document" / "attachment")
        .and(warp::get())
        .and(caller(&state, read))
        .and(query::<DocumentAttachmentQuery>())
        .then(document_find)
        .map(ok);
    let document_create = warp::path!("api" / "v2" / "document" / "attachment" / "create")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<CreateDocumentAttachment>())
        .then(document_create)
        .map(ok);
    let document_update = warp::path!("api" / "v2" / "document" / "attachment" / "update")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<UpdateAttachment>())
        .then(update)
        .map(ok);
    let document_delete = warp::path!("api" / "v2" / "document" / "attachment" / "delete")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<DeleteAttachment>())
        .then(delete)
        .map(ok);
    envelope_find
        .or(envelope_create)
        .unify()
        .or(envelope_update)
        .unify()
        .or(envelope_delete)
        .unify()
        .or(document_find)
        .unify()
        .or(document_create)
        .unify()
        .or(document_update)
        .unify()
        .or(document_delete)
        .unify()
        .boxed()
}

async fn envelope_find(
    who: Principal,
    state: AppState,
    q: EnvelopeAttachmentQuery,
) -> Result<Many<AttachmentView>, AppError> {
    attachments::find(&state.ctx(), &who, q.parent()?).await
}

async fn document_find(
    who: Principal,
    state: AppState,
    q: DocumentAttachmentQuery,
) -> Result<Many<AttachmentView>, AppError> {
    attachments::find(&state.ctx(), &who, q.parent()?).await
}

async fn envelope_create(
    who: Principal,
    state: AppState,
    b: CreateEnvelopeAttachment,
) -> Result<Created, AppError> {
    let (parent, new) = b.command()?;
    attachments::create(&state.ctx(), &who, parent, new).await
}

async fn document_create(
    who: Principal,
    state: AppState,
    b: CreateDocumentAttachment,
) -> Result<Created, AppError> {
    let (parent, new) = b.command()?;
    attachments::create(&state.ctx(), &who, parent, new).await
}

async fn update(who: Principal, state: AppState, b: UpdateAttachment) -> Result<Success, AppError> {
    let (id, new) = b.command()?;
    attachments::update(&state.ctx(), &who, &id, new).await
}

async fn delete(who: Principal, state: AppState, b: DeleteAttachment) -> Result<Success, AppError> {
    attachments::delete(&state.ctx(), &who, &b.id()?).await
}
