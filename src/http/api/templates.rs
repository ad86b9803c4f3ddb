//! The template API under `/api/v1/templates`: routes
//! and replies over `templates::manage`. Each route authenticates (`auth::principal`) before it
//! reads the body.

use crate::core::ids::TemplateId;
use std::collections::HashMap;

use warp::Filter;

use crate::signing::documents::field_request::FieldBatch;
use crate::signing::templates::generate_request::{CreateFromTemplateRequest, GenerateRequest};
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::http::auth::caller;
use crate::http::reply::{json_result, write_result};
use crate::http::server::state::AppState;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::signing::documents::parse_paging;
use crate::signing::documents::request::RecipientInput;
use crate::signing::templates::answers::{
    RecipientAdded, TemplateCreated, TemplateFieldsAdded, TemplateList, TemplateRemoved,
};
use crate::signing::templates::manage;
use crate::signing::templates::request::CreateTemplateRequest;

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
        .and(crate::http::body::object::<CreateTemplateRequest>())
        .then(|who: Principal, st, b| async move {
            write_result(&who.clone(), create(st, who, b).await)
        });
    let list = warp::path!("api" / "v1" / "templates")
        .and(warp::get())
        .and(caller(&state, read))
        .and(warp::query::<HashMap<String, String>>())
        .then(|who, st, q| async move { json_result(list(st, who, q).await) });
    let get = warp::path!("api" / "v1" / "templates" / TemplateId)
        .and(warp::get())
        .and(caller(&state, read))
        .then(|id, who: Principal, st: AppState| async move {
            json_result(manage::get(&st.ctx(), &who, id).await)
        });
    let delete = warp::path!("api" / "v1" / "templates" / TemplateId)
        .and(warp::delete())
        .and(caller(&state, write))
        .then(|id, who: Principal, st: AppState| async move {
            let r = manage::delete(&st.ctx(), &who, id).await;
            // The template as it was (the other signing service's answer), and docket's flag.
            let removed = |template| TemplateRemoved {
                template,
                deleted: true,
            };
            write_result(&who, r.map(removed))
        });
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
        .and(crate::http::body::object::<RecipientInput>())
        .then(
            |id, who: Principal, st: AppState, b: RecipientInput| async move {
                let r = manage::add_recipient(&st.ctx(), &who, id, b.add()).await;
                // The recipient, with the template it belongs to.
                let added = |recipient| RecipientAdded {
                    recipient,
                    template_id: id,
                };
                write_result(&who, r.map(added))
            },
        );
    let add_fields = warp::path!("api" / "v1" / "templates" / TemplateId / "fields")
        .and(warp::post())
        .and(caller(&state, write))
        .and(crate::http::body::shape::<FieldBatch>())
        .then(
            |id, who: Principal, st: AppState, b: FieldBatch| async move {
                let r = manage::add_fields(&st.ctx(), &who, id, b.command()).await;
                let added = |fields| TemplateFieldsAdded {
                    template_id: id,
                    fields,
                };
                write_result(&who, r.map(added))
            },
        );
    let generate = warp::path!("api" / "v1" / "templates" / TemplateId / "generate-document")
        .and(warp::post())
        .and(caller(&state, write))
        .and(crate::http::body::object::<GenerateRequest>())
        .then(|id, who: Principal, st: AppState, b| async move {
            let r = manage::generate(&st.ctx(), &who, id, b).await;
            write_result(&who, r)
        });
    // The other signing service's older form: recipients by position, `title` required.
    let create_document = warp::path!("api" / "v1" / "templates" / TemplateId / "create-document")
        .and(warp::post())
        .and(caller(&state, write))
        .and(crate::http::body::object::<CreateFromTemplateRequest>())
        .then(|id, who: Principal, st: AppState, b| async move {
            let r = manage::create_document(&st.ctx(), &who, id, b).await;
            write_result(&who, r)
        });
    add_recipient
        .or(add_fields)
        .unify()
        .or(generate)
        .unify()
        .or(create_document)
        .unify()
        .boxed()
}

/// `POST /api/v1/templates`: the template with its recipients, and the signed upload URL of its
/// PDF (the same `PUT` as for documents).
async fn create(
    state: AppState,
    who: Principal,
    body: CreateTemplateRequest,
) -> Result<TemplateCreated, AppError> {
    let created = manage::create(&state.ctx(), &who, body.validate()?).await?;
    Ok(TemplateCreated {
        template_id: created.id,
        upload_url: crate::http::api::uploads::upload_url(&state, &created.data_id),
        recipients: created.recipients,
        template: created.template,
    })
}

/// `GET /api/v1/templates?page&perPage`.
async fn list(
    state: AppState,
    who: Principal,
    q: HashMap<String, String>,
) -> Result<TemplateList, AppError> {
    let paging = parse_paging(
        q.get("page").map(String::as_str),
        q.get("perPage").map(String::as_str),
    )?;
    let (templates, total_pages) = manage::list(&state.ctx(), &who, paging).await?;
    Ok(TemplateList {
        templates,
        total_pages,
    })
}
