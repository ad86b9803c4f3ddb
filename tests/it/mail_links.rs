//! One-time links in the mail queue (issue 52): the database keeps reset, e-mail-change and
//! invitation links only as hashes, so the queued body, their one whole copy, loses them as
//! soon as the message has gone; a message filed in the outbox (no SMTP) keeps its link until
//! it expires; and messages that left are deleted after `--mail-retention-days`.

use std::time::Duration;

use crate::accounts::{NEW_PASSWORD, forgot, link_in, nth_mail_to, reset, with_mail};
use crate::support::TestApp;
use crate::support::login::{LoginForm, add_account};
use crate::support::wait::wait_for;

/// Each queued message of `kind`: its id, status and text, oldest first.
fn queued(app: &TestApp, kind: &str) -> Vec<(i64, String, String)> {
    app.db()
        .query_map(
            "SELECT id, status, body_text || body_html FROM mail_queue WHERE kind = ?1 ORDER BY id",
            [kind],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs Python's aiosmtpd")]
async fn a_sent_reset_link_leaves_the_queue_at_once_and_still_works() {
    let (smtp, app) = with_mail().await;
    add_account(&app.data_dir(), "ada@example.com", "Ada");
    let form = LoginForm::open(&app, "/auth/forgot").await;
    assert_eq!(forgot(&app, &form, "ada@example.com").await.0, 200);
    let link = link_in(
        &nth_mail_to(&smtp, "ada@example.com", 1).await,
        "/auth/reset/",
    );
    let token = link.trim_start_matches("/auth/reset/").to_string();
    assert!(token.len() > 20, "{link}");
    let body = wait_for(Duration::from_secs(10), || {
        match &queued(&app, "PASSWORD_RESET")[..] {
            [(_, status, body)] if status == "SENT" => Ok(body.clone()),
            other => Err(format!("the message marked sent: {other:?}")),
        }
    })
    .await;
    assert!(
        !body.contains(&token),
        "the sent body keeps no link: {body}"
    );
    assert!(body.contains("one-time link"), "{body}");
    // The mailed link is what counts, and it still works.
    let (s, location) = reset(&app, &link, NEW_PASSWORD, NEW_PASSWORD).await;
    assert_eq!(s, 303, "{location}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_outbox_keeps_a_link_until_it_expires_and_old_messages_are_deleted() {
    // No --smtp-url: messages are filed in the outbox, where the operator reads them.
    let app = TestApp::spawn().await;
    add_account(&app.data_dir(), "ada@example.com", "Ada");
    add_account(&app.data_dir(), "bob@example.com", "Bob");
    let form = LoginForm::open(&app, "/auth/forgot").await;
    assert_eq!(forgot(&app, &form, "ada@example.com").await.0, 200);
    assert_eq!(forgot(&app, &form, "bob@example.com").await.0, 200);
    let filed = wait_for(Duration::from_secs(10), || {
        let rows = queued(&app, "PASSWORD_RESET");
        match rows.iter().all(|(_, s, _)| s == "OUTBOX") && rows.len() == 2 {
            true => Ok(rows),
            false => Err(format!("both messages filed: {rows:?}")),
        }
    })
    .await;
    let (ada, bob) = (filed[0].0, filed[1].0);
    assert!(
        filed
            .iter()
            .all(|(_, _, body)| body.contains("/auth/reset/")),
        "the outbox is where the operator reads the link: {filed:?}"
    );
    let dir = app.stop().await;
    // Ada's link has expired; Bob's message left 31 days ago.
    let now = docket::core::db::now();
    let db = crate::support::TestDb::open(&dir.path().join("data"));
    db.execute(
        "UPDATE mail_queue SET link_expires_at = ?1 WHERE id = ?2",
        docket::params![now - 1, ada],
    )
    .unwrap();
    db.execute(
        "UPDATE mail_queue SET sent_at = ?1, created_at = ?1 WHERE id = ?2",
        docket::params![now - 31 * 86_400, bob],
    )
    .unwrap();
    drop(db);

    // The queue is pruned when the server starts (and every hour after).
    let app = TestApp::spawn_in(dir, &["--tls", "off"]).await;
    let rows = wait_for(Duration::from_secs(10), || {
        let rows = queued(&app, "PASSWORD_RESET");
        match &rows[..] {
            [(id, _, body)] if *id == ada && !body.contains("/auth/reset/") => Ok(rows),
            _ => Err(format!(
                "Ada's link removed and Bob's message deleted: {rows:?}"
            )),
        }
    })
    .await;
    assert_eq!(rows[0].1, "OUTBOX");
    app.stop().await;
}
