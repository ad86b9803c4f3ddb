//! The template API's editing routes (what the web application's editor calls for a template):
//! `PATCH /api/v1/templates/{id}`, `PATCH` and `DELETE` of its recipients and fields, and
//! `POST /api/v1/templates/{id}/duplicate`; replies over `templates::edit`; and
//! `POST /api/v1/documents/{id}/template`, a template made from a document
//! (`templates::from_document`). The bodies are the
//! documents' own shapes (`UpdateDocumentRequest`, `RecipientInput`, `FieldPatch`). And the
//! template's direct link, `GET` and `PUT /api/v1/templates/{id}/direct-link`
//! (`templates::direct`).

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::core::ids::{DocumentId, FieldId, RecipientId, TemplateId};
use crate::http::api::wire::documents::recipients::RecipientInput;
use crate::http::api::wire::documents::settings::UpdateDocumentRequest;
use crate::http::api::wire::fields::batch::FieldPatch;
use crate::http::api::wire::templates::direct_link::DirectLinkRequest;
use crate::http::auth::caller;
use crate::http::body::object;
use crate::http::reply::{answer, written};
use crate::http::server::state::AppState;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::signing::templates::answers::{TemplateFieldRemoved, TemplateRecipientRemoved};
use crate::signing::templates::direct;
use crate::signing::templates::edit;
use crate::signing::templates::from_document;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    template_routes(state.clone())
        .or(part_routes(state))
        .unify()
        .boxed()
}

/// The template itself: its settings, a copy, its direct link; a template from a document.
fn template_routes(state: AppState) -> BoxedFilter<(Response,)> {
    let write = Scope::WriteDocument;
    let update = warp::path!("api" / "v1" / "templates" / TemplateId)
        .and(warp::patch())
        .and(caller(&state, write))
        .and(object::<UpdateDocumentRequest>())
        .then(update)
        .map(answer);
    let duplicate = warp::path!("api" / "v1" / "templates" / TemplateId / "duplicate")
        .and(warp::post())
        .and(caller(&state, write))
        .then(duplicate)
        .map(answer);
    let from_document = warp::path!("api" / "v1" / "documents" / DocumentId / "template")
        .and(warp::post())
        .and(caller(&state, write))
        .then(save_as_template)
        .map(answer);
    let direct_link = warp::path!("api" / "v1" / "templates" / TemplateId / "direct-link");
    let get_direct = direct_link
        .and(warp::get())
        .and(caller(&state, Scope::ReadDocument))
        .then(get_direct)
        .map(answer);
    let set_direct = direct_link
        .and(warp::put())
        .and(caller(&state, write))
        .and(object::<DirectLinkRequest>())
        .then(set_direct)
        .map(answer);
    update
        .or(get_direct)
        .unify()
        .or(set_direct)
        .unify()
        .or(duplicate)
        .unify()
        .or(from_document)
        .unify()
        .boxed()
}

/// Changing and removing its recipients and fields.
fn part_routes(state: AppState) -> BoxedFilter<(Response,)> {
    let write = Scope::WriteDocument;
    let recipient =
        warp::path!("api" / "v1" / "templates" / TemplateId / "recipients" / RecipientId);
    let patch_recipient = recipient
        .and(warp::patch())
        .and(caller(&state, write))
        .and(object::<RecipientInput>())
        .then(patch_recipient)
        .map(answer);
    let delete_recipient = recipient
        .and(warp::delete())
        .and(caller(&state, write))
        .then(delete_recipient)
        .map(answer);
    let field = warp::path!("api" / "v1" / "templates" / TemplateId / "fields" / FieldId);
    let patch_field = field
        .and(warp::patch())
        .and(caller(&state, write))
        .and(object::<FieldPatch>())
        .then(patch_field)
        .map(answer);
    let delete_field = field
        .and(warp::delete())
        .and(caller(&state, write))
        .then(delete_field)
        .map(answer);
    patch_recipient
        .or(delete_recipient)
        .unify()
        .or(patch_field)
        .unify()
        .or(delete_field)
        .unify()
        .boxed()
}

/// `PATCH /api/v1/templates/{id}`.
async fn update(
    id: TemplateId,
    who: Principal,
    state: AppState,
    b: UpdateDocumentRequest,
) -> Result<Response, AppError> {
    written(
        &who,
        edit::update(&state.ctx(), &who, id, b.command()).await?,
    )
}

/// `POST /api/v1/templates/{id}/duplicate`.
async fn duplicate(id: TemplateId, who: Principal, state: AppState) -> Result<Response, AppError> {
    written(&who, edit::duplicate(&state.ctx(), &who, id).await?)
}

/// `POST /api/v1/documents/{id}/template`.
async fn save_as_template(
    id: DocumentId,
    who: Principal,
    state: AppState,
) -> Result<Response, AppError> {
    written(&who, from_document::save(&state.ctx(), &who, id).await?)
}

/// `PATCH /api/v1/templates/{id}/recipients/{recipientId}`.
async fn patch_recipient(
    id: TemplateId,
    rid: RecipientId,
    who: Principal,
    state: AppState,
    b: RecipientInput,
) -> Result<Response, AppError> {
    written(
        &who,
        edit::patch_recipient(&state.ctx(), &who, (id, rid), b.patch()).await?,
    )
}

/// `DELETE /api/v1/templates/{id}/recipients/{recipientId}`.
async fn delete_recipient(
    id: TemplateId,
    rid: RecipientId,
    who: Principal,
    state: AppState,
) -> Result<Response, AppError> {
    let recipient = edit::delete_recipient(&state.ctx(), &who, (id, rid)).await?;
    let removed = TemplateRecipientRemoved {
        recipient,
        deleted: true,
    };
    written(&who, removed)
}

/// `PATCH /api/v1/templates/{id}/fields/{fieldId}`.
async fn patch_field(
    id: TemplateId,
    fid: FieldId,
    who: Principal,
    state: AppState,
    b: FieldPatch,
) -> Result<Response, AppError> {
    written(
        &who,
        edit::patch_field(&state.ctx(), &who, (id, fid), b.command()).await?,
    )
}

/// `DELETE /api/v1/templates/{id}/fields/{fieldId}`.
async fn delete_field(
    id: TemplateId,
    fid: FieldId,
    who: Principal,
    state: AppState,
) -> Result<Response, AppError> {
    let field = edit::delete_field(&state.ctx(), &who, (id, fid)).await?;
    let removed = TemplateFieldRemoved {
        field,
        deleted: true,
    };
    written(&who, removed)
}

/// `GET /api/v1/templates/{id}/direct-link`.
async fn get_direct(id: TemplateId, who: Principal, state: AppState) -> Result<Response, AppError> {
    written(&who, direct::get(&state.ctx(), &who, id).await?)
}

/// `PUT /api/v1/templates/{id}/direct-link`.
async fn set_direct(
    id: TemplateId,
    who: Principal,
    state: AppState,
    b: DirectLinkRequest,
) -> Result<Response, AppError> {
    written(
        &who,
        direct::set(&state.ctx(), &who, id, b.validate()?).await?,
    )
}
