//! The signing flow through its use cases, on an in-memory database: a document is created,
//! given its PDF and fields, sent, filled, signed in turn, rejected; and (in `sealing.rs`)
//! sealed. The HTTP layer has its own black-box tests; these pin the rules at the domain level.

use crate::core::ids::{DocumentId, FieldId, UserId};
use crate::http::api::wire::fields::batch::FieldBatch;
use serde_json::json;

use super::link::{self, Call, Visit};
use super::link_answers::{Completion, FieldSaved};
use crate::core::context::Context;
use crate::core::db::Db;
use crate::core::error::AppError;
use crate::identity::factors::Verifier;
use crate::identity::principal::{ActsFor, Principal, Via};
use crate::identity::scope::Scope;
use crate::identity::users::checks::PasswordChecks;
use crate::signing::documents::audit::Origin;
use crate::signing::documents::values::{Entry, Filled, Mark};
use crate::{signing::documents::manage, signing::uploads};

/// A document sent to two signers in turn, each with one signature field.
pub(crate) struct Sent {
    pub ctx: Context,
    pub verifier: Verifier,
    pub doc: DocumentId,
    /// The two signers' tokens and field ids, in signing order.
    pub signers: Vec<(String, FieldId)>,
    pub _dir: tempfile::TempDir,
}

fn owner() -> Principal {
    Principal {
        user_id: UserId::new(1),
        scopes: Scope::ALL.to_vec(),
        via: Via::ApiKey,
        acts_for: ActsFor::Personal,
    }
}

fn pdf() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/pdf/a4-1p.pdf"
    ))
    .unwrap()
}

pub(crate) async fn sent() -> Sent {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::memory();
    db.write(|c| {
        c.execute(
            "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
             VALUES (1, 'owner@x.org', 'owner', 'Owner', 'x', 0, 0)",
            [],
        )?;
        Ok(())
    })
    .await
    .unwrap();
    let ctx = Context {
        db,
        blobs: crate::core::blob::BlobStore::open(&dir.path().join("blobs")).unwrap(),
        workers: Default::default(),
        app: "https://sign.example".into(),
        disk: crate::core::disk_space::DiskSpace::unlimited(),
    };
    let secrets =
        crate::core::crypto::SecretBox::load_or_create_file(dir.path(), "account.key").unwrap();
    let verifier = Verifier {
        secrets: std::sync::Arc::new(secrets),
        rp: None,
    };
    let who = owner();
    let body = json!({
        "title": "NDA",
        "recipients": [
            {"name": "Ann", "email": "ann@x.org", "role": "SIGNER", "signingOrder": 1},
            {"name": "Bob", "email": "bob@x.org", "role": "SIGNER", "signingOrder": 2},
        ],
        "meta": {"signingOrder": "SEQUENTIAL"},
    });
    let body: crate::http::api::wire::documents::create::CreateDocumentRequest =
        serde_json::from_value(body).unwrap();
    let created = manage::create(&ctx, &who, body.validate().unwrap(), Origin::default())
        .await
        .unwrap();
    let target = uploads::target(&ctx, created.data_id.clone())
        .await
        .unwrap();
    let bytes: uploads::Body = Box::pin(futures_util::stream::once(async {
        Ok::<_, AppError>(bytes::Bytes::from(pdf()))
    }));
    uploads::receive(&ctx, target, bytes, 1 << 24, Origin::default())
        .await
        .unwrap();
    let mut signers = Vec::new();
    for r in &created.recipients {
        let field = json!({"recipientId": r.id, "type": "SIGNATURE", "pageNumber": 1,
            "pageX": 10, "pageY": 10, "pageWidth": 20, "pageHeight": 5});
        let field: FieldBatch = serde_json::from_value(field).unwrap();
        let added = manage::add_fields(&ctx, &who, created.id, field.command())
            .await
            .unwrap();
        signers.push((r.token.clone().unwrap(), added[0].id));
    }
    let opts = super::sending::SendDocument {
        send_email: false,
        ..Default::default()
    };
    super::sending::send(&ctx, &who, created.id, opts, Origin::default())
        .await
        .unwrap();
    Sent {
        ctx,
        verifier,
        doc: created.id,
        signers,
        _dir: dir,
    }
}

fn call(token: &str) -> Call {
    Call {
        visit: Visit {
            token: token.into(),
            session: None,
        },
        origin: Origin::default(),
        proof: None,
    }
}

async fn fill(s: &Sent, who: usize) -> Result<FieldSaved, AppError> {
    let (token, field) = &s.signers[who];
    let typed = Filled {
        value: Entry::Missing,
        mark: Mark::Typed(Some("A. Signer".into())),
    };
    link::fill(&s.ctx, &s.verifier, call(token), *field, typed).await
}

async fn complete(s: &Sent, who: usize) -> Result<Completion, AppError> {
    let checks = (&s.verifier, &PasswordChecks::new(1));
    link::complete(&s.ctx, checks, call(&s.signers[who].0)).await
}

/// Whether the sealer was woken since the last look.
async fn sealer_woken(s: &Sent) -> bool {
    let woken = s.ctx.workers.sealing.notified();
    tokio::time::timeout(std::time::Duration::ZERO, woken)
        .await
        .is_ok()
}

async fn status(s: &Sent) -> String {
    manage::get(&s.ctx, &owner(), s.doc)
        .await
        .unwrap()
        .status
        .as_str()
        .to_string()
}

/// The audit events' types, oldest first.
async fn events(s: &Sent) -> Vec<String> {
    let (log, _) = super::sending::audit_log(&s.ctx, &owner(), s.doc, (1, 500))
        .await
        .unwrap();
    serde_json::to_value(log)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn signers_go_in_turn_each_once_and_the_last_one_completes() {
    let s = sent().await;
    assert_eq!(status(&s).await, "PENDING");
    // Bob is second: nothing before Ann has finished.
    assert_eq!(fill(&s, 1).await.unwrap_err().status(), 409);
    // Ann cannot finish before her signature is in.
    assert_eq!(complete(&s, 0).await.unwrap_err().status(), 400);
    fill(&s, 0).await.unwrap();
    let ann = complete(&s, 0).await.unwrap();
    assert!(!ann.document_completing);
    assert!(!sealer_woken(&s).await, "nothing to seal yet");
    assert_eq!(
        complete(&s, 0).await.unwrap_err().status(),
        409,
        "only once"
    );
    fill(&s, 1).await.unwrap();
    let bob = complete(&s, 1).await.unwrap();
    assert!(
        bob.document_completing,
        "the last signer hands the document to the sealer"
    );
    assert!(sealer_woken(&s).await, "and wakes it");
    // Completed only by the sealer, once the sealed file exists.
    assert_eq!(status(&s).await, "PENDING");
    let log = events(&s).await;
    for e in ["CREATED", "UPLOADED", "SENT", "FIELD_FILLED", "SIGNED"] {
        assert!(log.iter().any(|x| x == e), "{e} in {log:?}");
    }
    assert_eq!(log.iter().filter(|x| *x == "SIGNED").count(), 2);
}

#[tokio::test]
async fn a_rejection_ends_the_document_for_everyone() {
    let s = sent().await;
    let passwords = PasswordChecks::new(1);
    let reject = |token: &str, reason: &str| {
        let checks = (&s.verifier, &passwords);
        link::reject(&s.ctx, checks, call(token), reason.to_string())
    };
    assert_eq!(
        reject(&s.signers[0].0, "  ").await.unwrap_err().status(),
        400
    );
    reject(&s.signers[0].0, "wrong terms").await.unwrap();
    assert_eq!(status(&s).await, "REJECTED");
    assert_eq!(fill(&s, 1).await.unwrap_err().status(), 409);
    assert_eq!(complete(&s, 0).await.unwrap_err().status(), 409);
    assert!(events(&s).await.iter().any(|e| e == "REJECTED"));
}

#[tokio::test]
async fn an_unknown_or_draft_link_is_a_404() {
    let s = sent().await;
    assert_eq!(
        fill(
            &Sent {
                signers: vec![("nope".into(), FieldId::new(1))],
                ..s
            },
            0
        )
        .await
        .unwrap_err()
        .status(),
        404
    );
}
