//! The mail worker: a task of the server that sends due QUEUED messages, one at a time.
//!
//! State lives in `mail_queue` only, so a restart loses nothing; a stop lets the message in hand
//! finish, and a message whose send was cut off by a crash may go out twice (at least once,
//! never zero times): only when the server had accepted it and the crash came before it was
//! marked sent. Each message is claimed for a lease (`LEASE`, or `--queue-lease`) that the
//! send never outlives, so nodes sharing the queue never send one message at the same time,
//! and one that died mid-send leaves the message to the others once the lease runs out.
//! Woken by `Wake` right after an enqueue, and polling every `POLL` for messages queued by
//! other processes (the CLI, other nodes) and for retries and leases that came due.

use std::time::Duration;

use super::smtp::{self, SendError};
use super::store::{self, Mail};
use crate::core::error::AppError;
use crate::{core::blob::BlobId, core::blob::BlobStore};
use crate::{core::db::Conn, core::db::Db, core::db::now};
use crate::{core::retry::Backoff, core::retry::Lease, core::retry::Stop, core::retry::Wake};
use lettre::message::Mailbox;
use lettre::{AsyncSmtpTransport, Tokio1Executor};

/// The default schedule: 30 s doubling up to an hour, for 48 hours.
pub fn backoff(base: Duration) -> Backoff {
    Backoff {
        base,
        max: Duration::from_secs(3600),
        give_up_after: Duration::from_secs(48 * 3600),
    }
}

/// What the domain that queued a message records when it has left (`SENT`) or was filed
/// (`OUTBOX`), in the transaction that marks it so. The signing workflow marks the recipient's
/// request sent and records it in the document's audit trail.
pub type OnSent =
    std::sync::Arc<dyn Fn(&Conn, &Mail, super::Status, i64) -> Result<(), AppError> + Send + Sync>;

pub struct Worker {
    pub db: Db,
    pub on_sent: OnSent,
    pub blobs: BlobStore,
    /// `None`: no SMTP configured, messages go to the outbox.
    pub transport: Option<AsyncSmtpTransport<Tokio1Executor>>,
    pub from: Mailbox,
    pub wake: Wake,
    pub backoff: Backoff,
    /// How long a message is claimed for; its send is cut off before.
    pub lease: Lease,
}

/// The default lease of a message: room for a slow SMTP exchange (30 s per command, see
/// `smtp::SmtpUrl::transport`).
pub const LEASE: Lease = Lease::secs(300);

impl Worker {
    /// Runs until `stop` is raised, finishing the item in hand.
    pub async fn run(self, stop: Stop) {
        let (db, wake, lease) = (self.db.clone(), self.wake.clone(), self.lease);
        let this = std::sync::Arc::new(self);
        // One at a time, each claimed for the lease (several nodes share the queue).
        let take = |room: usize| {
            let db = db.clone();
            async move {
                db.write(move |tx| {
                    let t = now();
                    store::claim(tx, t, lease.until(t), room as i64)
                })
                .await
            }
        };
        crate::core::retry::drain(&wake, stop, "mail", 1, take, |item| {
            let this = this.clone();
            async move { this.handle(item).await }
        })
        .await
    }

    async fn handle(&self, m: Mail) -> Result<(), AppError> {
        let Some(transport) = &self.transport else {
            // Never the body: it holds the signing link, a credential.
            tracing::info!(mail_id = m.id, to = %m.to, kind = m.kind.as_str(),
                "no --smtp-url: message filed in the outbox (docket mail show {})", m.id);
            return self.done(m, super::Status::Outbox).await;
        };
        let limit = self.lease.attempt();
        let sent = tokio::time::timeout(limit, self.send(transport, &m))
            .await
            .unwrap_or_else(|_| {
                Err(SendError {
                    message: format!(
                        "cut off after {} s, before the message's lease ran out",
                        limit.as_secs()
                    ),
                    permanent: false,
                })
            });
        match sent {
            Ok(()) => {
                tracing::info!(mail_id = m.id, to = %m.to, kind = m.kind.as_str(), "mail sent");
                self.done(m, super::Status::Sent).await
            }
            Err(e) => {
                let (id, attempts) = (m.id, m.attempts + 1);
                let next = if e.permanent {
                    None
                } else {
                    self.backoff.next_attempt(attempts, m.created, now())
                };
                tracing::warn!(mail_id = id, to = %m.to, attempts, error = %e.message,
                    gives_up = next.is_none(), "sending mail failed");
                self.db
                    .write(move |tx| store::mark_attempt_failed(tx, id, &e.message, next))
                    .await
            }
        }
    }

    async fn send(
        &self,
        transport: &AsyncSmtpTransport<Tokio1Executor>,
        m: &Mail,
    ) -> Result<(), SendError> {
        let attachment = match (&m.attachment_blob, &m.attachment_name) {
            (Some(blob), name) => {
                let id = BlobId::parse(blob).ok_or_else(|| SendError {
                    message: format!("attachment {blob}: not a blob id"),
                    permanent: true,
                })?;
                let bytes = self.blobs.read_async(&id).await.map_err(|e| SendError {
                    message: format!("reading attachment {blob}: {e}"),
                    permanent: false,
                })?;
                Some((name.clone().unwrap_or_else(|| "document.pdf".into()), bytes))
            }
            (None, _) => None,
        };
        let message = smtp::build(
            &self.from,
            &m.to,
            &m.subject,
            m.text.clone(),
            m.html.clone(),
            attachment,
        )?;
        smtp::send(transport, message).await
    }

    /// The message left (`SENT`) or was filed (`OUTBOX`): marked so, and what the domain
    /// records about it (`on_sent`), in one transaction.
    async fn done(&self, m: Mail, status: super::Status) -> Result<(), AppError> {
        let on_sent = self.on_sent.clone();
        self.db
            .write(move |tx| {
                let t = now();
                store::mark_done(tx, m.id, status, t)?;
                on_sent(tx, &m, status, t)
            })
            .await
    }
}
