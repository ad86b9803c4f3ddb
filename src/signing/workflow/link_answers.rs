//! What the signing link's JSON calls answer (`link`): the page's state, a saved field, a
//! finished or rejected recipient, a passkey challenge.
//!
//! These answers were once built as `serde_json::Value` objects, whose keys serde_json keeps
//! sorted; each struct here declares its fields in the alphabetical order of their JSON names,
//! so the page gets the same bytes (the tests below check the order).

use serde::Serialize;
use serde_json::Value;

use super::auth::{ActionAuth, Described};
use crate::core::ids::{DocumentId, FieldId, RecipientId};
use crate::identity::factors::store::Enrolled;
use crate::signing::documents::Status;
use crate::signing::documents::field_meta::FieldMeta;
use crate::signing::documents::fields::FieldType;
use crate::signing::documents::meta::SigningOrder;
use crate::signing::documents::model::{Field, Recipient};
use crate::signing::documents::recipients::{ReadStatus, Role, SigningStatus};

/// `GET /sign/<token>/state`: the document, this recipient, whether it is their turn, their
/// fields, and what they must prove (`auth`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkState {
    pub auth: AuthState,
    pub document: DocumentShown,
    pub fields: Vec<FieldShown>,
    pub recipient: RecipientShown,
    pub your_turn: bool,
}

/// The document as its signing page shows it, with its sender.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentShown {
    /// What the embedding components report with `document-completed`.
    pub id: DocumentId,
    /// Each page's width and height in points.
    pub pages: Vec<[f64; 2]>,
    pub redirect_url: Option<String>,
    pub sender_email: String,
    pub sender_name: String,
    pub signing_order: SigningOrder,
    pub status: Status,
    pub title: String,
}

/// The recipient whose link this is.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecipientShown {
    pub email: String,
    /// What the embedding components report with `document-completed`.
    pub id: RecipientId,
    pub name: String,
    pub read_status: ReadStatus,
    pub role: Role,
    pub signing_status: SigningStatus,
}

impl RecipientShown {
    pub fn of(r: &Recipient) -> RecipientShown {
        RecipientShown {
            email: r.email.clone(),
            id: r.id,
            name: r.name.clone(),
            read_status: r.read_status,
            role: r.role,
            signing_status: r.signing_status,
        }
    }
}

/// A field the recipient fills in: their own, or (an assistant's) one of a recipient after
/// them, named by `forRecipient`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldShown {
    /// A signature or initials were drawn (the image is `GET .../signature/<field>`).
    pub drawn: bool,
    pub field_meta: Option<FieldMeta>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub for_recipient: Option<ForRecipient>,
    pub height: f64,
    pub id: FieldId,
    pub inserted: bool,
    pub page: i64,
    pub position_x: f64,
    pub position_y: f64,
    #[serde(rename = "type")]
    pub kind: FieldType,
    /// What was typed in (text, a typed signature, a checkbox's JSON list).
    pub value: Option<String>,
    pub width: f64,
}

impl FieldShown {
    pub fn of(f: &Field, for_recipient: Option<&Recipient>) -> FieldShown {
        FieldShown {
            drawn: f.drawn,
            field_meta: f.meta.clone(),
            for_recipient: for_recipient.map(|r| ForRecipient {
                email: r.email.clone(),
                id: r.id,
                name: r.name.clone(),
            }),
            height: f.height,
            id: f.id,
            inserted: f.inserted,
            page: f.page,
            position_x: f.x,
            position_y: f.y,
            kind: f.kind,
            value: f.custom_text.clone(),
            width: f.width,
        }
    }
}

/// The recipient an assistant fills a field in for.
#[derive(Debug, Clone, Serialize)]
pub struct ForRecipient {
    pub email: String,
    pub id: RecipientId,
    pub name: String,
}

/// What the recipient must prove and how far they are: the requirement (`Described`), the
/// account the browser is signed in to, and, when that is not yet the recipient's, whether
/// their account exists (and the token of the form that makes one).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthState {
    pub access_auth: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub account_exists: Option<bool>,
    pub account_ready: bool,
    pub action_auth: Option<ActionAuth>,
    pub action_auth_allowed: Vec<ActionAuth>,
    /// The second factors of the recipient's account, once they are signed in to it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enrolled: Option<EnrolledShown>,
    /// For the "create an account" form (`POST /sign/<token>/account`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invite_csrf: Option<String>,
    pub reject_auth: Option<ActionAuth>,
    pub signed_in_as: Option<String>,
}

impl AuthState {
    /// The requirement as `described`, for a browser signed in as `signed_in_as`; the rest
    /// is set by the caller as it applies.
    pub fn of(described: Described, signed_in_as: Option<String>) -> AuthState {
        AuthState {
            access_auth: described.access_auth,
            account_exists: None,
            account_ready: false,
            action_auth: described.action_auth,
            action_auth_allowed: described.action_auth_allowed,
            enrolled: None,
            invite_csrf: None,
            reject_auth: described.reject_auth,
            signed_in_as,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct EnrolledShown {
    pub passkeys: i64,
    pub totp: bool,
}

impl From<Enrolled> for EnrolledShown {
    fn from(e: Enrolled) -> EnrolledShown {
        EnrolledShown {
            passkeys: e.passkeys,
            totp: e.totp,
        }
    }
}

/// `POST /sign/<token>/fields/<id>`: the value is stored.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldSaved {
    pub field_id: FieldId,
    /// Always true.
    pub inserted: bool,
}

/// `POST /sign/<token>/complete`: the recipient finished; `documentCompleting` when they were
/// the last and the document is being sealed.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    pub document_completing: bool,
    pub document_id: DocumentId,
    /// SIGNED, whatever the role (the signing service's answer).
    pub signing_status: SigningStatus,
}

/// `POST /sign/<token>/reject`.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rejection {
    pub document_id: DocumentId,
    /// REJECTED.
    pub signing_status: SigningStatus,
}

/// `POST /sign/<token>/passkey-challenge`: the WebAuthn request options
/// (`PublicKeyCredentialRequestOptions` as JSON) for `navigator.credentials.get`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PasskeyChallenge {
    pub public_key: Value,
}

/// `POST /sign/<token>/email-code`: where the code went and for how long it works.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CodeSent {
    pub expires_in_seconds: i64,
    pub sent_to: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes of `answer` are those of the `Value` it makes, whose keys are sorted: the
    /// fields are declared in the order the answers had when they were built as values.
    fn same_bytes_as_sorted(answer: &impl Serialize) -> String {
        let direct = serde_json::to_string(answer).unwrap();
        let sorted = serde_json::to_value(answer).unwrap().to_string();
        assert_eq!(direct, sorted);
        direct
    }

    fn state() -> LinkState {
        let field = FieldShown {
            drawn: false,
            field_meta: FieldMeta::read(
                FieldType::Initials,
                r#"{"required":true,"label":"Initials"}"#,
            )
            .ok(),
            for_recipient: Some(ForRecipient {
                email: "bob@example.com".into(),
                id: RecipientId::new(4),
                name: "Bob".into(),
            }),
            height: 5.0,
            id: FieldId::new(9),
            inserted: true,
            page: 1,
            position_x: 10.5,
            position_y: 20.25,
            kind: FieldType::Text,
            value: Some("x".into()),
            width: 30.0,
        };
        LinkState {
            auth: AuthState {
                access_auth: Some("ACCOUNT"),
                account_exists: Some(true),
                account_ready: false,
                action_auth: Some(ActionAuth::Passkey),
                action_auth_allowed: vec![ActionAuth::Passkey, ActionAuth::TwoFactor],
                enrolled: Some(EnrolledShown {
                    passkeys: 1,
                    totp: false,
                }),
                invite_csrf: Some("csrf".into()),
                reject_auth: None,
                signed_in_as: Some("ann@example.com".into()),
            },
            document: DocumentShown {
                id: DocumentId::new(2),
                pages: vec![[612.0, 792.0]],
                redirect_url: None,
                sender_email: "owner@example.com".into(),
                sender_name: "Owner".into(),
                signing_order: SigningOrder::Sequential,
                status: Status::Pending,
                title: "Lease".into(),
            },
            fields: vec![
                field.clone(),
                FieldShown {
                    for_recipient: None,
                    field_meta: None,
                    ..field
                },
            ],
            recipient: RecipientShown {
                email: "ann@example.com".into(),
                id: RecipientId::new(3),
                name: "Ann".into(),
                read_status: ReadStatus::Opened,
                role: Role::Assistant,
                signing_status: SigningStatus::NotSigned,
            },
            your_turn: true,
        }
    }

    #[test]
    fn answers_keep_the_bytes_of_their_sorted_json() {
        let text = same_bytes_as_sorted(&state());
        assert!(text.starts_with(r#"{"auth":{"accessAuth":"ACCOUNT","accountExists":true,"#));
        let bare = LinkState {
            auth: AuthState::of(
                Described {
                    access_auth: None,
                    action_auth: None,
                    action_auth_allowed: vec![],
                    reject_auth: None,
                },
                None,
            ),
            ..state()
        };
        let text = same_bytes_as_sorted(&bare);
        assert!(text.starts_with(
            r#"{"auth":{"accessAuth":null,"accountReady":false,"actionAuth":null,"actionAuthAllowed":[],"rejectAuth":null,"signedInAs":null},"#
        ));
        assert_eq!(
            same_bytes_as_sorted(&FieldSaved {
                field_id: FieldId::new(3),
                inserted: true
            }),
            r#"{"fieldId":3,"inserted":true}"#
        );
        assert_eq!(
            same_bytes_as_sorted(&Completion {
                document_completing: false,
                document_id: DocumentId::new(2),
                signing_status: SigningStatus::Signed,
            }),
            r#"{"documentCompleting":false,"documentId":2,"signingStatus":"SIGNED"}"#
        );
        assert_eq!(
            same_bytes_as_sorted(&Rejection {
                document_id: DocumentId::new(2),
                signing_status: SigningStatus::Rejected,
            }),
            r#"{"documentId":2,"signingStatus":"REJECTED"}"#
        );
        let challenge = PasskeyChallenge {
            public_key: serde_json::json!({"rpId": "localhost", "challenge": "abc"}),
        };
        assert_eq!(
            same_bytes_as_sorted(&challenge),
            r#"{"publicKey":{"challenge":"abc","rpId":"localhost"}}"#
        );
    }
}
