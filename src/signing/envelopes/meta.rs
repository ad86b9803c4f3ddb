//! A document's or template's meta in the peer's v2 shape (`documentMeta`, `templateMeta`):
//! docket's `Meta` with the switches docket does not have given their fixed values.

use serde::Serialize;
use serde_json::{Value, json};

use crate::core::i18n::Lang;
use crate::signing::documents::deadline::Period;
use crate::signing::documents::meta::{DistributionMethod, EmailSettings, Meta, SigningOrder};

/// `documentMeta` of an envelope (and, with `Legacy`, of a legacy document or template).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2DocumentMeta)]
pub struct DocumentMeta {
    pub id: String,
    pub signing_order: SigningOrder,
    pub distribution_method: DistributionMethod,
    pub subject: Option<String>,
    pub message: Option<String>,
    pub timezone: Option<String>,
    pub date_format: Option<String>,
    pub redirect_url: Option<String>,
    /// Docket's signing page takes typed, drawn and uploaded signatures alike.
    pub typed_signature_enabled: bool,
    pub upload_signature_enabled: bool,
    pub draw_signature_enabled: bool,
    /// Docket has no dictated next signer: always false.
    pub allow_dictate_next_signer: bool,
    pub language: Lang,
    pub email_settings: Option<EmailSettings>,
    /// Docket sends from its one configured address: always null.
    pub email_id: Option<String>,
    pub email_reply_to: Option<String>,
    /// `{unit, amount}`, `{disabled: true}` or null (a fixed end date, which the peer's
    /// clients cannot read, shows as null; the recipients' `expiresAt` carry it).
    #[schema(value_type = Option<Object>)]
    pub envelope_expiration_period: Option<Value>,
    /// `{sendAfter, repeatEvery}` in days, or null.
    #[schema(value_type = Option<Object>)]
    pub reminder_settings: Option<Value>,
    /// Legacy answers only: the document's or template's number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<i64>)]
    pub template_id: Option<Option<i64>>,
    /// Legacy document answers: docket has no document passwords.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub password: Option<Option<String>>,
}

impl DocumentMeta {
    /// `meta` of the document or template whose meta id is `id`.
    pub fn of(id: String, meta: &Meta) -> DocumentMeta {
        DocumentMeta {
            id,
            signing_order: meta.signing_order,
            distribution_method: meta.distribution_method,
            subject: meta.subject.clone(),
            message: meta.message.clone(),
            timezone: Some(meta.timezone.clone()),
            date_format: Some(meta.date_format.clone()),
            redirect_url: meta.redirect_url.clone(),
            typed_signature_enabled: true,
            upload_signature_enabled: true,
            draw_signature_enabled: true,
            allow_dictate_next_signer: false,
            language: meta.language,
            email_settings: Some(meta.email_settings),
            email_id: None,
            email_reply_to: None,
            envelope_expiration_period: meta.envelope_expiration_period.as_ref().and_then(period),
            reminder_settings: meta.reminders.map(|r| {
                let every = json!({"unit": "day", "amount": r.every_days});
                json!({"sendAfter": every, "repeatEvery": every})
            }),
            document_id: None,
            template_id: None,
            password: None,
        }
    }
}

impl DocumentMeta {
    /// A document's meta (its id written from the document's number).
    pub fn of_document(d: &crate::signing::documents::model::Document) -> DocumentMeta {
        DocumentMeta::of(format!("meta_document_{}", d.id), &d.meta)
    }
}

/// A deadline as the peer's clients read it.
fn period(p: &Period) -> Option<Value> {
    match p {
        Period::After { unit, amount } => Some(json!({"unit": unit.as_str(), "amount": amount})),
        Period::Disabled { .. } => Some(json!({"disabled": true})),
        Period::Until { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signing::documents::deadline::{Reminders, Unit};

    #[test]
    fn deadlines_and_reminders_read_as_the_peer_writes_them() {
        let mut meta = Meta {
            envelope_expiration_period: Some(Period::After {
                unit: Unit::Week,
                amount: 2,
            }),
            reminders: Some(Reminders {
                every_days: 3,
                max: 5,
            }),
            ..Meta::default()
        };
        let v = serde_json::to_value(DocumentMeta::of("m".into(), &meta)).unwrap();
        assert_eq!(
            v["envelopeExpirationPeriod"],
            json!({"unit": "week", "amount": 2})
        );
        assert_eq!(
            v["reminderSettings"]["repeatEvery"],
            json!({"unit": "day", "amount": 3})
        );
        assert!(v["emailId"].is_null() && v.get("documentId").is_none());
        meta.envelope_expiration_period = Some(Period::Until {
            until: "2027-01-31T17:00:00Z".into(),
        });
        meta.reminders = None;
        let v = serde_json::to_value(DocumentMeta::of("m".into(), &meta)).unwrap();
        assert!(v["envelopeExpirationPeriod"].is_null() && v["reminderSettings"].is_null());
    }
}
