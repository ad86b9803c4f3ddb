//! Sealing a document once every acting recipient has finished gather the values and the audit trail, burn them into the PDF and sign it (`pdf::seal`,
//! off the async threads), store the result, then complete the document in one transaction
//! that checks it is still PENDING with everyone finished. One task (`Sealer`) does this for
//! every such document: right after the last recipient finishes, at start for those a stop
//! interrupted, and again with backoff for those whose sealing failed (each failure recorded on
//! the document, the first told to its owner).

use crate::core::ids::{DocumentId, RecipientId};
use std::time::Duration;

use crate::core::db::Conn;

use crate::core::db::now;
use crate::core::error::AppError;
use crate::core::timefmt::human;
use crate::signing::documents::fields::FieldType;
use crate::signing::documents::model::Document;
use crate::signing::documents::store as documents;
use crate::{core::retry::Backoff, core::retry::Lease, core::retry::POLL, core::retry::Stop};
use crate::{
    signing::documents::audit, signing::documents::audit::Actor, signing::documents::audit_data,
};
use crate::{
    signing::pdf::seal::AuditRecipient, signing::pdf::seal::AuditSummary,
    signing::pdf::seal::FieldValue, signing::pdf::seal::FilledField, signing::pdf::seal::SealInput,
    signing::pdf::seal::SealSigner, signing::pdf::seal::TextAlign,
};

/// The seal certificate, loaded when first needed: from `--seal-cert`/`--seal-key` when given
/// (checked at start), else issued by the local CA the secret source keeps (`<data>/tls/`, or
/// the database with a secret key), which is created then if the server runs with `--tls files`
/// or `off` and has none.
pub struct SealKey {
    source: Option<crate::core::secrets::Source>,
    signer: std::sync::Mutex<Option<std::sync::Arc<SealSigner>>>,
}

impl SealKey {
    pub fn lazy(source: crate::core::secrets::Source) -> SealKey {
        SealKey {
            source: Some(source),
            signer: std::sync::Mutex::new(None),
        }
    }

    pub fn given(signer: SealSigner) -> SealKey {
        SealKey {
            source: None,
            signer: std::sync::Mutex::new(Some(std::sync::Arc::new(signer))),
        }
    }

    /// The signer (blocking: may issue a certificate).
    pub fn get(&self) -> Result<std::sync::Arc<SealSigner>, AppError> {
        let mut slot = self.signer.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = slot.as_ref() {
            return Ok(s.clone());
        }
        let source = self
            .source
            .as_ref()
            .ok_or_else(|| AppError::internal("the seal certificate: none given"))?;
        let s = std::sync::Arc::new(
            SealSigner::from_source(source)
                .map_err(|e| AppError::internal(format!("the seal certificate: {e}")))?,
        );
        *slot = Some(s.clone());
        Ok(s)
    }
}

impl SealKey {
    /// Which certificates are this instance's seal, for the public check (blocking, as
    /// `get`): the one in use, and with the local CA every one it issued.
    pub fn trust(&self) -> Result<crate::signing::pdf::seal::SealTrust, AppError> {
        let signer = self.get()?;
        Ok(crate::signing::pdf::seal::SealTrust::of(
            &signer,
            self.source.is_some(),
        ))
    }
}

/// Everything `pdf::seal` needs, but the original's bytes: its blob id instead; and the
/// completion time the certificate states, which the document then records.
struct Gathered {
    blob: String,
    input: SealInput,
    completed_at: i64,
}

/// What document `id` is sealed with; `app` is the base of the application's URLs (the
/// certificate names the public check there).
fn gather(c: &Conn, id: DocumentId, app: &str) -> Result<Gathered, AppError> {
    let doc = documents::load(c, id)?;
    let blob = doc
        .blob_id
        .clone()
        .ok_or_else(|| AppError::internal(format!("document {id} has no file to seal")))?;
    let sha256 = crate::core::blob::rows::sha256(c, &blob)?
        .ok_or_else(|| AppError::internal(format!("document {id}: its file's row is gone")))?;
    let (fields, signatures) = filled_fields(c, &doc)?;
    let completed_at = now();
    Ok(Gathered {
        blob,
        completed_at,
        input: SealInput {
            original: Vec::new(),
            fields,
            audit: AuditSummary {
                title: doc.title.clone(),
                document_id: id,
                original_sha256: sha256,
                completed_at: human(completed_at),
                recipients: audit_recipients(c, &doc, &signatures)?,
                events: audit_events(c, id)?,
                check_url: format!("{app}/verify"),
            },
        },
    })
}

/// Drawn signatures: (recipient id, PNG).
type Drawn = Vec<(RecipientId, Vec<u8>)>;

/// The document's filled fields as they are burnt in, in the order they were placed, and the
/// drawn signatures by recipient (for the audit certificate).
fn filled_fields(c: &Conn, doc: &Document) -> Result<(Vec<FilledField>, Drawn), AppError> {
    let mut signatures: Drawn = Vec::new();
    let mut out = Vec::new();
    for f in doc.fields.iter().filter(|f| f.inserted) {
        let signature = matches!(
            f.kind,
            FieldType::Signature | FieldType::FreeSignature | FieldType::Initials
        );
        let png = match f.drawn {
            true => documents::fields::signature_png(c, doc.id, f.id)?,
            false => None,
        };
        let value = match (signature, f.kind, f.custom_text.clone(), png) {
            (true, kind, _, Some(png)) => {
                if kind != FieldType::Initials {
                    signatures.push((f.recipient_id, png.clone()));
                }
                FieldValue::SignatureImage(png)
            }
            (true, _, Some(t), None) => FieldValue::SignatureTyped(t),
            (false, FieldType::Checkbox, Some(t), _) => {
                FieldValue::Checkbox(serde_json::from_str(&t).map_err(|e| {
                    AppError::internal(format!("document {}: a stored checkbox value: {e}", doc.id))
                })?)
            }
            (false, _, Some(t), _) => FieldValue::Text(t),
            _ => continue,
        };
        out.push(FilledField {
            page: f.page.max(1) as u32,
            x: f.x,
            y: f.y,
            width: f.width,
            height: f.height,
            value,
            align: TextAlign::parse(
                f.meta
                    .as_ref()
                    .and_then(|m| m.text_align())
                    .map(|a| a.as_str()),
            ),
        });
    }
    Ok((out, signatures))
}

/// Every recipient with what they did and how they proved it, by id.
fn audit_recipients(
    c: &Conn,
    doc: &Document,
    signatures: &[(RecipientId, Vec<u8>)],
) -> Result<Vec<AuditRecipient>, AppError> {
    let mut out = Vec::with_capacity(doc.recipients.len());
    for r in &doc.recipients {
        let account = match r.auth_user_id {
            Some(u) => crate::identity::users::store::get(c, u)?.map(|u| u.email),
            None => None,
        };
        let emailed = crate::identity::factors::mailed::proved_by_email(c, r.id)?;
        out.push(AuditRecipient {
            authentication: crate::signing::workflow::auth::describe_proof(
                r.auth_method,
                account.as_deref(),
                emailed,
            ),
            opened_at: r.opened_at.map(human),
            signed_at: r.signed_at.map(human),
            signature_png: signatures
                .iter()
                .find(|(rid, _)| *rid == r.id)
                .map(|(_, p)| p.clone()),
            name: r.name.clone(),
            email: r.email.clone(),
            role: r.role.as_str().to_string(),
            ip: r.acted_ip.clone(),
            user_agent: r.acted_user_agent.clone(),
            status: r.signing_status.as_str().to_string(),
        });
    }
    Ok(out)
}

/// The audit log as the certificate lists it: when, and what by whom (from where); repeated
/// fills of a field by one recipient are one line (`audit::coalesce_fills`).
fn audit_events(c: &Conn, doc: DocumentId) -> Result<Vec<(String, String)>, AppError> {
    Ok(audit::coalesce_fills(audit::list(c, doc)?)
        .into_iter()
        .map(|e| (e.created_at.clone(), certificate_line(&e)))
        .collect())
}

/// What an event's certificate line says: `TYPE by actor from ip`; a fill names its field and,
/// when the field was filled more than once, how often and when last.
fn certificate_line(e: &audit::AuditEvent) -> String {
    let mut what = e.kind.as_str().to_string();
    let (fill, done) = match &e.data {
        audit::Happened::FieldFilled(f) => (Some(f), "filled"),
        audit::Happened::FieldCleared(f) => (Some(f), "cleared"),
        _ => (None, ""),
    };
    if let Some(f) = fill {
        what = format!("{what} ({} field {})", f.kind.as_str(), f.field_id);
    }
    what = match &e.ip_address {
        Some(ip) => format!("{what} by {} from {ip}", e.actor),
        None => format!("{what} by {}", e.actor),
    };
    if let Some(f) = fill.filter(|f| f.count() > 1) {
        let last = f.last.as_ref();
        let at = last.map_or("?", |l| l.last_filled_at.as_str());
        what = format!("{what}; {done} {} times, last at {at}", f.count());
        if let Some(ip) = last.and_then(|l| l.last_ip_address.as_deref()) {
            what = format!("{what} from {ip}");
        }
    }
    what
}

/// The retry schedule of sealing: the shared backoff (30 s, or `--retry-base-ms`, doubling to an
/// hour), never given up: everyone has signed, so the document is worth an hourly try until it
/// seals or its owner cancels it.
pub fn backoff(base: Duration) -> Backoff {
    Backoff {
        base,
        max: Duration::from_secs(3600),
        give_up_after: Duration::MAX,
    }
}

/// The sealing task of the server: seals, one at a time, every PENDING document whose acting
/// recipients have all finished and whose next attempt is due (at start: those a stop or a
/// failure left unsealed), each claimed for its lease so that nodes sharing the database
/// never seal one at the same time. Woken by `Workers::seal` after a last recipient finished
/// on this node, it otherwise looks again every `POLL` at most: for documents finished on
/// other nodes, retries that came due and leases of dead nodes that ran out.
pub struct Sealer {
    pub db: crate::core::db::Db,
    pub blobs: crate::core::blob::BlobStore,
    pub seal: std::sync::Arc<SealKey>,
    /// The base of signing links, for the notices.
    pub app_base: String,
    /// Wakes the sealer (`Workers::seal`) and, after a commit that queued notices, mail and
    /// webhooks.
    pub workers: crate::core::retry::Workers,
    pub backoff: Backoff,
    /// How long a document is claimed for one attempt.
    pub lease: Lease,
}

impl Sealer {
    /// Runs until `stop` is raised, finishing the document in hand.
    pub async fn run(self, mut stop: Stop) {
        while !stop.requested() {
            let at = now();
            let pause = match self.db.read(documents::awaiting_seal).await {
                Ok(waiting) => {
                    let due: Vec<DocumentId> = waiting
                        .iter()
                        .filter(|(_, next)| next.is_none_or(|t| t <= at))
                        .map(|(doc, _)| *doc)
                        .collect();
                    let mut trouble = false;
                    for doc in &due {
                        if stop.requested() {
                            return;
                        }
                        if let Err(e) = self.attempt(*doc).await {
                            tracing::error!(document = doc.get(), error = %e, "recording a sealing attempt failed");
                            trouble = true;
                        }
                    }
                    if !due.is_empty() && !trouble {
                        continue;
                    }
                    // Until the earliest retry or lease end (unix seconds, so up to a second
                    // late), and no longer than `POLL`: other nodes finish documents too (their
                    // wake-ups do not reach this node), and may die holding one.
                    let next = waiting.iter().filter_map(|(_, next)| *next).min();
                    match (trouble, next) {
                        (false, Some(t)) => until(t).min(POLL),
                        _ => POLL,
                    }
                }
                // The runtime is shutting down: every later read would fail the same way at once.
                Err(e) if e.is_stopping() => return,
                Err(e) => {
                    tracing::error!(error = %e, "looking for documents to seal failed");
                    POLL
                }
            };
            tokio::select! {
                _ = self.workers.sealing.notified() => {}
                _ = tokio::time::sleep(pause) => {}
                _ = stop.wait() => {}
            }
        }
    }

    /// One attempt at sealing `doc`; a failure is recorded with the time of the next attempt,
    /// and the first one is told to the owner (mail and DOCUMENT_SEAL_FAILED), not every retry.
    async fn attempt(&self, doc: DocumentId) -> Result<(), AppError> {
        let lease = self.lease;
        let claimed = self
            .db
            .write(move |tx| {
                let t = now();
                documents::claim_seal(tx, doc, t, lease.until(t))
            })
            .await?;
        if !claimed {
            // Another worker (another node) has it, or it is no longer waiting.
            return Ok(());
        }
        let failure = match self.seal(doc).await {
            Ok(()) => return Ok(()),
            Err(f) => f,
        };
        let app = self.app_base.clone();
        let backoff = self.backoff;
        let public = failure.public.clone();
        let recorded = self
            .db
            .write(move |tx| {
                let at = now();
                let next = |failures: u32| backoff.retry_at(failures, at);
                let Some((failures, next_at)) =
                    documents::record_seal_failure(tx, doc, &public, next, at)?
                else {
                    return Ok(None);
                };
                if failures == 1 {
                    crate::signing::documents::notify::seal_failed(
                        tx, doc, &public, next_at, &app, at,
                    )?;
                }
                Ok(Some((failures, next_at)))
            })
            .await?;
        match recorded {
            Some((failures, next_at)) => {
                tracing::warn!(document = doc.get(), failures, error = %failure.detail,
                    next_attempt = %crate::core::timefmt::iso8601(next_at), "sealing failed; it will be retried");
                if failures == 1 {
                    self.workers.notices();
                }
            }
            // Cancelled in between: nothing more to do.
            None => tracing::info!(document = doc.get(), error = %failure.detail,
                "sealing failed on a document that is no longer pending"),
        }
        Ok(())
    }

    /// Seals `doc` and completes it. On any failure nothing is left behind: the sealed file is
    /// written whole or not at all (`BlobStore::put` renames a synced temp file), and is removed
    /// again when the completing transaction fails or finds the document no longer PENDING.
    async fn seal(&self, doc: DocumentId) -> Result<(), Failure> {
        let app = self.app_base.clone();
        let Gathered {
            blob,
            mut input,
            completed_at,
        } = self
            .db
            .read(move |c| gather(c, doc, &app))
            .await
            .map_err(|e| Failure::server("reading the document failed", e))?;
        let blobs = self.blobs.clone();
        let signer = self.seal.clone();
        let stored = tokio::task::spawn_blocking(move || -> Result<_, Failure> {
            let id = crate::core::blob::BlobId::parse(&blob)
                .ok_or_else(|| Failure::server("the document's file id is malformed", &blob))?;
            input.original = blobs
                .read(&id)
                .map_err(|e| Failure::server("the document's file could not be read", e))?;
            let signer = signer
                .get()
                .map_err(|e| Failure::server("the seal certificate is not available", e))?;
            let sealed =
                crate::signing::pdf::seal::seal(&input, &signer).map_err(Failure::document)?;
            blobs
                .put(&sealed)
                .map_err(|e| Failure::server("the sealed file could not be stored", e))
        })
        .await
        .map_err(|e| Failure::server("the sealing task failed", e))??;
        let app = self.app_base.clone();
        let sealed = stored.clone();
        let completed = self
            .db
            .write(move |tx| {
                let at = now();
                crate::core::blob::rows::insert_pdf(tx, &sealed, at)?;
                if !documents::complete(tx, doc, sealed.id.as_str(), completed_at, at)? {
                    crate::core::blob::rows::delete(tx, sealed.id.as_str())?;
                    return Ok(false);
                }
                let completed = audit::Happened::Completed(audit_data::Completed {
                    sha256: sealed.sha256.clone(),
                });
                audit::record(tx, doc, &Actor::system(), &completed, at)?;
                crate::signing::documents::notify::completed(
                    tx,
                    doc,
                    sealed.id.as_str(),
                    &app,
                    at,
                )?;
                Ok(true)
            })
            .await;
        if let Ok(true) = completed {
            self.workers.notices();
            tracing::info!(document = doc.get(), "document sealed and completed");
            return Ok(());
        }
        let blobs = self.blobs.clone();
        let id = stored.id.clone();
        let _ = tokio::task::spawn_blocking(move || blobs.delete(&id)).await;
        match completed {
            Err(e) => Err(Failure::server("recording the sealed file failed", e)),
            _ => Ok(()),
        }
    }
}

/// The default lease of a document claimed for sealing: far longer than sealing the largest
/// accepted file takes. Sealing is not cut off at its lease (it runs on the blocking pool); a
/// lease outlived by a slow but live node costs a second sealed file, which the completing
/// transaction refuses and removes, never a second completion.
pub const SEAL_LEASE: Lease = Lease::secs(300);

/// How long until unix second `t`.
fn until(t: i64) -> Duration {
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    Duration::from_millis((t.saturating_mul(1000) - now_ms).max(0) as u64)
}

/// Why an attempt failed: `public` is what the owner reads (in the API, the mail and the
/// webhook); `detail` goes to the log only, since it may name paths and internals.
#[derive(Debug)]
struct Failure {
    public: String,
    detail: String,
}

impl Failure {
    /// A cause in the server (storage, the seal certificate, the database).
    fn server(what: &str, cause: impl std::fmt::Display) -> Failure {
        Failure {
            public: format!("{what} (the server log has the details)"),
            detail: format!("{what}: {cause}"),
        }
    }

    /// A cause in the document itself (e.g. a field on a page the file does not have).
    fn document(e: crate::signing::pdf::PdfError) -> Failure {
        let message = e.to_string();
        Failure {
            public: message.clone(),
            detail: message,
        }
    }
}

#[cfg(test)]
#[path = "sealing_tests.rs"]
mod tests;
