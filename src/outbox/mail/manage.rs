//! The administrator's use cases on the mail queue (`docket mail ...`): list the messages
//! (the caller shows no bodies), read one whole, queue a test message for the running server to
//! send. Each runs on the calling thread (`Db::write_blocking`, `Db::read_blocking`), since the
//! admin commands run without an async runtime.

use super::store::{self, Mail};
use super::{Kind, NewMail, Status, compose};
use crate::core::error::AppError;
use crate::{core::db::Db, core::db::now};

/// The most messages one listing returns.
pub const MAX_LISTED: i64 = 10_000;

/// Up to `limit` messages (1 to `MAX_LISTED`), newest first; only those with `status` when
/// given.
pub fn list(db: &Db, status: Option<Status>, limit: i64) -> Result<Vec<Mail>, AppError> {
    let limit = limit.clamp(1, MAX_LISTED);
    db.read_blocking(|c| store::list(c, status, limit))
}

/// Message `id` whole, bodies included; 404 when unknown.
pub fn show(db: &Db, id: i64) -> Result<Mail, AppError> {
    db.read_blocking(|c| store::get(c, id))
}

/// Queues a test message to the address `to` (already checked), naming the URL the server last
/// ran with; returns its id. The running server's mail worker sends it.
pub fn queue_test(db: &Db, to: &str) -> Result<i64, AppError> {
    let to = to.to_string();
    db.write_blocking(move |tx| {
        let server = crate::core::settings::get(tx, crate::core::settings::PUBLIC_URL)?
            .unwrap_or_else(|| "(not started yet)".into());
        let m = NewMail::new(
            Kind::Test,
            &to,
            compose::TestMessage { server: &server }.compose(),
        );
        store::enqueue(tx, &m, now())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_message_is_queued_naming_the_server() {
        let db = Db::memory();
        let first = queue_test(&db, "ops@example.com").unwrap();
        assert!(show(&db, first).unwrap().text.contains("(not started yet)"));
        db.write_blocking(|tx| {
            crate::core::settings::set(
                tx,
                crate::core::settings::PUBLIC_URL,
                "https://docs.example",
                0,
            )
        })
        .unwrap();
        let second = queue_test(&db, "ops@example.com").unwrap();
        let m = show(&db, second).unwrap();
        assert_eq!(
            (m.kind, m.status, m.to.as_str()),
            (Kind::Test, Status::Queued, "ops@example.com")
        );
        assert!(m.text.contains("https://docs.example"), "{}", m.text);

        let newest_first: Vec<i64> = list(&db, None, 0).unwrap().iter().map(|m| m.id).collect();
        assert_eq!(newest_first, vec![second], "a limit below 1 lists one");
        assert_eq!(list(&db, Some(Status::Queued), 100).unwrap().len(), 2);
        assert!(list(&db, Some(Status::Sent), 100).unwrap().is_empty());
        assert_eq!(show(&db, 999).unwrap_err().code(), "not_found");
    }
}
