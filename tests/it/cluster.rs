//! Several nodes on one PostgreSQL database (only with `DOCKET_TEST_POSTGRES`): three servers,
//! each with its own data dir, the same database and the same secret key, behind no balancer:
//! the test itself alternates between them. What one node starts another finishes; what two
//! nodes race for happens once; every mail and seal happens once.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::oauth_rules::{code, pair, redeem, refresh};
use crate::support::api::{Api, fixture};
use crate::support::login::{PASSWORD, sign_in};
use crate::support::mailbox::MailBox;
use crate::support::oauth::{me, setup};
use crate::support::{TestApp, TestDb, on_postgres, postgres_for};

const EMAIL: &str = "ada@example.com";

/// Three nodes sharing the first one's database and, with `DOCKET_TEST_BLOB_URL` (an S3
/// bucket, tests/s3/moto.sh), a prefix of their own in that bucket.
async fn three_nodes(extra: &[&str]) -> Vec<TestApp> {
    let first = tempfile::tempdir().unwrap();
    let url = postgres_for(&first.path().join("data")).expect("on PostgreSQL");
    let mut args = vec!["--tls", "off", "--database-url", url.as_str()];
    args.extend_from_slice(extra);
    let bucket = std::env::var("DOCKET_TEST_BLOB_URL").ok().map(|b| {
        let prefix = url.rsplit('/').next().unwrap_or("cluster");
        format!("{}/{prefix}", b.trim_end_matches('/'))
    });
    if let Some(b) = &bucket {
        args.extend(["--blob-url", b.as_str()]);
    }
    let mut nodes = vec![TestApp::spawn_in(first, &args).await];
    for _ in 0..2 {
        nodes.push(TestApp::spawn_with(&args).await);
    }
    nodes
}

pub fn skipped() -> bool {
    if !on_postgres() {
        eprintln!("skipped: the cluster tests need PostgreSQL (DOCKET_TEST_POSTGRES)");
    }
    !on_postgres()
}

/// Files must be shared too: without a bucket each node keeps its uploads to itself.
pub fn skipped_without_a_bucket() -> bool {
    let none = std::env::var_os("DOCKET_TEST_BLOB_URL").is_none();
    if none {
        eprintln!("skipped: documents across nodes need a shared bucket (DOCKET_TEST_BLOB_URL)");
    }
    skipped() || none
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_issued_on_one_node_is_redeemed_on_another_and_once_when_two_race() {
    if skipped() {
        return;
    }
    let nodes = three_nodes(&[]).await;
    let (a, b, c) = (&nodes[0], &nodes[1], &nodes[2]);
    let (id, secret) = setup(a, &[]);

    // Logged in at A, the session works at B: consent there gives the code; C redeems it and
    // the token works at A.
    let cookie = sign_in(a, EMAIL, PASSWORD).await.unwrap();
    let issued = code(b, &cookie, &id, "READ_PROFILE", &[]).await;
    let (access, _) = pair(redeem(c, &id, &secret, &issued, &[]).await).await;
    assert_eq!(me(a, &access).await.status(), 200);

    // Two nodes redeem one code at the same moment: one gets tokens, the other invalid_grant.
    for _ in 0..5 {
        let raced = code(a, &cookie, &id, "READ_PROFILE", &[]).await;
        let (one, two) = tokio::join!(
            redeem(b, &id, &secret, &raced, &[]),
            redeem(c, &id, &secret, &raced, &[])
        );
        let mut statuses = [one.status().as_u16(), two.status().as_u16()];
        statuses.sort();
        assert_eq!(statuses, [200, 400], "exactly one redemption");
    }
    for n in nodes {
        n.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_token_raced_at_two_nodes_rotates_once_and_the_reuse_ends_the_grant() {
    if skipped() {
        return;
    }
    let nodes = three_nodes(&[]).await;
    let (a, b, c) = (&nodes[0], &nodes[1], &nodes[2]);
    // A public client: its refresh tokens always rotate.
    let (id, _) = setup(a, &["--public"]);
    let cookie = sign_in(a, EMAIL, PASSWORD).await.unwrap();
    for _ in 0..3 {
        let (challenge, verifier) = oauth2::PkceCodeChallenge::new_random_sha256();
        let pkce = [
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
        ];
        let issued = code(a, &cookie, &id, "READ_PROFILE", &pkce).await;
        let verifier = [("code_verifier", verifier.secret().as_str())];
        let (access, rt) = pair(redeem(c, &id, "", &issued, &verifier).await).await;

        // B and C present the same refresh token at once: one rotates it; the other presents
        // a token rotated out (or waits for the row and then finds it so), which is reuse:
        // the whole grant ends, the winner's new tokens included.
        let (one, two) = tokio::join!(refresh(b, &id, "", &rt), refresh(c, &id, "", &rt));
        let mut answers = Vec::new();
        for resp in [one, two] {
            let status = resp.status().as_u16();
            answers.push((status, resp.json::<Value>().await.unwrap()));
        }
        answers.sort_by_key(|(status, _)| *status);
        assert_eq!(
            [answers[0].0, answers[1].0],
            [200, 400],
            "exactly one rotation: {answers:?}"
        );
        assert_eq!(answers[1].1["error"], "invalid_grant");
        let won = &answers[0].1;
        let (new_access, new_rt) = (
            won["access_token"].as_str().unwrap(),
            won["refresh_token"].as_str().unwrap(),
        );
        assert_ne!(new_rt, rt);
        for node in [a, b, c] {
            assert_eq!(me(node, &access).await.status(), 401);
            assert_eq!(
                me(node, new_access).await.status(),
                401,
                "reuse revoked the grant"
            );
        }
        assert_eq!(refresh(a, &id, "", new_rt).await.status(), 400);
    }
    for n in nodes {
        n.stop().await;
    }
}

fn field(rid: i64, kind: &str, y: i64) -> Value {
    let mut f = json!({"recipientId": rid, "type": kind, "pageNumber": 1, "pageX": 10,
        "pageY": y, "pageWidth": 30, "pageHeight": 5});
    if kind == "TEXT" {
        f["fieldMeta"] = json!({"type": "text"});
    }
    f
}

/// `api`'s credential at `node`.
fn at(node: &TestApp, api: &Api) -> Api {
    node.api(api.key())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs Python's aiosmtpd")]
async fn a_document_created_on_one_node_is_uploaded_on_another_signed_on_a_third_and_sealed_once() {
    if skipped_without_a_bucket() {
        return;
    }
    // Every node sends through one SMTP server, which keeps what it receives.
    let smtp = MailBox::start();
    let nodes = three_nodes(&["--smtp-url", &smtp.url()]).await;
    let (a, b, c) = (&nodes[0], &nodes[1], &nodes[2]);
    let api_a = a.user_with_key("owner@example.com", "standard");
    let (api_b, api_c) = (at(b, &api_a), at(c, &api_a));

    let created = api_a
        .create_document(json!({"title": "Across nodes", "recipients": [
            {"name": "Ann", "email": "ann@example.com", "role": "SIGNER"},
            {"name": "Bob", "email": "bob@example.com", "role": "SIGNER"}]}))
        .await;
    let id = created.document_id();
    // The upload URL was signed by A; B accepts it (one key ring for all).
    let upload = created.upload_url().replace(&a.base, &b.base);
    let (s, v) = api_b.upload(&upload, fixture("a4-1p.pdf")).await;
    assert_eq!(s, 200, "{v}");
    let (ann, bob) = (created.recipient_id(0), created.recipient_id(1));
    let ids = api_c
        .add_fields(
            id,
            json!([field(ann, "SIGNATURE", 80), field(bob, "SIGNATURE", 60)]),
        )
        .await;
    let (s, v) = api_b.send_with(id, json!({"sendEmail": true})).await;
    assert_eq!(s, 200, "{v}");

    // Ann signs at A and finishes at B; Bob signs at C and finishes at B and C at once.
    let ann_at_a = a.signer(&created.token(0));
    assert_eq!(ann_at_a.sign(ids[0]).await.0, 200);
    let (s, v) = b.signer(&created.token(0)).complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(c.signer(&created.token(1)).sign(ids[1]).await.0, 200);
    let (bob_at_b, bob_at_c) = (b.signer(&created.token(1)), c.signer(&created.token(1)));
    let (one, two) = tokio::join!(bob_at_b.complete(json!({})), bob_at_c.complete(json!({})));
    let completing = [&one, &two]
        .iter()
        .filter(|(s, v)| *s == 200 && v["documentCompleting"] == true)
        .count();
    assert_eq!(completing, 1, "one completion: {one:?} {two:?}");

    // Three sealers watch the database; the document is sealed once.
    let doc = api_c
        .wait_document(id, "COMPLETED", |d| d["status"] == "COMPLETED")
        .await;
    assert!(
        doc.get("sealing").is_none(),
        "sealed at the first attempt: {doc}"
    );
    let sealed = api_a
        .get_response(&format!("/api/v1/documents/{id}/download"))
        .await;
    assert_eq!(sealed.status(), 200);
    let db = TestDb::open(&a.data_dir());
    let count = |sql: &'static str| -> i64 { db.query_row(sql, [id], |r| r.get(0)).unwrap() };
    assert_eq!(
        count("SELECT count(*) FROM audit_events WHERE document_id = ?1 AND type = 'COMPLETED'"),
        1
    );
    // One sealed file: the original and the sealed PDF are the document's only blobs.
    assert_eq!(
        count(
            "SELECT count(*) FROM blobs WHERE id IN (SELECT blob_id FROM documents WHERE id = ?1
                UNION SELECT sealed_blob_id FROM documents WHERE id = ?1)"
        ),
        2
    );
    assert_eq!(
        db.query_row("SELECT count(*) FROM blobs", [], |r| r.get::<_, i64>(0))
            .unwrap(),
        2
    );

    // Every queued message is sent once, none twice, none left: counted where they arrive.
    let deadline = Instant::now() + Duration::from_secs(30);
    let expected = [
        ("ann@example.com", 2), // the request and the signed copy
        ("bob@example.com", 2),
        ("owner@example.com", 1), // the signed copy
    ];
    let received = |to: &str| {
        smtp.messages()
            .iter()
            .filter(|m| m.contains(&format!("To: {to}")))
            .count()
    };
    loop {
        let queued: i64 =
            count("SELECT count(*) FROM mail_queue WHERE document_id = ?1 AND status = 'QUEUED'");
        let all_in = expected.iter().all(|(to, n)| received(to) >= *n);
        if queued == 0 && all_in {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{queued} messages still queued, received {:?}",
            expected.map(|(to, _)| received(to))
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Three mail workers had the chance to send each twice.
    tokio::time::sleep(Duration::from_secs(2)).await;
    for (to, n) in expected {
        assert_eq!(received(to), n, "messages to {to}");
    }
    assert_eq!(
        count("SELECT count(*) FROM mail_queue WHERE document_id = ?1 AND status <> 'SENT'"),
        0
    );
    for n in nodes {
        n.stop().await;
    }
}

/// Two workers claim from one mail queue at the same moment, each in its own transaction on
/// its own connection (as two nodes do): they get disjoint messages and, between them, all.
#[test]
fn two_workers_claiming_at_once_never_take_the_same_message() {
    use docket::{
        outbox::mail::Kind, outbox::mail::NewMail, outbox::mail::compose::Composed,
        outbox::mail::store,
    };
    if skipped() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let url = postgres_for(&data).unwrap();
    let db = crate::support::open_db(&data);
    let queued: Vec<i64> = db
        .write_blocking(|c| {
            (0..20)
                .map(|i| {
                    let content = Composed {
                        subject: format!("m{i}"),
                        text: "t".into(),
                        html: "h".into(),
                    };
                    store::enqueue(
                        c,
                        &NewMail::new(Kind::SigningRequest, "a@x.org", content),
                        0,
                    )
                })
                .collect()
        })
        .unwrap();
    // Both start claiming at once, each in its own transaction.
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let (url, barrier) = (url.clone(), barrier.clone());
            std::thread::spawn(move || {
                let c = docket::core::db::Conn::postgres_connect(&url).unwrap();
                c.execute_batch("BEGIN").unwrap();
                barrier.wait();
                let got: Vec<i64> = store::claim(&c, 10, 400, 12)
                    .unwrap()
                    .iter()
                    .map(|m| m.id)
                    .collect();
                c.execute_batch("COMMIT").unwrap();
                got
            })
        })
        .collect();
    let got: Vec<Vec<i64>> = workers.into_iter().map(|w| w.join().unwrap()).collect();
    assert!(
        got.iter().all(|g| !g.is_empty()),
        "both claimed some: {got:?}"
    );
    let mut all: Vec<i64> = got.concat();
    let claimed = all.len();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), claimed, "no message claimed twice: {got:?}");
    assert_eq!(all, queued, "between them, every message");
}
