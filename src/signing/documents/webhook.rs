//! A document as webhooks deliver it, and queuing a document event for the owner's endpoints.

use serde_json::{Value, json};

use super::{DocumentView, SigningLinks};
use crate::core::db::Conn;
use crate::core::error::AppError;
use crate::{outbox::webhooks, outbox::webhooks::Event, outbox::webhooks::payload::envelope};

/// Queues one delivery of `event` per endpoint of the document's owner subscribed to it, in the
/// caller's transaction (it only inserts); wake the worker (`Workers::notices`) after the commit.
/// The payload is the document as the endpoint's creator may read it: an app's endpoints (bound
/// to its OAuth grant) never get the recipients' signing links.
pub fn enqueue(conn: &Conn, event: Event, view: &DocumentView, now: i64) -> Result<(), AppError> {
    let (mut full, mut without_links) = (None, None);
    webhooks::enqueue(conn, view.user_id, event, now, |hook| {
        let links = hook.grant.is_none();
        let shown = if links { &mut full } else { &mut without_links };
        if shown.is_none() {
            *shown = Some(payload(view, links)?);
        }
        let shown = shown.as_ref().expect("set above");
        Ok(envelope(event, shown, now, &hook.url))
    })
}

/// A document as a webhook shows it: as the API does (signing links only when `links`), plus
/// the keys the signing service's own payload has that the API's shape lacks. `Recipient`
/// repeats `recipients` (its older name), each recipient gaining what docket does not track
/// (never expiring, never rejected with a reason); `documentMeta` is `meta` with the
/// document's id; the document is never soft-deleted, visible to everyone on the account, and
/// made through the API.
pub fn payload(view: &DocumentView, links: bool) -> Result<Value, AppError> {
    let shown = view.clone().links_shown_if(links);
    let mut out = serde_json::to_value(shown).map_err(AppError::internal)?;
    let Some(obj) = out.as_object_mut() else {
        return Err(AppError::internal("a document shows as an object"));
    };
    if let Some(Value::Array(recipients)) = obj.get_mut("recipients") {
        for r in recipients.iter_mut().filter_map(Value::as_object_mut) {
            for key in [
                "templateId",
                "documentDeletedAt",
                "expiresAt",
                "expirationNotifiedAt",
                "rejectionReason",
            ] {
                r.entry(key).or_insert(Value::Null);
            }
            r.entry("expired").or_insert(Value::Bool(false));
        }
    }
    let recipients = obj.get("recipients").cloned().unwrap_or(json!([]));
    obj.insert("Recipient".into(), recipients);
    let mut meta = obj.get("meta").cloned().unwrap_or(json!({}));
    if let Some(m) = meta.as_object_mut() {
        m.insert("id".into(), json!(view.id.to_string()));
        m.insert("documentId".into(), json!(view.id));
    }
    obj.insert("documentMeta".into(), meta);
    for (key, value) in [
        ("deletedAt", Value::Null),
        ("templateId", Value::Null),
        ("formValues", Value::Null),
        ("source", json!("DOCUMENT")),
        ("visibility", json!("EVERYONE")),
    ] {
        obj.entry(key).or_insert(value);
    }
    Ok(out)
}
