//! The document API under `/api/v1/documents` (spec documents.md; seed 4.1, 4.5, 4.6, 4.7):
//! thin handlers over `crate::documents`.

use std::collections::HashMap;

use serde_json::{Value, json};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::auth::{authenticate_for, credentials};
use super::reply::json_result;
use super::with_state;
use crate::db::now;
use crate::documents::check::Check;
use crate::documents::fields::parse_field;
use crate::documents::recipients::parse_recipient;
use crate::documents::store::{self, Deleted};
use crate::documents::{self, RecipientBrief, SigningLinks, Status, parse_paging, total_pages};
use crate::error::AppError;
use crate::http::state::AppState;
use crate::oauth::principal::Credentials;
use crate::oauth::scope::Scope;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || with_state(state.clone());
    let json = || super::body::json::<Value>();
    let create = warp::path!("api" / "v1" / "documents")
        .and(warp::post())
        .and(credentials())
        .and(json())
        .and(super::origin())
        .and(s())
        .then(|c, b, o, st| async move { json_result(create(st, c, b, o).await) });
    let list = warp::path!("api" / "v1" / "documents")
        .and(warp::get())
        .and(credentials())
        .and(warp::query::<HashMap<String, String>>())
        .and(s())
        .then(|c, q, st| async move { json_result(list(st, c, q).await) });
    let get = warp::path!("api" / "v1" / "documents" / i64)
        .and(warp::get())
        .and(credentials())
        .and(s())
        .then(|id, c, st| async move { json_result(get(st, c, id).await) });
    let delete = warp::path!("api" / "v1" / "documents" / i64)
        .and(warp::delete())
        .and(credentials())
        .and(super::origin())
        .and(s())
        .then(|id, c, o, st| async move { json_result(delete(st, c, id, o).await) });
    let add_recipient = warp::path!("api" / "v1" / "documents" / i64 / "recipients")
        .and(warp::post())
        .and(credentials())
        .and(json())
        .and(s())
        .then(|id, c, b, st| async move { json_result(add_recipient(st, c, id, b).await) });
    let patch_recipient = warp::path!("api" / "v1" / "documents" / i64 / "recipients" / i64)
        .and(warp::patch())
        .and(credentials())
        .and(json())
        .and(super::origin())
        .and(s())
        .then(|id, rid, c, b, o, st| async move {
            json_result(patch_recipient(st, c, id, rid, b, o).await)
        });
    let delete_recipient = warp::path!("api" / "v1" / "documents" / i64 / "recipients" / i64)
        .and(warp::delete())
        .and(credentials())
        .and(s())
        .then(|id, rid, c, st| async move { json_result(delete_recipient(st, c, id, rid).await) });
    let add_fields = warp::path!("api" / "v1" / "documents" / i64 / "fields")
        .and(warp::post())
        .and(credentials())
        .and(json())
        .and(s())
        .then(|id, c, b, st| async move { json_result(add_fields(st, c, id, b).await) });
    let patch_field = warp::path!("api" / "v1" / "documents" / i64 / "fields" / i64)
        .and(warp::patch())
        .and(credentials())
        .and(json())
        .and(s())
        .then(|id, fid, c, b, st| async move { json_result(patch_field(st, c, id, fid, b).await) });
    let delete_field = warp::path!("api" / "v1" / "documents" / i64 / "fields" / i64)
        .and(warp::delete())
        .and(credentials())
        .and(s())
        .then(|id, fid, c, st| async move { json_result(delete_field(st, c, id, fid).await) });
    create
        .or(list)
        .unify()
        .or(get)
        .unify()
        .or(delete)
        .unify()
        .or(add_recipient)
        .unify()
        .or(patch_recipient)
        .unify()
        .or(delete_recipient)
        .unify()
        .or(add_fields)
        .unify()
        .or(patch_field)
        .unify()
        .or(delete_field)
        .unify()
        .boxed()
}

/// `POST /api/v1/documents` (seed 4.1): a DRAFT with its recipients, and the signed upload URL.
async fn create(
    state: AppState,
    creds: Credentials,
    body: Value,
    origin: crate::documents::audit::Origin,
) -> Result<Value, AppError> {
    let who = authenticate_for(&state, creds, Scope::WriteDocument).await?;
    let app = state.app_base();
    let data_id = crate::documents::new_data_id();
    let d = data_id.clone();
    let (id, recipients) = state
        .db
        .write(move |tx| {
            let doc = documents::parse_create(&body, crate::users::store::tier(tx, who.user_id)?)?;
            let t = now();
            let id = store::insert(tx, who.user_id, &doc, &d, t)?;
            let view = store::view(tx, who.user_id, id, &app)?;
            let owner = store::owner_email(tx, who.user_id)?;
            crate::signing::notify::created(tx, &view, &origin.actor(&owner, None), t)?;
            Ok((id, view.recipients))
        })
        .await?;
    state.workers.webhooks.wake();
    let briefs: Vec<RecipientBrief> = recipients.iter().map(RecipientBrief::from).collect();
    let briefs = briefs.links_shown_if(who.sees_signing_links());
    Ok(json!({
        "uploadUrl": super::uploads::upload_url(&state, &data_id),
        "documentId": id,
        "recipients": briefs,
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
    let status = match q.get("status") {
        None => None,
        Some(s) => Some(Status::parse(s).ok_or_else(|| {
            AppError::bad_request("status must be DRAFT, PENDING, COMPLETED, REJECTED or CANCELLED")
        })?),
    };
    let app = state.app_base();
    let (docs, total) = state
        .db
        .read(move |c| {
            store::list(
                c,
                who.user_id,
                status,
                per_page,
                (page - 1) * per_page,
                &app,
            )
        })
        .await?;
    let docs = docs.links_shown_if(who.sees_signing_links());
    Ok(json!({"documents": docs, "totalPages": total_pages(total, per_page)}))
}

async fn get(state: AppState, creds: Credentials, id: i64) -> Result<Value, AppError> {
    let who = authenticate_for(&state, creds, Scope::ReadDocument).await?;
    let app = state.app_base();
    let doc = state
        .db
        .read(move |c| store::view(c, who.user_id, id, &app))
        .await?;
    Ok(json!(doc.links_shown_if(who.sees_signing_links())))
}

/// DRAFT: deleted (with its file). PENDING: CANCELLED. Finished: hidden from lists.
async fn delete(
    state: AppState,
    creds: Credentials,
    id: i64,
    origin: crate::documents::audit::Origin,
) -> Result<Value, AppError> {
    let who = authenticate_for(&state, creds, Scope::WriteDocument).await?;
    let app = state.app_base();
    let (view, outcome, blob) = state
        .db
        .write(move |tx| {
            let doc = store::owned(tx, who.user_id, id)?;
            let view = store::view(tx, who.user_id, id, &app)?;
            let outcome = store::delete(tx, &doc, now())?;
            if outcome == Deleted::Cancelled {
                let owner = store::owner_email(tx, who.user_id)?;
                crate::documents::audit::record(
                    tx,
                    id,
                    crate::documents::audit::Event::Cancelled,
                    &origin.actor(&owner, None),
                    &json!({}),
                    now(),
                )?;
                crate::signing::notify::cancelled(tx, id, &app, now())?;
            }
            Ok((view, outcome, doc.blob_id))
        })
        .await?;
    if let (Deleted::Removed, Some(b)) =
        (outcome, blob.and_then(|b| crate::blob::BlobId::parse(&b)))
    {
        let blobs = state.blobs.clone();
        let _ = tokio::task::spawn_blocking(move || blobs.delete(&b)).await;
    }
    if outcome == Deleted::Cancelled {
        state.wake_outbound();
    }
    let status = match outcome {
        Deleted::Removed => "DELETED",
        Deleted::Cancelled => "CANCELLED",
        Deleted::Hidden => view.status.as_str(),
    };
    Ok(json!({"id": view.id, "status": status, "deleted": outcome == Deleted::Removed}))
}

async fn add_recipient(
    state: AppState,
    creds: Credentials,
    id: i64,
    body: Value,
) -> Result<Value, AppError> {
    let who = authenticate_for(&state, creds, Scope::WriteDocument).await?;
    let app = state.app_base();
    let view = state
        .db
        .write(move |tx| {
            let doc = store::owned(tx, who.user_id, id)?;
            let mut c = Check::new();
            let r = parse_recipient(&mut c, &body, "");
            let r = c
                .finish(r)?
                .ok_or_else(|| AppError::bad_request("invalid recipient"))?;
            documents::check_tier(
                &Default::default(),
                std::slice::from_ref(&r),
                crate::users::store::tier(tx, who.user_id)?,
            )?;
            store::require_open(&doc, "add recipients")?;
            let rid = store::insert_recipient(tx, id, &r, now())?;
            store::touch(tx, id, now())?;
            store::recipient(tx, id, rid, &app)
        })
        .await?;
    Ok(json!(view.links_shown_if(who.sees_signing_links())))
}

/// A new e-mail address is a new signing link (see `store::update_recipient`); on a PENDING
/// document whose recipient had been e-mailed, the new address is e-mailed its link.
async fn patch_recipient(
    state: AppState,
    creds: Credentials,
    id: i64,
    rid: i64,
    body: Value,
    origin: crate::documents::audit::Origin,
) -> Result<Value, AppError> {
    let who = authenticate_for(&state, creds, Scope::WriteDocument).await?;
    let app = state.app_base();
    let view = state
        .db
        .write(move |tx| {
            let doc = store::owned(tx, who.user_id, id)?;
            let current = store::recipient(tx, id, rid, &app)?;
            // Absent keys keep their current values.
            let mut merged = json!({
                "email": current.email, "name": current.name, "role": current.role,
                "signingOrder": current.signing_order,
            });
            if let Some(obj) = body.as_object() {
                for (k, v) in obj {
                    merged[k] = v.clone();
                }
            } else {
                return Err(AppError::bad_request("the body must be a JSON object"));
            }
            let mut c = Check::new();
            let r = parse_recipient(&mut c, &merged, "");
            let r = c
                .finish(r)?
                .ok_or_else(|| AppError::bad_request("invalid recipient"))?;
            documents::check_tier(
                &Default::default(),
                std::slice::from_ref(&r),
                crate::users::store::tier(tx, who.user_id)?,
            )?;
            store::require_open(&doc, "change recipients")?;
            if let Some(old) = store::update_recipient(tx, id, rid, &r)? {
                let owner = store::owner_email(tx, who.user_id)?;
                let actor = origin.actor(&owner, None);
                let change = (old.as_str(), r.email.as_str());
                if crate::signing::flow::readdressed(tx, id, rid, change, &actor, now())? {
                    crate::signing::notify::signing_requests(tx, id, &[rid], &app, now())?;
                }
            }
            store::touch(tx, id, now())?;
            store::recipient(tx, id, rid, &app)
        })
        .await?;
    state.workers.mail.wake();
    Ok(json!(view.links_shown_if(who.sees_signing_links())))
}

async fn delete_recipient(
    state: AppState,
    creds: Credentials,
    id: i64,
    rid: i64,
) -> Result<Value, AppError> {
    let who = authenticate_for(&state, creds, Scope::WriteDocument).await?;
    state
        .db
        .write(move |tx| {
            let doc = store::owned(tx, who.user_id, id)?;
            store::require_open(&doc, "remove recipients")?;
            store::delete_recipient(tx, id, rid)?;
            store::touch(tx, id, now())
        })
        .await?;
    Ok(json!({"id": rid, "documentId": id, "deleted": true}))
}

/// `POST /api/v1/documents/{id}/fields` (seed 4.7): one field or an array; all or nothing.
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
            let doc = store::owned(tx, who.user_id, id)?;
            store::require_draft(&doc, "add fields")?;
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
                .filter_map(|(path, v)| parse_field(&mut c, v, path, doc.pages, &ok))
                .collect();
            let parsed = c.finish(parsed)?;
            let t = now();
            let mut ids = Vec::new();
            for f in &parsed {
                ids.push(store::insert_field(tx, id, f, t)?);
            }
            store::touch(tx, id, t)?;
            ids.iter()
                .map(|fid| store::field(tx, id, *fid))
                .collect::<Result<Vec<_>, _>>()
        })
        .await?;
    Ok(json!({"documentId": id, "fields": fields}))
}

async fn patch_field(
    state: AppState,
    creds: Credentials,
    id: i64,
    fid: i64,
    body: Value,
) -> Result<Value, AppError> {
    let who = authenticate_for(&state, creds, Scope::WriteDocument).await?;
    let field = state
        .db
        .write(move |tx| {
            let doc = store::owned(tx, who.user_id, id)?;
            let current = store::field(tx, id, fid)?;
            store::require_draft(&doc, "change fields")?;
            let Some(obj) = body.as_object() else {
                return Err(AppError::bad_request("the body must be a JSON object"));
            };
            let mut merged = json!({
                "recipientId": current.recipient_id, "type": current.kind, "pageNumber": current.page_number,
                "pageX": current.page_x, "pageY": current.page_y, "pageWidth": current.page_width,
                "pageHeight": current.page_height, "fieldMeta": current.field_meta,
            });
            for (k, v) in obj {
                merged[k] = v.clone();
            }
            let recipients = store::recipient_ids(tx, id)?;
            let mut c = Check::new();
            let f = parse_field(&mut c, &merged, "", doc.pages, &|rid| recipients.contains(&rid));
            let f = c.finish(f)?.ok_or_else(|| AppError::bad_request("invalid field"))?;
            store::update_field(tx, id, fid, &f)?;
            store::touch(tx, id, now())?;
            store::field(tx, id, fid)
        })
        .await?;
    Ok(json!(field))
}

async fn delete_field(
    state: AppState,
    creds: Credentials,
    id: i64,
    fid: i64,
) -> Result<Value, AppError> {
    let who = authenticate_for(&state, creds, Scope::WriteDocument).await?;
    state
        .db
        .write(move |tx| {
            let doc = store::owned(tx, who.user_id, id)?;
            store::field(tx, id, fid)?;
            store::require_draft(&doc, "delete fields")?;
            store::delete_field(tx, id, fid)?;
            store::touch(tx, id, now())
        })
        .await?;
    Ok(json!({"id": fid, "documentId": id, "deleted": true}))
}
