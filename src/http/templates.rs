//! The template API under `/api/v1/templates` (spec documents.md; seed 2.4, 4.3, 4.4): thin
//! handlers over `crate::templates`.

use std::collections::HashMap;

use serde_json::{Value, json};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::auth::{authenticate_for, credentials};
use super::reply::json_result;
use super::with_state;
use crate::blob::BlobId;
use crate::db::now;
use crate::documents::check::Check;
use crate::documents::fields::parse_field;
use crate::documents::recipients::parse_recipient;
use crate::documents::{RecipientBrief, SigningLinks, check_tier, parse_paging, total_pages};
use crate::error::AppError;
use crate::http::state::AppState;
use crate::oauth::principal::Credentials;
use crate::oauth::scope::Scope;
use crate::templates::{self, store};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || with_state(state.clone());
    let json = || super::body::json::<Value>();
    let create = warp::path!("api" / "v1" / "templates")
        .and(warp::post())
        .and(credentials())
        .and(json())
        .and(s())
        .then(|c, b, st| async move { json_result(create(st, c, b).await) });
    let list = warp::path!("api" / "v1" / "templates")
        .and(warp::get())
        .and(credentials())
        .and(warp::query::<HashMap<String, String>>())
        .and(s())
        .then(|c, q, st| async move { json_result(list(st, c, q).await) });
    let get = warp::path!("api" / "v1" / "templates" / i64)
        .and(warp::get())
        .and(credentials())
        .and(s())
        .then(|id, c, st| async move { json_result(get(st, c, id).await) });
    let delete = warp::path!("api" / "v1" / "templates" / i64)
        .and(warp::delete())
        .and(credentials())
        .and(s())
        .then(|id, c, st| async move { json_result(delete(st, c, id).await) });
    let add_recipient = warp::path!("api" / "v1" / "templates" / i64 / "recipients")
        .and(warp::post())
        .and(credentials())
        .and(json())
        .and(s())
        .then(|id, c, b, st| async move { json_result(add_recipient(st, c, id, b).await) });
    let add_fields = warp::path!("api" / "v1" / "templates" / i64 / "fields")
        .and(warp::post())
        .and(credentials())
        .and(json())
        .and(s())
        .then(|id, c, b, st| async move { json_result(add_fields(st, c, id, b).await) });
    let generate = warp::path!("api" / "v1" / "templates" / i64 / "generate-document")
        .and(warp::post())
        .and(credentials())
        .and(json())
        .and(s())
        .then(|id, c, b, st| async move { json_result(generate(st, c, id, b).await) });
    create
        .or(list)
        .unify()
        .or(get)
        .unify()
        .or(delete)
        .unify()
        .or(add_recipient)
        .unify()
        .or(add_fields)
        .unify()
        .or(generate)
        .unify()
        .boxed()
}

/// `POST /api/v1/templates`: the template with its recipients, and the signed upload URL of its
/// PDF (the same `PUT` as for documents).
async fn create(state: AppState, creds: Credentials, body: Value) -> Result<Value, AppError> {
    let who = authenticate_for(&state, creds, Scope::WriteDocument).await?;
    let app = state.app_base();
    let data_id = crate::documents::new_data_id();
    let d = data_id.clone();
    let (id, recipients) = state
        .db
        .write(move |tx| {
            let t = templates::parse_create(&body, crate::users::store::tier(tx, who.user_id)?)?;
            let id = store::insert(tx, who.user_id, &t, &d, now())?;
            Ok((id, store::recipient_briefs(tx, id, &app)?))
        })
        .await?;
    let recipients = recipients.links_shown_if(who.sees_signing_links());
    Ok(json!({
        "templateId": id,
        "uploadUrl": super::uploads::upload_url(&state, &data_id),
        "recipients": recipients,
    }))
}

async fn list(
    state: AppState,
    creds: Credentials,
    q: HashMap<String, String>,
) -> Result<Value, AppError> {
    let who = authenticate_for(&state, creds, Scope::ReadDocument).await?;
    let (page, per_page) = parse_paging(
        q.get("page").map(String::as_str),
        q.get("perPage").map(String::as_str),
    )?;
    let (items, total) = state
        .db
        .read(move |c| store::list(c, who.user_id, per_page, (page - 1) * per_page))
        .await?;
    Ok(json!({"templates": items, "totalPages": total_pages(total, per_page)}))
}

/// `GET /api/v1/templates/{id}` (seed 4.4): the template as seed 2.4 shows it.
async fn get(state: AppState, creds: Credentials, id: i64) -> Result<Value, AppError> {
    let who = authenticate_for(&state, creds, Scope::ReadDocument).await?;
    let t = state
        .db
        .read(move |c| store::view(c, who.user_id, id))
        .await?;
    Ok(json!(t))
}

/// Deletes the template and its file; documents generated from it keep their own copies.
async fn delete(state: AppState, creds: Credentials, id: i64) -> Result<Value, AppError> {
    let who = authenticate_for(&state, creds, Scope::WriteDocument).await?;
    let blob = state
        .db
        .write(move |tx| {
            let t = store::owned(tx, who.user_id, id)?;
            store::delete(tx, &t)?;
            Ok(t.blob_id)
        })
        .await?;
    if let Some(b) = blob.and_then(|b| BlobId::parse(&b)) {
        let blobs = state.blobs.clone();
        let _ = tokio::task::spawn_blocking(move || blobs.delete(&b)).await;
    }
    Ok(json!({"id": id, "deleted": true}))
}

/// `POST /api/v1/templates/{id}/recipients`: as for documents; without an e-mail the recipient
/// gets the next placeholder address. Answers the recipient as seed 2.4 lists it.
async fn add_recipient(
    state: AppState,
    creds: Credentials,
    id: i64,
    body: Value,
) -> Result<Value, AppError> {
    let who = authenticate_for(&state, creds, Scope::WriteDocument).await?;
    let view = state
        .db
        .write(move |tx| {
            store::owned(tx, who.user_id, id)?;
            let raw = templates::with_placeholder(&body, store::next_placeholder(tx, id)?);
            let mut c = Check::new();
            let r = parse_recipient(&mut c, &raw, "");
            let r = c
                .finish(r)?
                .ok_or_else(|| AppError::bad_request("invalid recipient"))?;
            check_tier(
                &Default::default(),
                std::slice::from_ref(&r),
                crate::users::store::tier(tx, who.user_id)?,
            )?;
            let rid = store::insert_recipient(tx, id, &r, now())?;
            store::touch(tx, id, now())?;
            store::recipient(tx, id, rid)
        })
        .await?;
    let mut v = json!(view);
    v["templateId"] = json!(id);
    Ok(v)
}

/// `POST /api/v1/templates/{id}/fields`: one field or an array, validated against the
/// template's recipients and PDF; all or nothing. Answers them as seed 2.4 lists them.
async fn add_fields(
    state: AppState,
    creds: Credentials,
    id: i64,
    body: Value,
) -> Result<Value, AppError> {
    let who = authenticate_for(&state, creds, Scope::WriteDocument).await?;
    let fields = state
        .db
        .write(move |tx| {
            let t = store::owned(tx, who.user_id, id)?;
            let recipients = store::recipient_ids(tx, id)?;
            let ok = |rid: i64| recipients.contains(&rid);
            let items: Vec<(String, &Value)> = match &body {
                Value::Array(list) if list.is_empty() => {
                    return Err(AppError::bad_request("give at least one field"));
                }
                Value::Array(list) if list.len() > 500 => {
                    return Err(AppError::bad_request("at most 500 fields at once"));
                }
                Value::Array(list) => list
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (format!("[{i}]"), v))
                    .collect(),
                other => vec![(String::new(), other)],
            };
            let mut c = Check::new();
            let parsed: Vec<_> = items
                .iter()
                .filter_map(|(path, v)| parse_field(&mut c, v, path, t.pages(), &ok))
                .collect();
            let parsed = c.finish(parsed)?;
            let at = now();
            let mut ids = Vec::new();
            for f in &parsed {
                ids.push(store::insert_field(tx, id, f, at)?);
            }
            store::touch(tx, id, at)?;
            ids.iter()
                .map(|fid| store::field(tx, id, *fid))
                .collect::<Result<Vec<_>, _>>()
        })
        .await?;
    Ok(json!({"templateId": id, "fields": fields}))
}

/// `POST /api/v1/templates/{id}/generate-document` (seed 4.3): a DRAFT copy of the template
/// (recipients as the request names them, fields, meta, and a copy of the PDF).
async fn generate(
    state: AppState,
    creds: Credentials,
    id: i64,
    body: Value,
) -> Result<Value, AppError> {
    let who = authenticate_for(&state, creds, Scope::WriteDocument).await?;
    let user = who.user_id;
    // Validate first, so a bad request or a template without a file copies nothing.
    let b = body.clone();
    let source = state
        .db
        .read(move |c| {
            let t = store::owned(c, user, id)?;
            templates::parse_generate(
                &b,
                &store::base(c, &t)?,
                crate::users::store::tier(c, user)?,
            )?;
            t.blob_id
                .and_then(|b| BlobId::parse(&b))
                .ok_or_else(templates::no_file)
        })
        .await?;
    let blobs = state.blobs.clone();
    let src = source.clone();
    let copy = tokio::task::spawn_blocking(move || templates::copy_blob(&blobs, &src))
        .await
        .map_err(|e| AppError::internal(format!("copy task failed: {e}")))??;
    let app = state.app_base();
    let data_id = crate::documents::new_data_id();
    let file = copy.clone();
    let result = state
        .db
        .write(move |tx| {
            let tier = crate::users::store::tier(tx, user)?;
            let t = now();
            let (doc, recipients) = templates::generate(
                tx,
                user,
                id,
                &body,
                tier,
                source.as_str(),
                &file,
                &data_id,
                &app,
                t,
            )?;
            let view = crate::documents::store::view(tx, user, doc, &app)?;
            let owner = crate::documents::store::owner_email(tx, user)?;
            let actor = crate::documents::audit::Actor {
                label: owner,
                ..Default::default()
            };
            crate::signing::notify::created(tx, &view, &actor, t)?;
            Ok((doc, recipients))
        })
        .await;
    state.workers.webhooks.wake();
    match result {
        Ok((doc, recipients)) => {
            let briefs: Vec<RecipientBrief> = recipients.iter().map(RecipientBrief::from).collect();
            let briefs = briefs.links_shown_if(who.sees_signing_links());
            Ok(json!({"documentId": doc, "recipients": briefs}))
        }
        Err(e) => {
            let blobs = state.blobs.clone();
            let _ = tokio::task::spawn_blocking(move || blobs.delete(&copy.id)).await;
            Err(e)
        }
    }
}
