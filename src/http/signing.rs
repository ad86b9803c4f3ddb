//! The signing link's JSON calls under `/sign/<token>/...` (spec signing.md): the token is the
//! credential. The page itself and its rendered pages are in `signing_page.rs`.
//!
//! The calls take JSON bodies only (`application/json`), which a cross-site form cannot send,
//! so they need no CSRF token: another site can neither read the answers nor make a browser
//! send such a request without a CORS preflight, which docket never grants.

use serde_json::{Value, json};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::reply::json_result;
use super::with_state;
use crate::app::AppState;
use crate::db::now;
use crate::error::AppError;
use crate::signing::flow::{self, Origin};
use crate::signing::notify;
use crate::signing::store::{self, Link};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || with_state(state.clone());
    let origin = super::origin;
    let state_call = warp::path!("sign" / String / "state")
        .and(warp::get())
        .and(s())
        .then(|t, st| async move { json_result(link_state(st, t).await) });
    let fill = warp::path!("sign" / String / "fields" / i64)
        .and(warp::post())
        .and(super::body::json::<Value>())
        .and(origin())
        .and(s())
        .then(|t, f, b, o, st| async move { json_result(fill(st, t, f, b, o).await) });
    let complete = warp::path!("sign" / String / "complete")
        .and(warp::post())
        .and(super::body::json_or_empty())
        .and(origin())
        .and(s())
        .then(|t, _body: Value, o, st| async move { json_result(complete(st, t, o).await) });
    let reject = warp::path!("sign" / String / "reject")
        .and(warp::post())
        .and(super::body::json::<Value>())
        .and(origin())
        .and(s())
        .then(|t, b, o, st| async move { json_result(reject(st, t, b, o).await) });
    state_call
        .or(fill)
        .unify()
        .or(complete)
        .unify()
        .or(reject)
        .unify()
        .boxed()
}

/// The link for `token` (404 when unknown).
pub fn link(conn: &rusqlite::Connection, token: &str) -> Result<Link, AppError> {
    store::by_token(conn, token)?.ok_or_else(|| AppError::not_found("signing link"))
}

/// What the page shows: the document, this recipient, whether it is their turn, their fields.
pub fn describe(conn: &rusqlite::Connection, link: &Link) -> Result<Value, AppError> {
    let parties = store::parties(conn, link.document.id)?;
    let your_turn = link.document.status == "PENDING"
        && crate::signing::current_turn(link.document.meta.signing_order, &parties)
            .contains(&link.recipient_id);
    let fields: Vec<Value> = store::fields_of(conn, link.document.id, link.recipient_id)?
        .into_iter()
        .map(|f| {
            json!({
                "id": f.id, "type": f.kind, "page": f.page,
                "positionX": f.x, "positionY": f.y, "width": f.width, "height": f.height,
                "fieldMeta": f.meta, "value": f.text, "drawn": f.drawn, "inserted": f.inserted,
            })
        })
        .collect();
    let d = &link.document;
    Ok(json!({
        "document": {
            "title": d.title, "status": d.status, "senderName": d.sender_name,
            "senderEmail": d.sender_email, "pages": d.page_sizes,
            "signingOrder": d.meta.signing_order, "redirectUrl": d.meta.redirect_url,
        },
        "recipient": {
            "name": link.name, "email": link.email, "role": link.role,
            "signingStatus": link.signing_status, "readStatus": link.read_status,
        },
        "yourTurn": your_turn,
        "fields": fields,
    }))
}

async fn link_state(state: AppState, token: String) -> Result<Value, AppError> {
    state
        .db
        .call(move |c| {
            let l = link(c, &token)?;
            if l.document.status == "DRAFT" {
                return Err(AppError::not_found("signing link"));
            }
            describe(c, &l)
        })
        .await
}

async fn fill(
    state: AppState,
    token: String,
    field: i64,
    body: Value,
    origin: Origin,
) -> Result<Value, AppError> {
    state
        .db
        .write(move |tx| {
            let l = link(tx, &token)?;
            flow::fill(tx, &l, field, &body, &origin, now())?;
            Ok(json!({"fieldId": field, "inserted": true}))
        })
        .await
}

async fn complete(state: AppState, token: String, origin: Origin) -> Result<Value, AppError> {
    let app = state.app_base();
    let (doc, finished) = state
        .db
        .write(move |tx| {
            let l = link(tx, &token)?;
            let doc = l.document.id;
            let done = flow::complete(tx, &l, &origin, now())?;
            notify::signing_requests(tx, doc, &done.newly_current, &app, now())?;
            notify::event(tx, doc, "DOCUMENT_RECIPIENT_COMPLETED", &app, now())?;
            if l.role == "SIGNER" {
                notify::event(tx, doc, "DOCUMENT_SIGNED", &app, now())?;
            }
            Ok((doc, done))
        })
        .await?;
    state.wake_outbound();
    if finished.all_done {
        crate::signing::sealing::start(&state);
    }
    Ok(
        json!({"documentId": doc, "signingStatus": "SIGNED", "documentCompleting": finished.all_done}),
    )
}

async fn reject(
    state: AppState,
    token: String,
    body: Value,
    origin: Origin,
) -> Result<Value, AppError> {
    let reason = body
        .get("reason")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let app = state.app_base();
    let answer = state
        .db
        .write(move |tx| {
            let l = link(tx, &token)?;
            flow::reject(tx, &l, &reason, &origin, now())?;
            notify::rejected(
                tx,
                l.document.id,
                l.recipient_id,
                reason.trim(),
                &app,
                now(),
            )?;
            Ok(json!({"documentId": l.document.id, "signingStatus": "REJECTED"}))
        })
        .await?;
    state.wake_outbound();
    Ok(answer)
}
