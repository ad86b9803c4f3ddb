//! Sealing a document once every acting recipient has finished (spec signing.md, "The sealed
//! PDF"): gather the values and the audit trail, burn them into the PDF and sign it (`pdf::seal`,
//! off the async threads), store the result, then complete the document in one transaction
//! that checks it is still PENDING with everyone finished. A document whose sealing was
//! interrupted by a stop is sealed again at start (`resume`).

use rusqlite::Connection;
use serde_json::json;

use crate::app::AppState;
use crate::db::now;
use crate::documents::audit::{self, Actor, Event};
use crate::error::AppError;
use crate::pdf::seal::{
    AuditRecipient, AuditSummary, FieldValue, FilledField, SealInput, SealSigner,
};
use crate::timefmt::human;

/// The seal certificate, loaded when first needed: from `--seal-cert`/`--seal-key` when given
/// (checked at start), else issued by the local CA in `<data>/tls/`, which is created then if
/// the server runs with `--tls files` or `off` and has none.
pub struct SealKey {
    tls_dir: std::path::PathBuf,
    signer: std::sync::Mutex<Option<std::sync::Arc<SealSigner>>>,
}

impl SealKey {
    pub fn lazy(tls_dir: std::path::PathBuf) -> SealKey {
        SealKey {
            tls_dir,
            signer: std::sync::Mutex::new(None),
        }
    }

    pub fn given(signer: SealSigner) -> SealKey {
        SealKey {
            tls_dir: std::path::PathBuf::new(),
            signer: std::sync::Mutex::new(Some(std::sync::Arc::new(signer))),
        }
    }

    /// The signer (blocking: may issue a certificate).
    pub fn get(&self) -> Result<std::sync::Arc<SealSigner>, AppError> {
        let mut slot = self.signer.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = slot.as_ref() {
            return Ok(s.clone());
        }
        let s = std::sync::Arc::new(
            SealSigner::load_or_create(&self.tls_dir)
                .map_err(|e| AppError::internal(format!("the seal certificate: {e}")))?,
        );
        *slot = Some(s.clone());
        Ok(s)
    }
}

/// Seals document `doc` in the background; failures are logged and retried at next start.
pub fn start(state: &AppState, doc: i64) {
    let state = state.clone();
    tokio::spawn(async move {
        if let Err(e) = seal(&state, doc).await {
            tracing::error!(document = doc, error = %e, "sealing failed; it is retried at the next start");
        }
    });
}

/// Seals every document left finished but unsealed (e.g. by a stop during sealing).
pub async fn resume(state: &AppState) -> Result<(), AppError> {
    for doc in state.db.call(|c| super::store::awaiting_seal(c)).await? {
        start(state, doc);
    }
    Ok(())
}

/// Everything `pdf::seal` needs, but the original's bytes: its blob id instead.
struct Gathered {
    blob: String,
    input: SealInput,
}

fn gather(c: &Connection, doc: i64) -> Result<Gathered, AppError> {
    let (title, blob, sha256): (String, String, String) = c.query_row(
        "SELECT d.title, d.blob_id, b.sha256 FROM documents d JOIN blobs b ON b.id = d.blob_id WHERE d.id = ?1",
        [doc],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    let mut stmt = c.prepare(
        "SELECT page_number, page_x, page_y, page_width, page_height, type, custom_text, signature_png, recipient_id
         FROM fields WHERE document_id = ?1 AND inserted = 1 ORDER BY id",
    )?;
    let mut signatures: Vec<(i64, Vec<u8>)> = Vec::new();
    let fields = stmt
        .query_map([doc], |r| {
            let kind: String = r.get(5)?;
            let text: Option<String> = r.get(6)?;
            let png: Option<Vec<u8>> = r.get(7)?;
            Ok((
                FilledField {
                    page: r.get::<_, i64>(0)?.max(1) as u32,
                    x: r.get(1)?,
                    y: r.get(2)?,
                    width: r.get(3)?,
                    height: r.get(4)?,
                    value: FieldValue::Text(String::new()),
                },
                kind,
                text,
                png,
                r.get::<_, i64>(8)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .filter_map(|(mut f, kind, text, png, recipient)| {
            f.value = match (kind.as_str(), text, png) {
                ("SIGNATURE" | "FREE_SIGNATURE" | "INITIALS", _, Some(png)) => {
                    if kind != "INITIALS" {
                        signatures.push((recipient, png.clone()));
                    }
                    FieldValue::SignatureImage(png)
                }
                ("SIGNATURE" | "FREE_SIGNATURE" | "INITIALS", Some(t), None) => {
                    FieldValue::SignatureTyped(t)
                }
                ("CHECKBOX", Some(t), _) => {
                    FieldValue::Checkbox(serde_json::from_str(&t).unwrap_or_default())
                }
                (_, Some(t), _) => FieldValue::Text(t),
                _ => return None,
            };
            Some(f)
        })
        .collect();
    let mut stmt = c.prepare(
        "SELECT id, name, email, role, acted_ip, acted_user_agent, opened_at, signed_at, signing_status
         FROM recipients WHERE document_id = ?1 ORDER BY id",
    )?;
    let recipients = stmt
        .query_map([doc], |r| {
            let id: i64 = r.get(0)?;
            Ok(AuditRecipient {
                name: r.get(1)?,
                email: r.get(2)?,
                role: r.get(3)?,
                ip: r.get(4)?,
                user_agent: r.get(5)?,
                opened_at: r.get::<_, Option<i64>>(6)?.map(human),
                signed_at: r.get::<_, Option<i64>>(7)?.map(human),
                status: r.get(8)?,
                signature_png: signatures
                    .iter()
                    .find(|(rid, _)| *rid == id)
                    .map(|(_, p)| p.clone()),
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let events = audit::list(c, doc)?
        .into_iter()
        .map(|e| {
            let what = match e.ip_address {
                Some(ip) => format!("{} by {} from {ip}", e.kind, e.actor),
                None => format!("{} by {}", e.kind, e.actor),
            };
            (e.created_at, what)
        })
        .collect();
    Ok(Gathered {
        blob,
        input: SealInput {
            original: Vec::new(),
            fields,
            audit: AuditSummary {
                title,
                document_id: doc,
                original_sha256: sha256,
                completed_at: human(now()),
                recipients,
                events,
            },
        },
    })
}

async fn seal(state: &AppState, doc: i64) -> Result<(), AppError> {
    let Gathered { blob, mut input } = state.db.call(move |c| gather(c, doc)).await?;
    let blobs = state.blobs.clone();
    let signer = state.seal.clone();
    let stored = tokio::task::spawn_blocking(move || -> Result<_, AppError> {
        let id = crate::blob::BlobId::parse(&blob)
            .ok_or_else(|| AppError::internal("a document's blob id is malformed"))?;
        input.original = std::fs::read(blobs.path(&id))?;
        let signer = signer.get()?;
        let sealed = crate::pdf::seal::seal(&input, &signer)
            .map_err(|e| AppError::internal(format!("sealing failed: {e}")))?;
        Ok(blobs.put(&sealed)?)
    })
    .await
    .map_err(|e| AppError::internal(format!("sealing task failed: {e}")))??;
    let app = state.app_base();
    let sealed = stored.clone();
    let completed = state
        .db
        .write(move |tx| {
            let at = now();
            crate::blob::rows::insert_pdf(tx, &sealed, at)?;
            if !super::store::complete(tx, doc, sealed.id.as_str(), at)? {
                crate::blob::rows::delete(tx, sealed.id.as_str())?;
                return Ok(false);
            }
            audit::record(
                tx,
                doc,
                Event::Completed,
                &Actor::system(),
                &json!({"sha256": sealed.sha256}),
                at,
            )?;
            super::notify::completed(tx, doc, sealed.id.as_str(), &app, at)?;
            Ok(true)
        })
        .await?;
    if completed {
        state.wake_outbound();
        tracing::info!(document = doc, "document sealed and completed");
    } else {
        let blobs = state.blobs.clone();
        let id = stored.id.clone();
        let _ = tokio::task::spawn_blocking(move || blobs.delete(&id)).await;
    }
    Ok(())
}
