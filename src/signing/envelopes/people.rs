//! Recipients and fields in the peer's v2 shape, made from the one read model documents and
//! templates share (`documents::model::{Recipient, Field}`).

use serde::Serialize;
use serde_json::Value;

use super::time;
use crate::core::ids::{FieldId, RecipientId};
use crate::signing::documents::auth_options::RecipientAuth;
use crate::signing::documents::fields::FieldType;
use crate::signing::documents::model::{Field, Recipient};
use crate::signing::documents::recipients::{ReadStatus, Role, SendStatus, SigningStatus};
use crate::signing::envelope_ids::{self, Envelope};

/// What a recipient or field belongs to, as its answer names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parent {
    pub envelope: Envelope,
    /// Whether the answer is a legacy one (`documentId` / `templateId` beside `envelopeId`).
    pub legacy: bool,
}

impl Parent {
    fn document_id(self) -> Option<Option<i64>> {
        match self.envelope {
            Envelope::Document(d) if self.legacy => Some(Some(d.get())),
            Envelope::Template(_) if self.legacy => Some(None),
            _ => None,
        }
    }

    fn template_id(self) -> Option<Option<i64>> {
        match self.envelope {
            Envelope::Template(t) if self.legacy => Some(Some(t.get())),
            Envelope::Document(_) if self.legacy => Some(None),
            _ => None,
        }
    }

    /// The one file of a docket document or template, as the peer's envelope item.
    pub fn item_id(self) -> String {
        envelope_ids::item_id(self.envelope.item_number())
    }
}

/// A recipient (`EnvelopeRecipient`; with `documentId`/`templateId`, `LegacyRecipient`).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2Recipient)]
pub struct V2Recipient {
    pub envelope_id: String,
    pub role: Role,
    pub read_status: ReadStatus,
    pub signing_status: SigningStatus,
    pub send_status: SendStatus,
    pub id: RecipientId,
    pub email: String,
    pub name: String,
    /// The signing token; `""` for a caller that may not see signing links.
    pub token: String,
    pub document_deleted_at: Option<String>,
    /// When their time passed, if it did before they finished.
    pub expired: Option<String>,
    pub signed_at: Option<String>,
    pub auth_options: Option<RecipientAuth>,
    pub signing_order: Option<i64>,
    pub rejection_reason: Option<String>,
    pub expires_at: Option<String>,
    pub expiration_notified_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<i64>)]
    pub document_id: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<i64>)]
    pub template_id: Option<Option<i64>>,
}

impl V2Recipient {
    pub fn of(r: &Recipient, parent: Parent, links: bool) -> V2Recipient {
        let now = crate::core::db::now();
        V2Recipient {
            envelope_id: parent.envelope.id(),
            role: r.role,
            read_status: r.read_status,
            signing_status: r.signing_status,
            send_status: r.send_status,
            id: r.id,
            email: r.email.clone(),
            name: r.name.clone(),
            token: if links {
                r.token.clone()
            } else {
                String::new()
            },
            document_deleted_at: None,
            expired: r.expired(now).then(|| r.expires_at.map(time)).flatten(),
            signed_at: r.signed_at.map(time),
            auth_options: Some(r.auth.clone()),
            signing_order: r.signing_order,
            rejection_reason: r.rejection_reason.clone(),
            expires_at: r.expires_at.map(time),
            expiration_notified_at: r.expiration_notified_at.map(time),
            document_id: parent.document_id(),
            template_id: parent.template_id(),
        }
    }
}

/// A field (`EnvelopeField`; with `documentId`/`templateId`, `EnvelopeFieldLite`): its box in
/// percent of its page, the page 1-based.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2Field)]
pub struct V2Field {
    pub envelope_id: String,
    pub envelope_item_id: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub id: FieldId,
    pub secondary_id: String,
    pub recipient_id: RecipientId,
    pub page: i64,
    pub position_x: f64,
    pub position_y: f64,
    pub width: f64,
    pub height: f64,
    pub custom_text: String,
    pub inserted: bool,
    /// The field's settings with the peer's discriminator (`type`, lower case), or null.
    #[schema(value_type = Option<Object>)]
    pub field_meta: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<i64>)]
    pub document_id: Option<Option<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<i64>)]
    pub template_id: Option<Option<i64>>,
}

impl V2Field {
    pub fn of(f: &Field, parent: Parent) -> V2Field {
        V2Field {
            envelope_id: parent.envelope.id(),
            envelope_item_id: parent.item_id(),
            kind: type_name(f.kind),
            id: f.id,
            secondary_id: format!("field_{}", f.id),
            recipient_id: f.recipient_id,
            page: f.page,
            position_x: f.x,
            position_y: f.y,
            width: f.width,
            height: f.height,
            custom_text: f.custom_text.clone().unwrap_or_default(),
            inserted: f.inserted,
            field_meta: field_meta(f),
            document_id: parent.document_id(),
            template_id: parent.template_id(),
        }
    }
}

/// The peer's name of a field type: docket's SELECT is its DROPDOWN.
pub fn type_name(kind: FieldType) -> &'static str {
    match kind {
        FieldType::Select | FieldType::Dropdown => "DROPDOWN",
        other => other.as_str(),
    }
}

/// `fieldMeta` as the peer's clients read it: the discriminator in lower case (`dropdown`
/// for SELECT), a NUMBER's value as text, and none for FREE_SIGNATURE (the peer has no
/// settings for it).
fn field_meta(f: &Field) -> Option<Value> {
    if f.kind == FieldType::FreeSignature {
        return None;
    }
    let mut v = serde_json::to_value(f.meta.as_ref()?).ok()?;
    let obj = v.as_object_mut()?;
    obj.insert(
        "type".into(),
        Value::String(type_name(f.kind).to_ascii_lowercase()),
    );
    if let Some(n) = obj.get_mut("value").filter(|n| n.is_number()) {
        *n = Value::String(n.to_string());
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ids::{DocumentId, TemplateId};
    use crate::signing::documents::field_meta::FieldMeta;

    fn field(kind: FieldType, meta: &str) -> Field {
        Field {
            id: FieldId::new(4),
            recipient_id: RecipientId::new(2),
            kind,
            page: 1,
            x: 10.0,
            y: 20.5,
            width: 30.0,
            height: 5.0,
            meta: Some(FieldMeta::read(kind, meta).unwrap()),
            inserted: false,
            custom_text: None,
            drawn: false,
        }
    }

    #[test]
    fn fields_carry_the_peers_names_and_discriminators() {
        let doc = Parent {
            envelope: Envelope::Document(DocumentId::new(9)),
            legacy: true,
        };
        let select = V2Field::of(
            &field(
                FieldType::Select,
                r#"{"type":"select","values":[{"value":"a"}]}"#,
            ),
            doc,
        );
        let v = serde_json::to_value(&select).unwrap();
        assert_eq!(v["type"], "DROPDOWN");
        assert_eq!(v["fieldMeta"]["type"], "dropdown");
        assert_eq!(
            (v["documentId"].clone(), v["templateId"].clone()),
            (9.into(), Value::Null)
        );
        assert_eq!(v["positionY"], 20.5);
        let number = V2Field::of(
            &field(FieldType::Number, r#"{"type":"number","value":7}"#),
            doc,
        );
        assert_eq!(number.field_meta.unwrap()["value"], "7");
        let free = V2Field::of(
            &field(FieldType::FreeSignature, r#"{"type":"free_signature"}"#),
            doc,
        );
        assert!(free.field_meta.is_none());
        let tpl = Parent {
            envelope: Envelope::Template(TemplateId::new(3)),
            legacy: false,
        };
        let v = serde_json::to_value(V2Field::of(
            &field(FieldType::Text, r#"{"type":"text"}"#),
            tpl,
        ))
        .unwrap();
        assert!(v.get("documentId").is_none());
        assert!(v["envelopeId"].as_str().unwrap().starts_with("envelope_"));
        assert!(
            v["envelopeItemId"]
                .as_str()
                .unwrap()
                .starts_with("envelope_item_")
        );
    }
}
