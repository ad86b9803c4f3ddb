//! The document API under `/api/v1/documents`:
//! routes and replies over `documents::manage`. Each route authenticates (`auth::principal`)
//! before it reads the body.

use crate::core::ids::{DocumentId, FieldId, RecipientId};

use serde::Deserialize;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::http::api::wire::documents::settings::UpdateDocumentRequest;
use crate::http::api::wire::documents::{
    create::CreateDocumentRequest, recipients::RecipientInput,
};
use crate::http::api::wire::fields::batch::{FieldBatch, FieldPatch};
use crate::http::auth::caller;
use crate::http::body::{object, shape};
use crate::http::reply::{answer, json_result, written};
use crate::http::server::state::AppState;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::oauth::identity::ApiAccount;
use crate::signing::documents::answers::{
    DocumentCreated, DocumentDeleted, DocumentList, FieldRemoved, FieldsAdded, RecipientRemoved,
};
use crate::signing::documents::audit::Origin;
use crate::signing::documents::check::Against;
use crate::signing::documents::settings;
use crate::signing::documents::view::DocumentView;
use crate::{
    signing::documents::RecipientBrief, signing::documents::Status,
    signing::documents::parse_paging,
};
use crate::{signing::documents::manage, signing::documents::manage::Listing};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    document_routes(state.clone())
        .or(recipient_routes(state.clone()))
        .unify()
        .or(field_routes(state))
        .unify()
        .boxed()
}

/// Create, list, read, delete.
fn document_routes(state: AppState) -> BoxedFilter<(Response,)> {
    let (read, write) = (Scope::ReadDocument, Scope::WriteDocument);
    let create = warp::path!("api" / "v1" / "documents")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<CreateDocumentRequest>())
        .and(crate::http::origin())
        .then(create)
        .map(answer);
    let list = warp::path!("api" / "v1" / "documents")
        .and(warp::get())
        .and(caller(&state, read))
        .and(crate::http::body::query::<ListQuery>())
        .then(list)
        .map(json_result);
    let get = warp::path!("api" / "v1" / "documents" / DocumentId)
        .and(warp::get())
        .and(caller(&state, read))
        .then(get)
        .map(json_result);
    let update = warp::path!("api" / "v1" / "documents" / DocumentId)
        .and(warp::patch())
        .and(caller(&state, write))
        .and(object::<UpdateDocumentRequest>())
        .then(update)
        .map(answer);
    let delete = warp::path!("api" / "v1" / "documents" / DocumentId)
        .and(warp::delete())
        .and(caller(&state, write))
        .and(crate::http::origin())
        .then(delete)
        .map(answer);
    // The account behind the key: the other signing service's clients test keys with it.
    let me = warp::path!("api" / "v1" / "me")
        .and(warp::get())
        .and(caller(&state, read))
        .then(me)
        .map(json_result);
    create
        .or(list)
        .unify()
        .or(get)
        .unify()
        .or(update)
        .unify()
        .or(delete)
        .unify()
        .or(me)
        .unify()
        .boxed()
}

/// Adding, changing and removing recipients.
fn recipient_routes(state: AppState) -> BoxedFilter<(Response,)> {
    let write = Scope::WriteDocument;
    let add = warp::path!("api" / "v1" / "documents" / DocumentId / "recipients")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<RecipientInput>())
        .then(add_recipient)
        .map(answer);
    let patch = warp::path!("api" / "v1" / "documents" / DocumentId / "recipients" / RecipientId)
        .and(warp::patch())
        .and(caller(&state, write))
        .and(object::<RecipientInput>())
        .and(crate::http::origin())
        .then(patch_recipient)
        .map(answer);
    let delete = warp::path!("api" / "v1" / "documents" / DocumentId / "recipients" / RecipientId)
        .and(warp::delete())
        .and(caller(&state, write))
        .then(delete_recipient)
        .map(answer);
    add.or(patch).unify().or(delete).unify().boxed()
}

/// Adding, changing and removing fields.
fn field_routes(state: AppState) -> BoxedFilter<(Response,)> {
    let write = Scope::WriteDocument;
    let add = warp::path!("api" / "v1" / "documents" / DocumentId / "fields")
        .and(warp::post())
        .and(caller(&state, write))
        .and(shape::<FieldBatch>())
        .then(add_fields)
        .map(answer);
    let patch = warp::path!("api" / "v1" / "documents" / DocumentId / "fields" / FieldId)
        .and(warp::patch())
        .and(caller(&state, write))
        .and(object::<FieldPatch>())
        .then(patch_field)
        .map(answer);
    let delete = warp::path!("api" / "v1" / "documents" / DocumentId / "fields" / FieldId)
        .and(warp::delete())
        .and(caller(&state, write))
        .then(delete_field)
        .map(answer);
    add.or(patch).unify().or(delete).unify().boxed()
}

/// `GET /api/v1/documents`'s query, as sent.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListQuery {
    page: Option<String>,
    per_page: Option<String>,
    status: Option<String>,
    query: Option<String>,
}

/// `POST /api/v1/documents`: the new draft, its recipients, and the signed URL its
/// PDF is to be uploaded to.
async fn create(
    who: Principal,
    state: AppState,
    body: CreateDocumentRequest,
    origin: Origin,
) -> Result<Response, AppError> {
    let created = manage::create(&state.ctx(), &who, body.validate()?, origin).await?;
    let briefs: Vec<RecipientBrief> = created
        .recipients
        .iter()
        .map(RecipientBrief::from)
        .collect();
    let upload_url = crate::http::api::uploads::upload_url(&state, &created.data_id);
    let made = DocumentCreated {
        upload_url,
        document_id: created.id,
        external_id: created.external_id,
        recipients: briefs,
    };
    written(&who, made)
}

/// `GET /api/v1/documents?page&perPage&status&query`.
async fn list(who: Principal, state: AppState, q: ListQuery) -> Result<DocumentList, AppError> {
    let (page, per_page) = parse_paging(q.page.as_deref(), q.per_page.as_deref())?;
    let status = match q.status.as_deref() {
        None => None,
        Some(s) => Some(Status::parse(s).ok_or_else(|| {
            AppError::bad_request("status must be DRAFT, PENDING, COMPLETED, REJECTED or CANCELLED")
        })?),
    };
    let listing = Listing {
        page,
        per_page,
        status,
        search: q.query,
        folder: Default::default(),
    };
    let (documents, total_pages) = manage::list(&state.ctx(), &who, listing).await?;
    Ok(DocumentList {
        documents,
        total_pages,
    })
}

/// `GET /api/v1/documents/{id}`.
async fn get(id: DocumentId, who: Principal, state: AppState) -> Result<DocumentView, AppError> {
    manage::get(&state.ctx(), &who, id).await
}

/// `PATCH /api/v1/documents/{id}`: the title, the external id and the meta.
async fn update(
    id: DocumentId,
    who: Principal,
    state: AppState,
    body: UpdateDocumentRequest,
) -> Result<Response, AppError> {
    written(
        &who,
        settings::update(&state.ctx(), &who, id, body.command()).await?,
    )
}

/// `DELETE /api/v1/documents/{id}`.
async fn delete(
    id: DocumentId,
    who: Principal,
    state: AppState,
    origin: Origin,
) -> Result<Response, AppError> {
    let r = manage::delete(&state.ctx(), &who, id, origin).await?;
    written(&who, DocumentDeleted::of(r.document, r.outcome))
}

/// `GET /api/v1/me`.
async fn me(who: Principal, state: AppState) -> Result<ApiAccount, AppError> {
    crate::oauth::identity::api_account(&state.ctx(), &who).await
}

/// `POST /api/v1/documents/{id}/recipients`.
async fn add_recipient(
    id: DocumentId,
    who: Principal,
    state: AppState,
    b: RecipientInput,
) -> Result<Response, AppError> {
    let r = b.validate()?;
    written(
        &who,
        manage::add_recipient(&state.ctx(), &who, id, Against::checked(r)).await?,
    )
}

/// `PATCH /api/v1/documents/{id}/recipients/{recipientId}`.
async fn patch_recipient(
    id: DocumentId,
    rid: RecipientId,
    who: Principal,
    state: AppState,
    b: RecipientInput,
    o: Origin,
) -> Result<Response, AppError> {
    b.validate_patch()?;
    let r = manage::patch_recipient(&state.ctx(), &who, (id, rid), b.patch(), o).await?;
    written(&who, r)
}

/// `DELETE /api/v1/documents/{id}/recipients/{recipientId}`.
async fn delete_recipient(
    id: DocumentId,
    rid: RecipientId,
    who: Principal,
    state: AppState,
) -> Result<Response, AppError> {
    let recipient = manage::delete_recipient(&state.ctx(), &who, (id, rid)).await?;
    let removed = RecipientRemoved {
        recipient,
        deleted: true,
    };
    written(&who, removed)
}

/// `POST /api/v1/documents/{id}/fields`: one field or an array of them.
async fn add_fields(
    id: DocumentId,
    who: Principal,
    state: AppState,
    b: FieldBatch,
) -> Result<Response, AppError> {
    let single = b.is_single();
    let fields = manage::add_fields(&state.ctx(), &who, id, b.command()).await?;
    written(&who, FieldsAdded::of(id, single, fields))
}

/// `PATCH /api/v1/documents/{id}/fields/{fieldId}`.
async fn patch_field(
    id: DocumentId,
    fid: FieldId,
    who: Principal,
    state: AppState,
    b: FieldPatch,
) -> Result<Response, AppError> {
    written(
        &who,
        manage::patch_field(&state.ctx(), &who, (id, fid), b.command()).await?,
    )
}

/// `DELETE /api/v1/documents/{id}/fields/{fieldId}`.
async fn delete_field(
    id: DocumentId,
    fid: FieldId,
    who: Principal,
    state: AppState,
) -> Result<Response, AppError> {
    let field = manage::delete_field(&state.ctx(), &who, (id, fid)).await?;
    let removed = FieldRemoved {
        field,
        deleted: true,
    };
    written(&who, removed)
}
