//! What a write to the document and template API answers a caller that may not read documents
//! (an OAuth token with WRITE_DOCUMENT but not READ_DOCUMENT): a receipt, never the contents.
//!
//! A write names an existing document, recipient, field or template by id, so an answer that
//! carried the object would make every write a read: `send` on a PENDING document, or a
//! `PATCH` with an empty body, would hand over what signers typed, who signed and when, titles
//! and addresses. The rule is one allowlist applied to the whole answer after it is built, so
//! a key added to a view later stays out of receipts until it is listed here.

use serde_json::{Map, Value};

use crate::identity::principal::Principal;

/// Keys a receipt keeps when their value is a scalar: the ids of what was written (to carry on
/// with it) and the outcome of the write (which the caller caused and so already knows).
const KEPT: &[&str] = &[
    "id",
    "documentId",
    "templateId",
    "recipientId",
    "externalId",
    "status",
    "uploadUrl",
    "deleted",
    "outcome",
    "message",
];

/// Keys whose objects (or lists of objects) are kept as receipts themselves: the ids of the
/// recipients, fields and template a write created or changed.
const NESTED: &[&str] = &["recipients", "fields", "template"];

/// `answer` as `who` may see it: unchanged for a caller that may read documents, else its
/// receipt.
pub fn shown_to(who: &Principal, answer: Value) -> Value {
    if who.reads_documents() {
        answer
    } else {
        receipt(answer)
    }
}

/// The ids and outcome keys of `answer` (see `KEPT`), recursively through `NESTED`; anything
/// else is left out, as are lists of plain values (such as the ids `resend` reminded, which
/// would tell who has not signed yet).
pub fn receipt(answer: Value) -> Value {
    match answer {
        Value::Object(map) => Value::Object(receipt_of(map)),
        Value::Array(items) => Value::Array(items.into_iter().map(receipt).collect()),
        _ => Value::Null,
    }
}

fn receipt_of(map: Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in map {
        let kept = match value {
            Value::Object(_) | Value::Array(_) if NESTED.contains(&key.as_str()) => nested(value),
            Value::Object(_) | Value::Array(_) => None,
            scalar if KEPT.contains(&key.as_str()) => Some(scalar),
            _ => None,
        };
        if let Some(v) = kept {
            out.insert(key, v);
        }
    }
    out
}

/// An object, or a list of objects, as receipts; anything else is dropped.
fn nested(value: Value) -> Option<Value> {
    match value {
        Value::Object(map) => Some(Value::Object(receipt_of(map))),
        Value::Array(items) if items.iter().all(Value::is_object) => Some(Value::Array(
            items.into_iter().map(receipt).collect::<Vec<_>>(),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::core::ids::{ClientId, GrantId, UserId};
    use crate::identity::principal::{ActsFor, Via};
    use crate::identity::scope::Scope;

    fn caller(scopes: &[Scope]) -> Principal {
        Principal {
            user_id: UserId::new(1),
            scopes: scopes.to_vec(),
            via: Via::AccessToken {
                client: ClientId::new(1),
                grant: GrantId::new(1),
            },
            acts_for: ActsFor::Personal,
        }
    }

    #[test]
    fn a_document_answer_keeps_ids_and_outcome_only() {
        let doc = json!({
            "id": 4, "externalId": "crm-1", "title": "Lease", "status": "PENDING",
            "userId": 1, "completedAt": null, "message": "Document sent for signing successfully",
            "recipients": [{"id": 7, "documentId": 4, "email": "ann@example.com",
                            "signingStatus": "SIGNED", "signedAt": "2026-01-01T00:00:00Z",
                            "authOptions": {"accessAuth": []}}],
            "fields": [{"id": 9, "recipientId": 7, "customText": "Ann's secret",
                        "inserted": true, "fieldMeta": {"label": "x"}, "pageX": 10.0}],
            "meta": {"subject": "s"}, "sealing": {"status": "FAILED"},
        });
        let got = receipt(doc);
        assert_eq!(
            got,
            json!({
                "id": 4, "externalId": "crm-1", "status": "PENDING",
                "message": "Document sent for signing successfully",
                "recipients": [{"id": 7, "documentId": 4}],
                "fields": [{"id": 9, "recipientId": 7}],
            })
        );
    }

    #[test]
    fn lists_of_plain_values_and_unknown_objects_are_left_out() {
        let reminded = json!({"documentId": 4, "recipients": [7, 8], "message": "m"});
        assert_eq!(receipt(reminded), json!({"documentId": 4, "message": "m"}));
        let template = json!({"templateId": 2, "uploadUrl": "u", "template": {"id": 2, "title": "T",
            "Recipient": [{"id": 1}], "templateMeta": {"subject": "s"}}});
        assert_eq!(
            receipt(template),
            json!({"templateId": 2, "uploadUrl": "u", "template": {"id": 2}})
        );
    }

    #[test]
    fn readers_get_the_answer_unchanged() {
        let doc = json!({"id": 4, "title": "Lease"});
        let both = caller(&[Scope::ReadDocument, Scope::WriteDocument]);
        assert_eq!(shown_to(&both, doc.clone()), doc);
        let write = caller(&[Scope::WriteDocument]);
        assert_eq!(shown_to(&write, doc), json!({"id": 4}));
    }
}
