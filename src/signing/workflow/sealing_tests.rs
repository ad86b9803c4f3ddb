use super::*;
use crate::core::ids::UserId;
use crate::identity::principal::{ActsFor, Principal, Via};
use crate::identity::scope::Scope;
use crate::identity::users::checks::PasswordChecks;
use crate::signing::documents::audit::Origin;
use crate::signing::documents::values::{Entry, Filled, Mark};
use crate::{signing::workflow::flow_tests::Sent, signing::workflow::flow_tests::sent};
use crate::{
    signing::workflow::link, signing::workflow::link::Call, signing::workflow::link::Visit,
};

fn owner() -> Principal {
    Principal {
        user_id: UserId::new(1),
        scopes: Scope::ALL.to_vec(),
        via: Via::ApiKey,
        acts_for: ActsFor::Personal,
    }
}

/// Both signers sign, as the flow tests do.
async fn signed() -> Sent {
    let s = sent().await;
    for (token, field) in &s.signers {
        let call = || Call {
            visit: Visit {
                token: token.clone(),
                session: None,
            },
            origin: Origin::default(),
            proof: None,
        };
        let typed = Filled {
            value: Entry::Missing,
            mark: Mark::Typed(Some("A. Signer".into())),
        };
        link::fill(&s.ctx, &s.verifier, call(), *field, typed)
            .await
            .unwrap();
        let checks = (&s.verifier, &PasswordChecks::new(1));
        link::complete(&s.ctx, checks, call()).await.unwrap();
    }
    s
}

fn sealer(s: &Sent) -> Sealer {
    Sealer {
        db: s.ctx.db.clone(),
        blobs: s.ctx.blobs.clone(),
        seal: std::sync::Arc::new(SealKey::lazy(crate::core::secrets::Source::Files(
            crate::core::secrets::Dirs {
                secrets: s._dir.path().join("secrets"),
                tls: s._dir.path().join("tls"),
            },
        ))),
        app_base: s.ctx.app.clone(),
        workers: s.ctx.workers.clone(),
        backoff: backoff(Duration::from_secs(1)),
        lease: SEAL_LEASE,
    }
}

#[test]
fn repeated_fills_are_one_certificate_line_with_count_and_last_time() {
    let fill = |fills: Option<i64>| audit::AuditEvent {
        id: 1,
        kind: audit::Event::FieldFilled,
        created_at: "2026-01-01T10:00:00Z".into(),
        actor: "ann@example.com".into(),
        recipient_id: Some(crate::core::ids::RecipientId::new(2)),
        ip_address: Some("10.0.0.1".into()),
        user_agent: None,
        data: audit::Happened::FieldFilled(audit::Filled {
            fills,
            last: fills.map(|_| audit::LastFill {
                last_filled_at: "2026-01-01T11:00:00Z".into(),
                last_ip_address: Some("10.0.0.9".into()),
            }),
            ..audit::Filled::first(
                crate::core::ids::FieldId::new(7),
                crate::signing::documents::fields::FieldType::Text,
                None,
            )
        }),
    };
    assert_eq!(
        certificate_line(&fill(None)),
        "FIELD_FILLED (TEXT field 7) by ann@example.com from 10.0.0.1"
    );
    assert_eq!(
        certificate_line(&fill(Some(20000))),
        "FIELD_FILLED (TEXT field 7) by ann@example.com from 10.0.0.1; \
         filled 20000 times, last at 2026-01-01T11:00:00Z from 10.0.0.9"
    );
}

#[tokio::test]
async fn a_signed_document_is_sealed_into_a_new_pdf_and_completed_once() {
    let s = signed().await;
    sealer(&s).attempt(s.doc).await.unwrap();
    let doc = crate::signing::documents::manage::get(&s.ctx, &owner(), s.doc)
        .await
        .unwrap();
    assert_eq!(doc.status.as_str(), "COMPLETED");
    let sealed = crate::signing::workflow::sending::download(
        &s.ctx,
        &owner(),
        s.doc,
        false,
        Origin::default(),
    )
    .await
    .unwrap();
    let original = crate::signing::workflow::sending::download(
        &s.ctx,
        &owner(),
        s.doc,
        true,
        Origin::default(),
    )
    .await
    .unwrap();
    assert_ne!(sealed.blob, original.blob);
    let id = crate::core::blob::BlobId::parse(&sealed.blob).unwrap();
    let bytes = s.ctx.blobs.read(&id).unwrap();
    assert!(bytes.starts_with(b"%PDF"));
    assert!(
        bytes
            .windows(b"/ByteRange".len())
            .any(|w| w == b"/ByteRange"),
        "the sealed file carries a signature"
    );
    // A second attempt finds nothing PENDING and changes nothing.
    sealer(&s).attempt(s.doc).await.unwrap();
    let (log, _) = crate::signing::workflow::sending::audit_log(&s.ctx, &owner(), s.doc, (1, 500))
        .await
        .unwrap();
    let completed = serde_json::to_value(log)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "COMPLETED")
        .count();
    assert_eq!(completed, 1);
}

#[tokio::test]
async fn a_failed_attempt_is_recorded_and_the_document_stays_pending() {
    let s = signed().await;
    let original = crate::signing::workflow::sending::download(
        &s.ctx,
        &owner(),
        s.doc,
        true,
        Origin::default(),
    )
    .await
    .unwrap();
    let id = crate::core::blob::BlobId::parse(&original.blob).unwrap();
    s.ctx.blobs.delete(&id).unwrap();
    sealer(&s).attempt(s.doc).await.unwrap();
    let doc = crate::signing::documents::manage::get(&s.ctx, &owner(), s.doc)
        .await
        .unwrap();
    assert_eq!(doc.status.as_str(), "PENDING");
    let sealing = serde_json::to_value(doc.sealing.expect("the failure is shown")).unwrap();
    assert_eq!(sealing["status"], "FAILED");
    assert_eq!(sealing["attempts"], 1);
    let message = sealing["lastError"].as_str().unwrap();
    assert!(message.contains("could not be read"), "{message}");
}
