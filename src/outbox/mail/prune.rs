//! Keeping the mail queue small and free of secrets: every `EVERY` (and once at start) the one
//! -time links leave the bodies of messages that no longer need them (`store::scrub`: sent or
//! given up, or filed in the outbox with the link expired), and messages that left more than
//! the retention period ago (`--mail-retention-days`) are deleted. Both statements only remove
//! what is already past its time, so nodes that run them at once do no harm.

use std::time::Duration;

use super::store;
use crate::core::db::{Db, now};
use crate::core::error::AppError;
use crate::core::retry::Stop;

/// How often the queue is pruned.
pub const EVERY: Duration = Duration::from_secs(3600);
/// How long a message that left is kept by default (`--mail-retention-days`).
pub const RETENTION_DAYS: u64 = 30;

/// What one round removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pruned {
    pub links_removed: usize,
    pub deleted: usize,
}

/// One round at `at`: links removed, then messages older than `retention` deleted.
pub fn once(db: &Db, retention: Duration, at: i64) -> Result<Pruned, AppError> {
    let before = at.saturating_sub(i64::try_from(retention.as_secs()).unwrap_or(i64::MAX));
    db.write_blocking(move |tx| {
        Ok(Pruned {
            links_removed: store::scrub(tx, at)?,
            deleted: store::delete_old(tx, before)?,
        })
    })
}

/// Prunes at once, then every `EVERY` until a stop is requested.
pub async fn run(db: Db, retention: Duration, mut stop: Stop) {
    loop {
        let db = db.clone();
        match tokio::task::spawn_blocking(move || once(&db, retention, now())).await {
            Ok(Ok(Pruned {
                links_removed: 0,
                deleted: 0,
            })) => {}
            Ok(Ok(p)) => tracing::info!(
                links_removed = p.links_removed,
                deleted = p.deleted,
                "pruned the mail queue"
            ),
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "pruning the mail queue failed; it runs again later")
            }
            Err(e) => tracing::warn!(error = %e, "the mail queue's pruning task failed"),
        }
        tokio::select! {
            _ = stop.wait() => return,
            _ = tokio::time::sleep(EVERY) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbox::mail::compose::Composed;
    use crate::outbox::mail::{Kind, NewMail, Status};

    const DAY: i64 = 86_400;

    fn queue(db: &Db, kind: Kind, link_until: Option<i64>, at: i64) -> i64 {
        let content = Composed {
            subject: "s".into(),
            text: "follow https://x.example/auth/reset/SECRET".into(),
            html: "<a href=\"https://x.example/auth/reset/SECRET\">reset</a>".into(),
        };
        let mut m = NewMail::new(kind, "a@x.org", content);
        m.link_until = link_until;
        db.write_blocking(move |tx| store::enqueue(tx, &m, at))
            .unwrap()
    }

    fn body(db: &Db, id: i64) -> String {
        let m = db.read_blocking(move |c| store::get(c, id)).unwrap();
        format!("{} {}", m.text, m.html)
    }

    #[test]
    fn a_link_leaves_the_queue_once_sent_given_up_or_expired_and_old_messages_go() {
        let db = Db::memory();
        let t = 1_000 * DAY;
        let sent = queue(&db, Kind::PasswordReset, Some(t + 3600), t);
        let failed = queue(&db, Kind::EmailChange, Some(t + 3600), t);
        let filed = queue(&db, Kind::AccountInvite, Some(t + 3600), t);
        let plain = queue(&db, Kind::Completed, None, t);
        db.write_blocking(move |tx| {
            store::mark_done(tx, sent, Status::Sent, t + 1)?;
            store::mark_attempt_failed(tx, failed, "550 no such user", None)?;
            store::mark_done(tx, filed, Status::Outbox, t + 1)?;
            store::mark_done(tx, plain, Status::Sent, t + 1)
        })
        .unwrap();
        assert!(!body(&db, sent).contains("SECRET"), "sent: gone at once");
        assert!(
            !body(&db, failed).contains("SECRET"),
            "given up: gone at once"
        );
        assert!(body(&db, sent).contains(store::SCRUBBED));
        assert!(
            body(&db, filed).contains("SECRET"),
            "filed in the outbox: the operator still reads it there"
        );
        assert!(
            body(&db, plain).contains("SECRET"),
            "no one-time link: kept"
        );

        let retention = Duration::from_secs(30 * DAY as u64);
        let p = once(&db, retention, t + 600).unwrap();
        assert_eq!(p, Pruned::default(), "nothing is due yet");
        let p = once(&db, retention, t + 3600).unwrap();
        assert_eq!((p.links_removed, p.deleted), (1, 0));
        assert!(
            !body(&db, filed).contains("SECRET"),
            "the outbox's link expired"
        );

        let waiting = queue(&db, Kind::PasswordReset, Some(t + 40 * DAY), t + 2);
        let p = once(&db, retention, t + 31 * DAY).unwrap();
        assert_eq!(p.deleted, 4, "everything that left over 30 days ago");
        let left = db
            .read_blocking(|c| store::list(c, None, 10))
            .unwrap()
            .iter()
            .map(|m| m.id)
            .collect::<Vec<_>>();
        assert_eq!(left, [waiting], "a message still queued is never deleted");
        assert!(body(&db, waiting).contains("SECRET"));
    }
}
