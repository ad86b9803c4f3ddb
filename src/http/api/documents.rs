//! The document API under `/api/v1/documents`:
//! routes and replies over `documents::manage`. Each route authenticates (`auth::principal`)
//! before it reads the body.

use crate::core::ids::{DocumentId, FieldId, RecipientId};
use std::collections::HashMap;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::http::auth::caller;
use crate::http::reply::{json_result, write_result};
use crate::http::server::state::AppState;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::signing::documents::answers::{
    DocumentCreated, DocumentDeleted, DocumentList, FieldRemoved, FieldsAdded, RecipientRemoved,
};
use crate::signing::documents::check::Against;
use crate::signing::documents::field_request::{FieldBatch, FieldPatch};
use crate::signing::documents::settings::{self, UpdateDocumentRequest};
use crate::{
    signing::documents::RecipientBrief, signing::documents::Status,
    signing::documents::parse_paging,
};
use crate::{signing::documents::manage, signing::documents::manage::Listing};
use crate::{
    signing::documents::request::CreateDocumentRequest, signing::documents::request::RecipientInput,
};

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
        .and(crate::http::body::object::<CreateDocumentRequest>())
        .and(crate::http::origin())
        .then(|who: Principal, st, b, o| async move {
            write_result(&who.clone(), create(st, who, b, o).await)
        });
    let list = warp::path!("api" / "v1" / "documents")
        .and(warp::get())
        .and(caller(&state, read))
        .and(warp::query::<HashMap<String, String>>())
        .then(|who, st, q| async move { json_result(list(st, who, q).await) });
    let get = warp::path!("api" / "v1" / "documents" / DocumentId)
        .and(warp::get())
        .and(caller(&state, read))
        .then(|id, who: Principal, st: AppState| async move {
            json_result(manage::get(&st.ctx(), &who, id).await)
        });
    let update = warp::path!("api" / "v1" / "documents" / DocumentId)
        .and(warp::patch())
        .and(caller(&state, write))
        .and(crate::http::body::object::<UpdateDocumentRequest>())
        .then(
            |id, who: Principal, st: AppState, b: UpdateDocumentRequest| async move {
                write_result(
                    &who,
                    settings::update(&st.ctx(), &who, id, b.command()).await,
                )
            },
        );
    let delete = warp::path!("api" / "v1" / "documents" / DocumentId)
        .and(warp::delete())
        .and(caller(&state, write))
        .and(crate::http::origin())
        .then(|id, who: Principal, st: AppState, o| async move {
            let r = manage::delete(&st.ctx(), &who, id, o).await;
            write_result(&who, r.map(|r| DocumentDeleted::of(r.document, r.outcome)))
        });
    // The account behind the key: the other signing service's clients test keys with it.
    let me = warp::path!("api" / "v1" / "me")
        .and(warp::get())
        .and(caller(&state, read))
        .then(|who: Principal, st: AppState| async move {
            json_result(crate::oauth::identity::api_account(&st.ctx(), &who).await)
        });
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
        .and(crate::http::body::object::<RecipientInput>())
        .then(
            |id, who: Principal, st: AppState, b: RecipientInput| async move {
                let r = match b.validate() {
                    Ok(r) => manage::add_recipient(&st.ctx(), &who, id, Against::checked(r)).await,
                    Err(e) => Err(e),
                };
                write_result(&who, r)
            },
        );
    let patch = warp::path!("api" / "v1" / "documents" / DocumentId / "recipients" / RecipientId)
        .and(warp::patch())
        .and(caller(&state, write))
        .and(crate::http::body::object::<RecipientInput>())
        .and(crate::http::origin())
        .then(
            |id, rid, who: Principal, st: AppState, b: RecipientInput, o| async move {
                let r = match b.validate_patch() {
                    Ok(()) => {
                        manage::patch_recipient(&st.ctx(), &who, (id, rid), b.patch(), o).await
                    }
                    Err(e) => Err(e),
                };
                write_result(&who, r)
            },
        );
    let delete = warp::path!("api" / "v1" / "documents" / DocumentId / "recipients" / RecipientId)
        .and(warp::delete())
        .and(caller(&state, write))
        .then(|id, rid, who: Principal, st: AppState| async move {
            let r = manage::delete_recipient(&st.ctx(), &who, (id, rid)).await;
            let removed = |recipient| RecipientRemoved {
                recipient,
                deleted: true,
            };
            write_result(&who, r.map(removed))
        });
    add.or(patch).unify().or(delete).unify().boxed()
}

/// Adding, changing and removing fields.
fn field_routes(state: AppState) -> BoxedFilter<(Response,)> {
    let write = Scope::WriteDocument;
    let add = warp::path!("api" / "v1" / "documents" / DocumentId / "fields")
        .and(warp::post())
        .and(caller(&state, write))
        .and(crate::http::body::shape::<FieldBatch>())
        .then(
            |id, who: Principal, st: AppState, b: FieldBatch| async move {
                let single = b.is_single();
                let r = manage::add_fields(&st.ctx(), &who, id, b.command()).await;
                write_result(&who, r.map(|f| FieldsAdded::of(id, single, f)))
            },
        );
    let patch = warp::path!("api" / "v1" / "documents" / DocumentId / "fields" / FieldId)
        .and(warp::patch())
        .and(caller(&state, write))
        .and(crate::http::body::object::<FieldPatch>())
        .then(
            |id, fid, who: Principal, st: AppState, b: FieldPatch| async move {
                let r = manage::patch_field(&st.ctx(), &who, (id, fid), b.command()).await;
                write_result(&who, r)
            },
        );
    let delete = warp::path!("api" / "v1" / "documents" / DocumentId / "fields" / FieldId)
        .and(warp::delete())
        .and(caller(&state, write))
        .then(|id, fid, who: Principal, st: AppState| async move {
            let r = manage::delete_field(&st.ctx(), &who, (id, fid)).await;
            let removed = |field| FieldRemoved {
                field,
                deleted: true,
            };
            write_result(&who, r.map(removed))
        });
    add.or(patch).unify().or(delete).unify().boxed()
}

/// `POST /api/v1/documents`: the new draft, its recipients, and the signed URL its
/// PDF is to be uploaded to.
async fn create(
    state: AppState,
    who: Principal,
    body: CreateDocumentRequest,
    origin: crate::signing::documents::audit::Origin,
) -> Result<DocumentCreated, AppError> {
    let created = manage::create(&state.ctx(), &who, body.validate()?, origin).await?;
    let briefs: Vec<RecipientBrief> = created
        .recipients
        .iter()
        .map(RecipientBrief::from)
        .collect();
    Ok(DocumentCreated {
        upload_url: crate::http::api::uploads::upload_url(&state, &created.data_id),
        document_id: created.id,
        external_id: created.external_id,
        recipients: briefs,
    })
}

/// `GET /api/v1/documents?page&perPage&status&query`.
async fn list(
    state: AppState,
    who: Principal,
    q: HashMap<String, String>,
) -> Result<DocumentList, AppError> {
    let (page, per_page) = parse_paging(
        q.get("page").map(String::as_str),
        q.get("perPage").map(String::as_str),
    )?;
    let status = match q.get("status") {
        None => None,
        Some(s) => Some(Status::parse(s).ok_or_else(|| {
            AppError::bad_request("status must be DRAFT, PENDING, COMPLETED, REJECTED or CANCELLED")
        })?),
    };
    let listing = Listing {
        page,
        per_page,
        status,
        search: q.get("query").cloned(),
    };
    let (documents, total_pages) = manage::list(&state.ctx(), &who, listing).await?;
    Ok(DocumentList {
        documents,
        total_pages,
    })
}
