//! A document as webhooks deliver it (`DocumentPayload`, the payload of every DOCUMENT_* event),
//! and queuing a document event for the owner's endpoints.

use serde::Serialize;

use super::auth_options::AuthOptions;
use super::meta::Meta;
use super::{DocumentView, FieldView, RecipientView, SealingView, SigningLinks, Status};
use crate::core::db::Conn;
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, TeamId, TemplateId, UserId};
use crate::{outbox::webhooks, outbox::webhooks::Event};
use crate::{outbox::webhooks::payload::Envelope, outbox::webhooks::payload::body};

/// Queues one delivery of `event` per endpoint of the document's owner subscribed to it, in the
/// caller's transaction (it only inserts); wake the worker (`Workers::notices`) after the commit.
/// The payload is the document as the endpoint's creator may read it: an app's endpoints (bound
/// to its OAuth grant) never get the recipients' signing links.
pub fn enqueue(conn: &Conn, event: Event, view: &DocumentView, now: i64) -> Result<(), AppError> {
    let (mut full, mut without_links) = (None, None);
    let owner = crate::core::owner::Owner::of_row(view.user_id, view.team_id.map(TeamId::new));
    webhooks::enqueue(conn, &owner, event, now, |hook| {
        let links = hook.grant.is_none();
        let shown = if links { &mut full } else { &mut without_links };
        let payload = shown.get_or_insert_with(|| DocumentPayload::of(view, links));
        body(&Envelope::new(event, payload, now, &hook.url))
    })
}

/// A document as a webhook shows it: as the API does (signing links only when `links`), plus
/// the keys the signing service's own payload has that the API's shape lacks. `Recipient`
/// repeats `recipients` (its older name), each recipient gaining what docket does not track
/// (never expiring, never rejected with a reason); `documentMeta` is `meta` with the
/// document's id; the document is never soft-deleted, visible to everyone on the account, and
/// made through the API.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentPayload {
    pub id: DocumentId,
    pub external_id: Option<String>,
    pub user_id: UserId,
    pub team_id: Option<i64>,
    pub folder_id: Option<String>,
    pub title: String,
    pub status: Status,
    pub document_data_id: String,
    pub created_at: String,
    pub updated_at: String,
    pub completed_at: Option<String>,
    pub recipients: Vec<RecipientPayload>,
    /// `recipients` again.
    #[serde(rename = "Recipient")]
    pub recipient: Vec<RecipientPayload>,
    pub fields: Vec<FieldView>,
    pub meta: Meta,
    pub document_meta: DocumentMeta,
    pub auth_options: AuthOptions,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sealing: Option<SealingView>,
    /// Never deleted: null.
    pub deleted_at: Option<String>,
    /// Null: a document keeps no link to the template it came from.
    pub template_id: Option<TemplateId>,
    /// Null.
    pub form_values: Option<()>,
    /// `DOCUMENT`.
    pub source: &'static str,
    /// Who in its team sees it (`EVERYONE` for a personal document).
    pub visibility: crate::core::owner::Visibility,
}

/// A recipient as the signing service's payload has one: the API's (its deadline included),
/// and what docket does not track, all null.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecipientPayload {
    #[serde(flatten)]
    pub recipient: RecipientView,
    pub template_id: Option<TemplateId>,
    pub document_deleted_at: Option<String>,
    pub rejection_reason: Option<String>,
}

/// `meta` with the document's id, as a string (`id`) and as a number (`documentId`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentMeta {
    #[serde(flatten)]
    pub meta: Meta,
    pub id: String,
    pub document_id: DocumentId,
}

impl DocumentPayload {
    /// `view` as a webhook shows it, with the signing links when `links`. A member added to
    /// the view must be added here too (a test compares their keys).
    pub fn of(view: &DocumentView, links: bool) -> DocumentPayload {
        let v = view.clone().links_shown_if(links);
        let recipients: Vec<RecipientPayload> = v
            .recipients
            .into_iter()
            .map(|recipient| RecipientPayload {
                recipient,
                template_id: None,
                document_deleted_at: None,
                rejection_reason: None,
            })
            .collect();
        DocumentPayload {
            id: v.id,
            external_id: v.external_id,
            user_id: v.user_id,
            team_id: v.team_id,
            folder_id: v.folder_id,
            title: v.title,
            status: v.status,
            document_data_id: v.document_data_id,
            created_at: v.created_at,
            updated_at: v.updated_at,
            completed_at: v.completed_at,
            recipient: recipients.clone(),
            recipients,
            fields: v.fields,
            document_meta: DocumentMeta {
                meta: v.meta.clone(),
                id: v.id.to_string(),
                document_id: v.id,
            },
            meta: v.meta,
            auth_options: v.auth_options,
            sealing: v.sealing,
            deleted_at: None,
            template_id: None,
            form_values: None,
            source: "DOCUMENT",
            visibility: v.visibility,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ids::{FieldId, RecipientId};
    use crate::signing::documents::fields::FieldType;
    use crate::signing::documents::model::{Document, Field, Recipient, SealRecord};
    use crate::signing::documents::recipients::{ReadStatus, Role, SendStatus, SigningStatus};

    /// A sent document with one signer and one field, its first sealing attempt failed.
    fn document() -> Document {
        Document {
            id: DocumentId::new(4),
            user_id: UserId::new(1),
            team_id: None,
            visibility: crate::core::owner::Visibility::Everyone,
            folder_id: None,
            external_id: Some("crm-1".into()),
            title: "Lease \"B\" <1>".into(),
            status: Status::Pending,
            document_data_id: "data-4".into(),
            blob_id: Some("blob".into()),
            page_sizes: Some(vec![[612.0, 792.0]]),
            meta: Meta {
                subject: Some("Please sign".into()),
                ..Meta::default()
            },
            auth_options: AuthOptions::default(),
            form_values: None,
            sealed_blob_id: None,
            created_at: 1_764_000_000,
            updated_at: 1_764_000_060,
            completed_at: None,
            seal: SealRecord {
                failures: 1,
                error: Some("the seal certificate is not available".into()),
                next_at: Some(1_764_000_090),
            },
            template_id: None,
            recipients: vec![Recipient {
                id: RecipientId::new(7),
                email: "ann@example.com".into(),
                name: "Ann".into(),
                role: Role::Signer,
                signing_order: Some(1),
                token: "tok-ann".into(),
                auth: Default::default(),
                read_status: ReadStatus::Opened,
                signing_status: SigningStatus::Signed,
                send_status: SendStatus::Sent,
                opened_at: Some(1_764_000_030),
                signed_at: Some(1_764_000_050),
                acted_ip: Some("10.0.0.1".into()),
                acted_user_agent: None,
                auth_method: None,
                auth_user_id: None,
                direct_link: false,
                expires_at: None,
                expiration_notified_at: None,
                reminders_sent: 0,
                rejection_reason: None,
            }],
            fields: vec![Field {
                id: FieldId::new(9),
                recipient_id: RecipientId::new(7),
                kind: FieldType::Signature,
                page: 1,
                x: 10.5,
                y: 20.25,
                width: 30.0,
                height: 5.0,
                meta: None,
                inserted: true,
                custom_text: Some("Ann".into()),
                drawn: false,
            }],
        }
    }

    /// The body queued for `event`, as `enqueue` writes it.
    fn queued(event: Event, links: bool) -> String {
        let view = DocumentView::of(&document(), "https://docket.test");
        let payload = DocumentPayload::of(&view, links);
        body(&Envelope::new(
            event,
            &payload,
            1_764_000_100,
            "https://hooks.test/in",
        ))
        .unwrap()
    }

    /// The bodies stored before the payload was typed (built as `serde_json::Value`s), one line
    /// per event: its name, a space, the body.
    fn stored(kind: &str) -> Vec<(String, String)> {
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/webhook_bodies.txt"
        ))
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(name, _)| name.starts_with(kind))
        .map(|(name, body)| (name.to_string(), body.to_string()))
        .collect()
    }

    /// With `DOCKET_WRITE_WEBHOOKS=1`, rewrites the document events' lines of the fixture as
    /// `queued` now writes them (after a deliberate change of the payload), keeping the rest.
    fn rewrite_fixture(events: &[Event]) {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/webhook_bodies.txt"
        );
        let old = std::fs::read_to_string(path).unwrap();
        let mut lines: Vec<String> = events
            .iter()
            .map(|e| format!("{} {}", e.as_str(), queued(*e, true)))
            .collect();
        lines.push(format!(
            "DOCUMENT_SIGNED/app {}",
            queued(Event::DocumentSigned, false)
        ));
        let is_document =
            |name: &str| name == "DOCUMENT_SIGNED/app" || events.iter().any(|e| e.as_str() == name);
        lines.extend(
            old.lines()
                .filter(|l| !is_document(l.split_once(' ').map_or(*l, |(n, _)| n)))
                .map(String::from),
        );
        std::fs::write(path, lines.join("\n") + "\n").unwrap();
    }

    #[test]
    fn each_document_event_posts_the_bytes_it_did() {
        let events: Vec<Event> = Event::ALL.into_iter().filter(|e| !e.is_booking()).collect();
        if std::env::var_os("DOCKET_WRITE_WEBHOOKS").is_some() {
            rewrite_fixture(&events);
        }
        let expected: Vec<(String, String)> = stored("")
            .into_iter()
            .filter(|(name, _)| name.starts_with("DOCUMENT_") || name == "RECIPIENT_EXPIRED")
            .collect();
        assert_eq!(expected.len(), events.len() + 1);
        for event in events {
            let (_, want) = expected
                .iter()
                .find(|(name, _)| name == event.as_str())
                .unwrap_or_else(|| panic!("no stored body for {event:?}"));
            assert_eq!(&queued(event, true), want, "{event:?}");
        }
        // An app's endpoint: the same without the signing links.
        let (_, want) = expected
            .iter()
            .find(|(name, _)| name == "DOCUMENT_SIGNED/app")
            .expect("a stored body without links");
        assert_eq!(&queued(Event::DocumentSigned, false), want);
    }

    #[test]
    fn the_payload_has_every_member_of_the_apis_document() {
        let view = DocumentView::of(&document(), "https://docket.test");
        let keys = |v: serde_json::Value| -> Vec<String> {
            v.as_object().unwrap().keys().cloned().collect()
        };
        let payload = keys(serde_json::to_value(DocumentPayload::of(&view, true)).unwrap());
        for key in keys(serde_json::to_value(&view).unwrap()) {
            assert!(payload.contains(&key), "{key} is missing from the payload");
        }
    }
}
