//! The expiry of visitor documents: a document a template's direct link started that nobody
//! has signed `after` its creation (`--direct-link-expiry-days`, 7 by default) is cancelled
//! (DOCUMENT_CANCELLED goes to the owner's webhooks, as for a cancellation) and removed with
//! its recipients, fields and audit events. The visitor's link then answers as an unknown one,
//! the owner's list holds only documents someone acted on, and the unconfirmed name and address
//! a stranger typed are not kept for ever. Nobody is mailed: nobody but the visitor was asked,
//! and mailing an address a stranger typed is what the link must not do.
//!
//! Runs shortly after start and then every `every` (an hour, or a quarter of `after` when that
//! is shorter, for tests). Several nodes may run it at once: each batch claims its documents
//! (`claim_clause`), so each is removed once.

use std::time::Duration;

use crate::core::blob::{BlobId, BlobStore};
use crate::core::db::{Db, now};
use crate::core::error::AppError;
use crate::core::retry::{Stop, Workers};
use crate::outbox::webhooks::Event as Hook;
use crate::signing::documents::{notify, store::visitors};

/// Documents removed in one transaction.
const BATCH: i64 = 100;

/// What the expiry needs: the database, the files, the wake handle of the webhook worker, the
/// base of links (for the webhook payload), and the period.
#[derive(Clone)]
pub struct Expiry {
    pub db: Db,
    pub blobs: BlobStore,
    pub workers: Workers,
    pub app: String,
    /// How long a visitor document may wait unsigned.
    pub after: Duration,
}

impl Expiry {
    /// How often it looks: hourly, or more often when documents expire within hours.
    pub fn every(&self) -> Duration {
        (self.after / 4).clamp(Duration::from_secs(1), Duration::from_secs(3600))
    }

    /// Runs at once, then every `every()` until a stop is requested.
    pub async fn run(self, mut stop: Stop) {
        for round in 0u64.. {
            if round > 0 {
                tokio::select! {
                    _ = stop.wait() => return,
                    _ = tokio::time::sleep(self.every()) => {}
                }
            }
            match self.expire().await {
                Ok(0) => {}
                Ok(n) => tracing::info!(documents = n, "removed unsigned direct-link documents"),
                Err(e) => {
                    tracing::warn!(error = %e, "the direct-link expiry failed; it runs again later")
                }
            }
        }
    }

    /// Removes every visitor document past its time now; answers how many.
    pub async fn expire(&self) -> Result<usize, AppError> {
        let before = now() - i64::try_from(self.after.as_secs()).unwrap_or(i64::MAX);
        let mut removed = 0;
        loop {
            let app = self.app.clone();
            let (n, files) = self
                .db
                .write(move |tx| {
                    let at = now();
                    let (mut n, mut files) = (0, Vec::new());
                    for doc in visitors::claim_expired(tx, before, BATCH)? {
                        if !visitors::cancel_if_open(tx, doc, at)? {
                            continue;
                        }
                        notify::event(tx, doc, Hook::DocumentCancelled, &app, at)?;
                        files.extend(visitors::remove(tx, doc)?);
                        n += 1;
                    }
                    Ok((n, files))
                })
                .await?;
            for f in files.iter().filter_map(|f| BlobId::parse(f)) {
                let blobs = self.blobs.clone();
                let _ = tokio::task::spawn_blocking(move || blobs.delete(&f)).await;
            }
            removed += n;
            if n > 0 {
                self.workers.webhooks.wake();
            }
            if n < BATCH as usize {
                return Ok(removed);
            }
        }
    }
}
