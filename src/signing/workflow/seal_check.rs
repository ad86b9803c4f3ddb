//! The public check of a sealed PDF (`GET /verify`, `POST /api/v1/verify`): anyone, without an
//! account, learns whether this instance sealed a file, whether it changed since, and what its
//! audit certificate states (title, completion time, recipients), read from the stored document
//! the certificate was made from. The file is checked in memory and dropped: no blob, no temp
//! file, and the log gets the verdict alone. Checks run off the async threads, a bounded number
//! at once ([`Checks`]); the HTTP layer counts them per client address.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::sealing::SealKey;
use crate::core::context::Context;
use crate::core::error::AppError;
use crate::core::ids::DocumentId;
use crate::signing::documents::recipients::Role;
use crate::signing::documents::store as documents;
use crate::signing::pdf::seal::{Checked, Verdict};

/// The longest a check waits for a turn before it is refused (503).
pub const WAIT: Duration = Duration::from_secs(5);
/// What a refused check tells the client to wait, in seconds.
pub const RETRY_AFTER: u64 = 2;

/// The default bound on checks at once: half the CPUs, at least one (each hashes a file of up
/// to `--max-upload-mb` and holds it in memory).
pub fn default_max() -> usize {
    std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1))
}

/// The process-wide bound on checks running at once.
#[derive(Clone)]
pub struct Checks {
    permits: Arc<Semaphore>,
    wait: Duration,
}

impl Checks {
    pub fn new(max: usize) -> Checks {
        Checks::with_wait(max, WAIT)
    }

    pub fn with_wait(max: usize, wait: Duration) -> Checks {
        Checks {
            permits: Arc::new(Semaphore::new(max.max(1))),
            wait,
        }
    }

    /// A turn, held while the file is read and checked; 503 after waiting [`WAIT`].
    pub async fn turn(&self) -> Result<OwnedSemaphorePermit, AppError> {
        let busy = || AppError::Overloaded {
            retry_after: RETRY_AFTER,
            message: "too many files are being checked at once; try again in a moment".into(),
        };
        tokio::time::timeout(self.wait, self.permits.clone().acquire_owned())
            .await
            .map_err(|_| busy())?
            .map_err(AppError::internal)
    }
}

/// What the check found, and what the certificate states when the document is known.
#[derive(Debug, Clone)]
pub struct SealCheck {
    pub verdict: Verdict,
    /// The sealed document as its certificate states it; `None` when not sealed here, changed
    /// inside what was sealed, or its owner deleted it.
    pub certified: Option<Certified>,
}

impl SealCheck {
    pub fn sealed_here(&self) -> bool {
        matches!(
            self.verdict,
            Verdict::Sealed | Verdict::Modified | Verdict::Appended
        )
    }

    pub fn unchanged(&self) -> bool {
        self.verdict == Verdict::Sealed
    }
}

/// A sealed document as its audit certificate states it.
#[derive(Debug, Clone)]
pub struct Certified {
    pub document_id: DocumentId,
    pub title: String,
    pub completed_at: i64,
    pub recipients: Vec<CertifiedRecipient>,
}

/// A recipient as the certificate lists them.
#[derive(Debug, Clone)]
pub struct CertifiedRecipient {
    pub name: String,
    pub email: String,
    pub role: Role,
    pub signed_at: Option<i64>,
}

/// Checks `pdf` against this instance's seal. A file that is not a PDF is refused (422); every
/// other file gets a verdict.
pub async fn check(ctx: &Context, seal: Arc<SealKey>, pdf: Vec<u8>) -> Result<SealCheck, AppError> {
    let checked = tokio::task::spawn_blocking(move || -> Result<Checked, AppError> {
        let trust = seal.trust()?;
        Ok(crate::signing::pdf::seal::check(&pdf, &trust))
    })
    .await
    .map_err(AppError::internal)??;
    tracing::info!(verdict = ?checked.verdict, "a PDF was checked against the seal");
    if checked.verdict == Verdict::NotPdf {
        return Err(AppError::Unprocessable {
            code: "not_pdf",
            message: "the file is not a PDF; choose the PDF file to check".into(),
        });
    }
    let certified = match (checked.document, checked.sealed_sha256) {
        (Some(id), Some(sha256)) => {
            let id = DocumentId::new(id);
            ctx.db.read(move |c| certified(c, id, &sha256)).await?
        }
        _ => None,
    };
    Ok(SealCheck {
        verdict: checked.verdict,
        certified,
    })
}

/// Document `id` as its certificate states it, when its sealed file is the one with `sha256`.
fn certified(
    c: &crate::core::db::Conn,
    id: DocumentId,
    sha256: &str,
) -> Result<Option<Certified>, AppError> {
    if documents::sealed_sha256(c, id)?.as_deref() != Some(sha256) {
        return Ok(None);
    }
    let doc = documents::load(c, id)?;
    let Some(completed_at) = doc.completed_at else {
        return Ok(None);
    };
    Ok(Some(Certified {
        document_id: id,
        title: doc.title,
        completed_at,
        recipients: doc
            .recipients
            .into_iter()
            .map(|r| CertifiedRecipient {
                name: r.name,
                email: r.email,
                role: r.role,
                signed_at: r.signed_at,
            })
            .collect(),
    }))
}

/// The check's verdict as the API names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum VerdictCode {
    /// Sealed by this instance, unchanged since.
    Sealed,
    /// Sealed by this instance, then bytes it sealed were changed.
    Modified,
    /// Sealed by this instance, then bytes were added after the seal.
    Appended,
    /// Signed, but not with this instance's seal.
    OtherSigner,
    /// A signature that cannot be read or does not verify.
    InvalidSignature,
    /// A PDF without a digital signature.
    NotSigned,
}

impl SealCheck {
    pub fn code(&self) -> VerdictCode {
        match self.verdict {
            Verdict::Sealed => VerdictCode::Sealed,
            Verdict::Modified => VerdictCode::Modified,
            Verdict::Appended => VerdictCode::Appended,
            Verdict::OtherSigner => VerdictCode::OtherSigner,
            Verdict::NotSigned => VerdictCode::NotSigned,
            Verdict::InvalidSignature | Verdict::NotPdf => VerdictCode::InvalidSignature,
        }
    }

    /// The verdict as a sentence, the same on the page and in the API.
    pub fn message(&self) -> String {
        let said = match self.verdict {
            Verdict::Sealed => "This file was sealed by this Docket and has not changed since.",
            Verdict::Modified => {
                "This file was sealed by this Docket, but what it sealed was changed afterwards: its content is not what was signed."
            }
            Verdict::Appended => {
                "This file was sealed by this Docket, but something was added to it afterwards; the additions are not covered by the seal."
            }
            Verdict::OtherSigner => {
                "This file carries a digital signature, but not this Docket's seal."
            }
            Verdict::InvalidSignature | Verdict::NotPdf => {
                "This file carries a digital signature that cannot be read or does not verify."
            }
            Verdict::NotSigned => {
                "This PDF carries no digital signature, so nothing shows who sealed it or whether it changed."
            }
        };
        match (self.verdict, &self.certified) {
            (Verdict::Sealed | Verdict::Appended, None) => format!(
                "{said} Its document is no longer kept here, so its details cannot be shown."
            ),
            _ => said.to_string(),
        }
    }
}

/// `POST /api/v1/verify`: what the check found.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Verified {
    pub verdict: VerdictCode,
    /// The verdict as a sentence.
    pub message: String,
    /// This instance sealed the file (with its seal certificate, current or earlier).
    pub sealed_here: bool,
    /// Sealed here and not one byte changed or added since.
    pub unchanged: bool,
    /// The document's details below are known: it was sealed here, what was sealed is intact,
    /// and its owner has not deleted it.
    pub details_available: bool,
    /// The document's number, as its audit certificate states it.
    pub document_id: Option<DocumentId>,
    pub title: Option<String>,
    /// When it was completed, as its audit certificate states it (ISO 8601, UTC).
    pub completed_at: Option<String>,
    /// Its recipients as the certificate lists them.
    pub signers: Vec<VerifiedSigner>,
}

/// A recipient of a checked document.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerifiedSigner {
    pub name: String,
    pub email: String,
    /// SIGNER, APPROVER, VIEWER, CC or ASSISTANT.
    pub role: String,
    /// When they signed (ISO 8601, UTC); null for one who did not sign (a CC).
    pub signed_at: Option<String>,
}

impl Verified {
    pub fn of(check: &SealCheck) -> Verified {
        use crate::core::timefmt::{iso8601, iso8601_opt};
        let c = check.certified.as_ref();
        Verified {
            verdict: check.code(),
            message: check.message(),
            sealed_here: check.sealed_here(),
            unchanged: check.unchanged(),
            details_available: c.is_some(),
            document_id: c.map(|c| c.document_id),
            title: c.map(|c| c.title.clone()),
            completed_at: c.map(|c| iso8601(c.completed_at)),
            signers: c.map_or_else(Vec::new, |c| {
                c.recipients
                    .iter()
                    .map(|r| VerifiedSigner {
                        name: r.name.clone(),
                        email: r.email.clone(),
                        role: r.role.as_str().to_string(),
                        signed_at: iso8601_opt(r.signed_at),
                    })
                    .collect()
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn checks_past_the_bound_wait_then_are_refused() {
        let checks = Checks::with_wait(1, Duration::from_millis(20));
        let first = checks.turn().await.unwrap();
        let refused = checks.turn().await.unwrap_err();
        assert_eq!(refused.status(), http::StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(refused.code(), "overloaded");
        drop(first);
        assert!(checks.turn().await.is_ok(), "a turn once the first is done");
    }
}
