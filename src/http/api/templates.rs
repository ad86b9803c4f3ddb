//! The template API under `/api/v1/templates`: routes
//! and replies over `templates::manage`. Each route authenticates (`auth::principal`) before it
//! reads the body.

use crate::core::ids::TemplateId;

use serde::Deserialize;
use warp::Filter;

use crate::http::api::wire::fields::batch::FieldBatch;
use crate::http::api::wire::templates::create_document::CreateFromTemplateRequest;
use crate::http::api::wire::templates::generate::GenerateRequest;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::http::api::wire::documents::recipients::RecipientInput;
use crate::http::api::wire::templates::create::CreateTemplateRequest;
use crate::http::auth::caller;
use crate::http::body::{object, shape};
use crate::http::reply::{answer, json_result, written};
use crate::http::server::state::AppState;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::signing::documents::parse_paging;
use crate::signing::templates::TemplateView;
use crate::signing::templates::answers::{
    RecipientAdded, TemplateCreated, TemplateFieldsAdded, TemplateList, TemplateRemoved,
};
use crate::signing::templates::manage;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    template_routes(state.clone())
        .or(part_routes(state.clone()))
        .unify()
        .or(crate::http::api::template_edit::routes(state))
        .unify()
        .boxed()
}

/// Create, list, read, delete.
fn template_routes(state: AppState) -> BoxedFilter<(Response,)> {
    let (read, write) = (Scope::ReadDocument, Scope::WriteDocument);
    let create = warp::path!("api" / "v1" / "templates")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<CreateTemplateRequest>())
        .then(create)
        .map(answer);
    let list = warp::path!("api" / "v1" / "templates")
        .and(warp::get())
        .and(caller(&state, read))
        .and(crate::http::body::query::<ListQuery>())
        .then(list)
        .map(json_result);
    let get = warp::path!("api" / "v1" / "templates" / TemplateId)
        .and(warp::get())
        .and(caller(&state, read))
        .then(get)
        .map(json_result);
    let delete = warp::path!("api" / "v1" / "templates" / TemplateId)
        .and(warp::delete())
        .and(caller(&state, write))
        .then(delete)
        .map(answer);
    create
        .or(list)
        .unify()
        .or(get)
        .unify()
        .or(delete)
        .unify()
        .boxed()
}

/// Adding recipients and fields, and generating a document.
fn part_routes(state: AppState) -> BoxedFilter<(Response,)> {
    let write = Scope::WriteDocument;
    let add_recipient = warp::path!("api" / "v1" / "templates" / TemplateId / "recipients")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<RecipientInput>())
        .then(add_recipient)
        .map(answer);
    let add_fields = warp::path!("api" / "v1" / "templates" / TemplateId / "fields")
        .and(warp::post())
        .and(caller(&state, write))
        .and(shape::<FieldBatch>())
        .then(add_fields)
        .map(answer);
    let generate = warp::path!("api" / "v1" / "templates" / TemplateId / "generate-document")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<GenerateRequest>())
        .then(generate)
        .map(answer);
    // The other signing service's older form: recipients by position, `title` required.
    let create_document = warp::path!("api" / "v1" / "templates" / TemplateId / "create-document")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<CreateFromTemplateRequest>())
        .then(create_document)
        .map(answer);
    add_recipient
        .or(add_fields)
        .unify()
        .or(generate)
        .unify()
        .or(create_document)
        .unify()
        .boxed()
}

/// `GET /api/v1/templates`'s query, as sent.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListQuery {
    page: Option<String>,
    per_page: Option<String>,
}

/// `POST /api/v1/templates`: the template with its recipients, and the signed upload URL of its
/// PDF (the same `PUT` as for documents).
async fn create(
    who: Principal,
    state: AppState,
    body: CreateTemplateRequest,
) -> Result<Response, AppError> {
    let created = manage::create(&state.ctx(), &who, body.validate()?).await?;
    let made = TemplateCreated {
        template_id: created.id,
        upload_url: crate::http::api::uploads::upload_url(&state, &created.data_id),
        recipients: created.recipients,
        template: created.template,
    };
    written(&who, made)
}

/// `GET /api/v1/templates?page&perPage`.
async fn list(who: Principal, state: AppState, q: ListQuery) -> Result<TemplateList, AppError> {
    let paging = parse_paging(q.page.as_deref(), q.per_page.as_deref())?;
    let (templates, total_pages) = manage::list(&state.ctx(), &who, paging).await?;
    Ok(TemplateList {
        templates,
        total_pages,
    })
}

/// `GET /api/v1/templates/{id}`.
async fn get(id: TemplateId, who: Principal, state: AppState) -> Result<TemplateView, AppError> {
    manage::get(&state.ctx(), &who, id).await
}

/// `DELETE /api/v1/templates/{id}`: the template as it was (the other signing service's
/// answer), and docket's flag.
async fn delete(id: TemplateId, who: Principal, state: AppState) -> Result<Response, AppError> {
    let template = manage::delete(&state.ctx(), &who, id).await?;
    let removed = TemplateRemoved {
        template,
        deleted: true,
    };
    written(&who, removed)
}

/// `POST /api/v1/templates/{id}/recipients`: the recipient, with the template it belongs to.
async fn add_recipient(
    id: TemplateId,
    who: Principal,
    state: AppState,
    b: RecipientInput,
) -> Result<Response, AppError> {
    let recipient = manage::add_recipient(&state.ctx(), &who, id, b.add()).await?;
    let added = RecipientAdded {
        recipient,
        template_id: id,
    };
    written(&who, added)
}

/// `POST /api/v1/templates/{id}/fields`.
async fn add_fields(
    id: TemplateId,
    who: Principal,
    state: AppState,
    b: FieldBatch,
) -> Result<Response, AppError> {
    let fields = manage::add_fields(&state.ctx(), &who, id, b.command()).await?;
    let added = TemplateFieldsAdded {
        template_id: id,
        fields,
    };
    written(&who, added)
}

/// `POST /api/v1/templates/{id}/generate-document`.
async fn generate(
    id: TemplateId,
    who: Principal,
    state: AppState,
    b: GenerateRequest,
) -> Result<Response, AppError> {
    written(
        &who,
        manage::generate(&state.ctx(), &who, id, b.command()).await?,
    )
}

/// `POST /api/v1/templates/{id}/create-document`.
async fn create_document(
    id: TemplateId,
    who: Principal,
    state: AppState,
    b: CreateFromTemplateRequest,
) -> Result<Response, AppError> {
    written(
        &who,
        manage::generate(&state.ctx(), &who, id, b.command()).await?,
    )
}
