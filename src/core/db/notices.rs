//! Revocation notices between the processes that share one PostgreSQL database, on PostgreSQL's
//! LISTEN/NOTIFY. A write that revoked a credential (`Conn::note_revocation`) sends `NOTIFY` on
//! `CHANNEL` inside its transaction, so PostgreSQL delivers it to every listening session when,
//! and only if, it commits; the admin CLI's writes do too. Each serving node keeps one
//! connection listening (`Listener::run`): a notice from another process moves this process's
//! revocation epoch on (`revocations.rs`), so every credential it verified before is checked
//! against the database at its next use, on every node within milliseconds of the commit.
//!
//! A notice can be lost: the listening connection drops, or dies without a word (found by a
//! query every `HEARTBEAT`). Then the epoch moves on (what was verified while nobody listened
//! is not trusted), the connection is made again with backoff, and the epoch moves on once more
//! when it listens. Meanwhile a verified credential is still trusted for at most
//! `revocations::SETTLES`, the bound that holds whatever happens to the notices.

use std::sync::Arc;
use std::time::Duration;

use tokio_postgres::AsyncMessage;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::revocations::Revocations;
use super::{Conn, Result};

/// The channel of revocation notices.
const CHANNEL: &str = "docket_revocations";

/// How long connecting, or one query, may take before the connection is given up.
const TIMEOUT: Duration = Duration::from_secs(5);

/// How often the listening connection is asked a query, to find one cut without a word.
const HEARTBEAT: Duration = Duration::from_secs(5);

/// The first wait before connecting again, doubled after each failed try up to `MAX_BACKOFF`.
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(10);

/// Sends the notice of a revocation made on `conn`, from the process of `revocations`: inside
/// a transaction it goes out with the COMMIT (and not at all without one).
pub fn publish(conn: &Conn, revocations: &Revocations) -> Result<()> {
    // The payload is a number of this process's own making, never outside input.
    conn.execute_batch(&format!(
        "NOTIFY {CHANNEL}, '{:016x}'",
        revocations.origin()
    ))
}

/// Connects to the database and listens for the notices of other processes.
pub struct Listener {
    config: tokio_postgres::Config,
    tls: MakeRustlsConnect,
}

impl Listener {
    pub fn new(config: tokio_postgres::Config, tls: MakeRustlsConnect) -> Listener {
        Listener { config, tls }
    }

    /// Listens until the task is aborted, connecting again whenever the connection is lost.
    pub async fn run(self: Arc<Self>, revocations: Arc<Revocations>) {
        let mut backoff = FIRST_BACKOFF;
        loop {
            let listened = self.listen(&revocations).await;
            // Notices sent while nobody listened are lost: trust nothing verified before.
            revocations.committed();
            backoff = match listened {
                true => FIRST_BACKOFF,
                false => (backoff * 2).min(MAX_BACKOFF),
            };
            tokio::time::sleep(backoff).await;
        }
    }

    /// One connection: listens until it fails. Answers whether it got as far as listening.
    async fn listen(&self, revocations: &Arc<Revocations>) -> bool {
        let connecting = self.config.connect(self.tls.clone());
        let (client, mut connection) = match tokio::time::timeout(TIMEOUT, connecting).await {
            Ok(Ok(made)) => made,
            Ok(Err(e)) => {
                tracing::warn!(error = %super::pg::describe(&e), "cannot listen for revocation notices");
                return false;
            }
            Err(_) => {
                tracing::warn!("cannot listen for revocation notices: connecting timed out");
                return false;
            }
        };
        // The connection's messages, notices among them, are read by a task of their own.
        let heard = revocations.clone();
        let mut reader = tokio::spawn(async move {
            let own = format!("{:016x}", heard.origin());
            while let Some(message) = std::future::poll_fn(|cx| connection.poll_message(cx)).await {
                match message {
                    Ok(AsyncMessage::Notification(n)) if n.payload() != own => heard.committed(),
                    Ok(_) => {}
                    Err(e) => {
                        tracing::warn!(error = %super::pg::describe(&e), "the connection listening for revocation notices failed");
                        return;
                    }
                }
            }
        });
        let listen = format!("LISTEN {CHANNEL}");
        let asked = tokio::time::timeout(TIMEOUT, client.batch_execute(&listen)).await;
        if !matches!(asked, Ok(Ok(()))) {
            reader.abort();
            return false;
        }
        // Revocations committed before the LISTEN took effect were not heard.
        revocations.committed();
        tracing::debug!("listening for revocation notices");
        let mut beat = tokio::time::interval(HEARTBEAT);
        beat.tick().await;
        loop {
            tokio::select! {
                _ = &mut reader => break,
                _ = beat.tick() => {
                    let answered = tokio::time::timeout(TIMEOUT, client.batch_execute("")).await;
                    if !matches!(answered, Ok(Ok(()))) {
                        tracing::warn!("the connection listening for revocation notices stopped answering");
                        break;
                    }
                }
            }
        }
        reader.abort();
        true
    }
}
