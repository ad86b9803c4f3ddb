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

const LIFE: Lifetimes = Lifetimes {
    access: 3600,
    refresh: 86_400,
    code: 600,
};

/// A grant of `user` to `client` and a refresh token on it, issued at 1 for a code.
fn refresh_token(db: &Db, user: UserId, client: ClientId) -> String {
    db.write_blocking(move |tx| {
        let grant = upsert_grant(tx, user, client, &[Scope::ReadProfile], 0)?;
        let code = super::super::new_code();
        let new = NewCode {
            grant,
            redirect_uri: "https://app.example/cb",
            scopes: "READ_PROFILE",
            code_challenge: None,
            nonce: None,
            redirect_uri_sent: true,
            auth_time: Some(0),
        };
        insert_code(tx, &code, &new, 0, LIFE.code)?;
        let redemption = Redemption {
            client,
            code: code.expose(),
            redirect_uri: Some("https://app.example/cb"),
            code_verifier: None,
        };
        let issued = redeem_code(tx, &redemption, LIFE, 1)?.expect("the code is good");
        Ok(issued
            .refresh
            .expect("a refresh token")
            .expose()
            .to_string())
    })
    .unwrap()
}

async fn count(db: &Db, sql: &'static str) -> i64 {
    db.read(move |c| Ok(c.query_row(sql, [], |r| r.get(0))?))
        .await
        .unwrap()
}

/// The one-statement refresh issues exactly when the whole refresh (`refresh`) would, writes
/// nothing when it would not, and leaves to `refresh` what only it does (ending a grant whose
/// rotated-out token came back).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_in_one_statement_issues_exactly_when_a_whole_refresh_would() {
    let Some((db, user, client)) = tokio::task::spawn_blocking(user_and_client).await.unwrap()
    else {
        return;
    };
    let one = |token: &str, client: ClientId, now: i64| {
        let (db, token) = (db.clone(), token.to_string());
        async move {
            crate::oauth::token_endpoint::refresh_in_one(&db, client, &token, LIFE, now)
                .await
                .unwrap()
        }
    };
    let whole = |token: &str, client: ClientId, now: i64, rotate: bool| {
        let (db, token) = (db.clone(), token.to_string());
        async move {
            db.write(move |tx| {
                let req = Refresh {
                    client,
                    refresh_token: &token,
                    scopes: None,
                    rotate,
                };
                refresh(tx, &req, LIFE, now)
            })
            .await
            .unwrap()
        }
    };
    let tokens = "SELECT count(*) FROM oauth_tokens";
    let last_used = "SELECT last_used_at FROM oauth_grants";
    let token = {
        let db = db.clone();
        tokio::task::spawn_blocking(move || refresh_token(&db, user, client))
            .await
            .unwrap()
    };

    // Usable: an access token with the grant's scopes, live, and the grant's use written once
    // a minute old. The statement goes through the async client.
    let before = count(&db, tokens).await;
    let answered = db.point_reads_answered();
    let issued = one(&token, client, 30).await.expect("issued");
    assert_eq!(
        db.point_reads_answered(),
        answered + 1,
        "sent on the async client"
    );
    assert_eq!(issued.scope_text, "READ_PROFILE");
    assert!(issued.refresh.is_none());
    assert_eq!(count(&db, tokens).await, before + 1);
    assert_eq!(
        count(&db, last_used).await,
        1,
        "used within the minute: not written"
    );
    // The statement itself, on its own: it reads the grant's use and writes none.
    let access = new_access().expose().to_string();
    let done = {
        let token = token.clone();
        db.write_one(move |c| refresh_in_one_statement(c, client, &token, &access, LIFE, 100))
            .await
            .unwrap()
            .expect("issued")
    };
    assert_eq!(done.grant_used, Some(1));
    assert_eq!(count(&db, last_used).await, 1);
    let access = issued.access.expose().to_string();
    let found = db
        .read(move |c| authenticate_access(c, &access, 40))
        .await
        .unwrap()
        .expect("the new access token is live");
    assert_eq!((found.user_id, found.client), (user, client));
    one(&token, client, 100).await.expect("issued again");
    assert_eq!(count(&db, last_used).await, 100, "a minute old: written");

    // Not usable, each way: nothing written, and the whole refresh refuses it too.
    let other = ClientId::new(client.get() + 1);
    let expired = 1 + LIFE.refresh;
    for (who, now) in [(other, 200), (client, expired)] {
        let before = count(&db, tokens).await;
        assert!(one(&token, who, now).await.is_none());
        assert_eq!(count(&db, tokens).await, before);
        assert!(whole(&token, who, now, false).await.is_err());
    }
    assert!(one("dkr_no_such_token", client, 200).await.is_none());

    // Disabled user: refused, then usable again once enabled.
    let set_disabled = |at: Option<i64>| {
        let db = db.clone();
        async move {
            db.write(move |c| {
                c.execute("UPDATE users SET disabled_at = ?1", params![at])?;
                Ok(())
            })
            .await
            .unwrap()
        }
    };
    set_disabled(Some(300)).await;
    assert!(one(&token, client, 301).await.is_none());
    assert!(whole(&token, client, 301, false).await.is_err());
    set_disabled(None).await;
    assert!(one(&token, client, 302).await.is_some());

    // Rotated out: refused without a write; the whole refresh then ends the grant.
    let rotated_from = token.clone();
    let rotated = whole(&token, client, 400, true).await.expect("rotated");
    let fresh = rotated
        .refresh
        .expect("a new refresh token")
        .expose()
        .to_string();
    let live = "SELECT count(*) FROM oauth_grants WHERE revoked_at IS NULL";
    assert!(one(&rotated_from, client, 401).await.is_none());
    assert_eq!(count(&db, live).await, 1, "the one statement ends no grant");
    assert!(one(&fresh, client, 402).await.is_some());
    assert!(whole(&rotated_from, client, 403, false).await.is_err());
    assert_eq!(
        count(&db, live).await,
        0,
        "the whole refresh ended the grant"
    );
    assert!(one(&fresh, client, 404).await.is_none(), "revoked with it");
}

/// A write that must be one statement cannot send a second.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_statement_write_is_refused_a_second_statement() {
    let Some((db, _, _)) = tokio::task::spawn_blocking(user_and_client).await.unwrap() else {
        return;
    };
    let out = db
        .write_one(|c| {
            c.execute("UPDATE users SET name = 'First'", [])?;
            c.execute("UPDATE users SET name = 'Second'", [])?;
            Ok(())
        })
        .await;
    assert!(out.is_err(), "the second statement is refused");
    let name = || {
        let db = db.clone();
        async move {
            db.read(|c| Ok(c.query_row("SELECT name FROM users", [], |r| r.get::<_, String>(0))?))
                .await
                .unwrap()
        }
    };
    assert_eq!(
        name().await,
        "First",
        "the first committed on its own, the second never ran"
    );
    // The same through the async client (statements with rows go there).
    let answered = db.point_reads_answered();
    let out = db
        .write_one(|c| {
            let first: String =
                c.query_row("UPDATE users SET name = 'Third' RETURNING name", [], |r| {
                    r.get(0)
                })?;
            let second: String =
                c.query_row("UPDATE users SET name = 'Fourth' RETURNING name", [], |r| {
                    r.get(0)
                })?;
            Ok((first, second))
        })
        .await;
    assert!(out.is_err(), "the second statement is refused");
    assert_eq!(
        db.point_reads_answered(),
        answered + 1,
        "one statement sent"
    );
    assert_eq!(name().await, "Third");
    // A write that revokes goes the blocking way, which moves the revocation epoch on.
    let (epoch, answered) = (db.revocation_epoch(), db.point_reads_answered());
    db.write_one(|c| {
        c.note_revocation();
        let name: String =
            c.query_row("UPDATE users SET name = 'Fifth' RETURNING name", [], |r| {
                r.get(0)
            })?;
        Ok(name)
    })
    .await
    .unwrap();
    assert_eq!(
        db.point_reads_answered(),
        answered,
        "not on the async client"
    );
    assert_ne!(db.revocation_epoch(), epoch);
    assert_eq!(name().await, "Fifth");
    // The connection went back to the pool without the limit.
    db.write(|c| {
        c.execute("UPDATE users SET name = 'A'", [])?;
        c.execute("UPDATE users SET name = 'B'", [])?;
        Ok(())
    })
    .await
    .unwrap();
}
