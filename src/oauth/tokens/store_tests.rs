//! Grants written by two nodes at once, on PostgreSQL (`DOCKET_TEST_POSTGRES`).

use std::sync::mpsc;
use std::time::Duration;

use super::*;
use crate::core::db::Db;
use crate::core::ids::{ClientId, UserId};

/// A user and a client in a new database: (db, user, client).
fn user_and_client() -> Option<(Db, UserId, ClientId)> {
    let url = crate::core::db::testing::postgres_database("grants")?;
    let db = Db::open_postgres(&url, 4, Duration::from_secs(10), true).unwrap();
    let ids = db
        .write_blocking(|tx| {
            let user = tx.insert(
                "INSERT INTO users (email, username, name, password_hash, created_at, updated_at)
                 VALUES ('ada@example.com', 'ada', 'Ada', 'x', 0, 0)",
                [],
            )?;
            let client = tx.insert(
                "INSERT INTO oauth_clients (client_id, name, created_at) VALUES ('app', 'App', 0)",
                [],
            )?;
            Ok((user, client))
        })
        .unwrap();
    Some((db, UserId::new(ids.0), ClientId::new(ids.1)))
}

#[test]
fn two_consents_at_once_share_one_grant_holding_both_scopes() {
    let Some((db, user, client)) = user_and_client() else {
        return;
    };
    let (inserted, wait_for_inserted) = mpsc::channel();
    let (go, wait_for_go) = mpsc::channel::<()>();
    // The first consent inserts the grant and holds its transaction open ...
    let first = std::thread::spawn({
        let db = db.clone();
        move || {
            db.write_blocking(move |tx| {
                let id = upsert_grant(tx, user, client, &[Scope::ReadProfile], 1)?;
                inserted.send(()).unwrap();
                wait_for_go.recv().unwrap();
                Ok(id)
            })
        }
    });
    wait_for_inserted.recv().unwrap();
    // ... while the second, on another connection, asks for another scope.
    let second = std::thread::spawn({
        let db = db.clone();
        move || {
            db.write_blocking(move |tx| upsert_grant(tx, user, client, &[Scope::ReadBooking], 2))
        }
    });
    std::thread::sleep(Duration::from_millis(300));
    go.send(()).unwrap();
    let first = first.join().unwrap().unwrap();
    let second = second
        .join()
        .unwrap()
        .expect("the second consent waits, then widens");
    assert_eq!(first, second, "one live grant");
    let scopes: String = db
        .read_blocking(move |c| {
            Ok(c.query_row(
                "SELECT scopes FROM oauth_grants WHERE id = ?1",
                [first],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    let mut got = parse_scopes(&scopes);
    got.sort();
    assert_eq!(got, vec![Scope::ReadBooking, Scope::ReadProfile]);
}
