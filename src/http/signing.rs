//! The signing link's JSON calls under `/sign/<token>/...` (spec signing.md): the token is the
//! credential. The page itself and its rendered pages are in `signing_page.rs`.
//!
//! The calls take JSON bodies only (`application/json`), which a cross-site form cannot send,
//! so they need no CSRF token: another site can neither read the answers nor make a browser
//! send such a request without a CORS preflight, which docket never grants.
//!
//! Recipient authentication (`signing::auth`): the browser's session cookie names the signer's
//! account; finishing actions carry their proof in the body's `auth` member. The checks run
//! inside each call's write transaction.

use serde_json::{Value, json};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::reply::json_result;
use super::with_state;
use crate::app::AppState;
use crate::db::now;
use crate::error::AppError;
use crate::signing::auth::{self, Acting, Proof, Signer};
use crate::signing::flow::{self, Origin};
use crate::signing::notify;
use crate::signing::store::{self, Link};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || with_state(state.clone());
    let origin = super::origin;
    let session = super::session::cookies;
    let state_call = warp::path!("sign" / String / "state")
        .and(warp::get())
        .and(session())
        .and(s())
        .then(|t, c, st| async move { json_result(link_state(st, t, c).await) });
    let fill = warp::path!("sign" / String / "fields" / i64)
        .and(warp::post())
        .and(super::body::json::<Value>())
        .and(origin())
        .and(session())
        .and(s())
        .then(|t, f, b, o, c, st| async move {
            json_result(fill(st, Call::new(t, o, c, None), f, b).await)
        });
    let complete = warp::path!("sign" / String / "complete")
        .and(warp::post())
        .and(super::body::json_or_empty())
        .and(origin())
        .and(session())
        .and(s())
        .then(|t, body: Value, o, c, st| async move {
            match Proof::from_body(&body) {
                Ok(p) => json_result(complete(st, Call::new(t, o, c, p)).await),
                Err(e) => json_result::<Value>(Err(e)),
            }
        });
    let reject = warp::path!("sign" / String / "reject")
        .and(warp::post())
        .and(super::body::json::<Value>())
        .and(origin())
        .and(session())
        .and(s())
        .then(|t, body: Value, o, c, st| async move {
            match Proof::from_body(&body) {
                Ok(p) => json_result(reject(st, Call::new(t, o, c, p), body).await),
                Err(e) => json_result::<Value>(Err(e)),
            }
        });
    let challenge = warp::path!("sign" / String / "passkey-challenge")
        .and(warp::post())
        .and(super::body::json_or_empty())
        .and(session())
        .and(s())
        .then(
            |t, _body: Value, c, st| async move { json_result(passkey_challenge(st, t, c).await) },
        );
    state_call
        .or(fill)
        .unify()
        .or(complete)
        .unify()
        .or(reject)
        .unify()
        .or(challenge)
        .unify()
        .boxed()
}

/// One call on a link: its token, where it came from, the browser's cookies, the proof.
struct Call {
    token: String,
    origin: Origin,
    cookies: Option<String>,
    proof: Option<Proof>,
}

impl Call {
    fn new(token: String, origin: Origin, cookies: Option<String>, proof: Option<Proof>) -> Call {
        Call {
            token,
            origin,
            cookies,
            proof,
        }
    }
}

/// The session cookie's value, if the browser sent one.
pub fn session_token(state: &AppState, cookies: Option<&str>) -> Option<String> {
    super::session::cookie(cookies, crate::sessions::cookie_name(state.tls())).map(str::to_string)
}

/// Runs `action` in one write transaction with the link, the signer and their proof. A wrong
/// code or a refused passkey still counts against the account's second-factor throttle,
/// recorded after the action's transaction rolled back.
async fn acting<T: Send + 'static>(
    state: &AppState,
    call: Call,
    action: impl FnOnce(&rusqlite::Connection, &Link, &Acting<'_>) -> Result<T, AppError>
    + Send
    + 'static,
) -> Result<T, AppError> {
    let session = session_token(state, call.cookies.as_deref());
    let verifier = state.factors.clone();
    let s2 = session.clone();
    let result = state
        .db
        .write(move |tx| {
            let l = link(tx, &call.token)?;
            let acting = Acting {
                origin: &call.origin,
                verifier: &verifier,
                signer: auth::signer(tx, s2.as_deref(), now())?,
                proof: call.proof,
            };
            action(tx, &l, &acting)
        })
        .await;
    if let Err(e) = &result
        && matches!(e.code(), "wrong_code" | "passkey_refused")
    {
        let counted = state
            .db
            .write(
                move |tx| match auth::signer(tx, session.as_deref(), now())? {
                    Some(s) => crate::factors::Verifier::record_failure(tx, s.user_id, now()),
                    None => Ok(()),
                },
            )
            .await;
        if let Err(err) = counted {
            tracing::warn!(error = %err, "could not count a failed second factor");
        }
    }
    result
}

/// The link for `token` (404 when unknown).
pub fn link(conn: &rusqlite::Connection, token: &str) -> Result<Link, AppError> {
    store::by_token(conn, token)?.ok_or_else(|| AppError::not_found("signing link"))
}

/// What the recipient must prove and how far they are: `auth` in the state.
fn auth_state(
    conn: &rusqlite::Connection,
    link: &Link,
    signer: Option<&Signer>,
    invite_csrf: &str,
) -> Result<Value, AppError> {
    let req = link.requirement()?;
    let mut out = req.describe();
    let mine = signer.filter(|s| s.email.eq_ignore_ascii_case(&link.email));
    out["signedInAs"] = json!(signer.map(|s| &s.email));
    out["accountReady"] = json!(req.is_none() || mine.is_some());
    if !req.is_none() && mine.is_none() {
        let exists = crate::users::store::find_by_email(conn, &link.email)?.is_some();
        out["accountExists"] = json!(exists);
        if !exists {
            // For the "create an account" form (`POST /sign/<token>/account`).
            out["inviteCsrf"] = json!(invite_csrf);
        }
    }
    if let Some(s) = mine {
        let e = crate::factors::store::enrolled(conn, s.user_id)?;
        out["enrolled"] = json!({"totp": e.totp, "passkeys": e.passkeys});
    }
    Ok(out)
}

/// What the page shows: the document, this recipient, whether it is their turn, their fields,
/// and what they must prove (`auth`).
pub fn describe(
    conn: &rusqlite::Connection,
    link: &Link,
    signer: Option<&Signer>,
    invite_csrf: &str,
) -> Result<Value, AppError> {
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
        "auth": auth_state(conn, link, signer, invite_csrf)?,
    }))
}

async fn link_state(
    state: AppState,
    token: String,
    cookies: Option<String>,
) -> Result<Value, AppError> {
    let session = session_token(&state, cookies.as_deref());
    let invite_csrf = super::signup::invite_csrf(&state, &token);
    state
        .db
        .call(move |c| {
            let l = link(c, &token)?;
            if l.document.status == "DRAFT" {
                return Err(AppError::not_found("signing link"));
            }
            let signer = auth::signer(c, session.as_deref(), now())?;
            auth::require_account(l.requirement()?, &l, signer.as_ref(), true)?;
            describe(c, &l, signer.as_ref(), &invite_csrf)
        })
        .await
}

async fn fill(state: AppState, call: Call, field: i64, body: Value) -> Result<Value, AppError> {
    acting(&state, call, move |tx, l, a| {
        flow::fill(tx, l, field, &body, a, now())?;
        Ok(json!({"fieldId": field, "inserted": true}))
    })
    .await
}

async fn complete(state: AppState, call: Call) -> Result<Value, AppError> {
    let app = state.app_base();
    let (doc, finished) = acting(&state, call, move |tx, l, a| {
        let doc = l.document.id;
        let done = flow::complete(tx, l, a, now())?;
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

async fn reject(state: AppState, call: Call, body: Value) -> Result<Value, AppError> {
    let reason = body
        .get("reason")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let app = state.app_base();
    let answer = acting(&state, call, move |tx, l, a| {
        flow::reject(tx, l, &reason, a, now())?;
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

/// `POST /sign/<token>/passkey-challenge`: the WebAuthn request options for a recipient whose
/// document asks for a PASSKEY, signed in to their account (`{"publicKey": options}`, for
/// `PublicKeyCredential.parseRequestOptionsFromJSON`). The challenge is good for this
/// recipient only, once, for five minutes.
async fn passkey_challenge(
    state: AppState,
    token: String,
    cookies: Option<String>,
) -> Result<Value, AppError> {
    let session = session_token(&state, cookies.as_deref());
    let verifier = state.factors.clone();
    state
        .db
        .write(move |tx| {
            let l = link(tx, &token)?;
            flow::require_usable(&l)?;
            let req = l.requirement()?;
            if req.action != Some(auth::ActionAuth::Passkey) {
                return Err(AppError::Conflict(
                    "this document does not ask you for a passkey".into(),
                ));
            }
            let signer = auth::signer(tx, session.as_deref(), now())?;
            let user = auth::require_account(req, &l, signer.as_ref(), false)?
                .ok_or_else(|| AppError::internal("a passkey requirement without an account"))?;
            let options = verifier.assertion_begin(
                tx,
                user,
                crate::factors::Purpose::Sign(l.recipient_id),
                now(),
            )?;
            Ok(json!({"publicKey": options}))
        })
        .await
}
