//! What each audit event records beside its type, actor, address and time: `Happened`, one
//! variant per event type with its data, stored as a JSON object in `audit_events.data` and
//! read back by the type stored beside it (`audit::page`).
//!
//! The data structs declare their fields in the alphabetical order of their JSON names: the
//! rows were written from `serde_json::Value` objects, whose keys serde_json keeps sorted, so
//! this order keeps the stored text what it was. What older rows lack is optional here
//! (`auth` before recipient authentication, `fills` before fills were coalesced) and stays
//! absent when such a row is shown again.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::audit::Event;
use super::auth_options::ActionAuth;
use super::fields::FieldType;
use crate::core::ids::{FieldId, RecipientId, TeamId, TemplateId};

/// An audit event with its data.
#[derive(Debug, Clone, PartialEq)]
pub enum Happened {
    /// The document's title when it was made.
    Created(Created),
    Uploaded(Uploaded),
    Sent(Sent),
    /// A signing request was handed to the mail system.
    Emailed(Emailed),
    Opened,
    FieldFilled(Filled),
    Signed(Finished),
    Approved(Finished),
    Viewed(Finished),
    Assisted(Finished),
    Rejected(Rejected),
    /// The sealed file's hash.
    Completed(Completed),
    Downloaded(Downloaded),
    Cancelled,
    RecipientChanged(Readdressed),
    Moved(Moved),
    /// A recipient's time to act passed before they finished (the actor names them).
    Expired(Expired),
    /// A field emptied through a signing link: the data of a fill, `fills` counting the
    /// clears.
    FieldCleared(Filled),
}

/// A recipient's deadline that passed: their address and when it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Expired {
    // Keys in the order a `Value` prints them (the stored text is what the API shows).
    pub email: String,
    pub expires_at: String,
}

/// The workspace a document went to: a team (its id and name then), or `null` for the
/// personal documents of `user` (who holds it now).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Moved {
    // Keys in the order a `Value` prints them (the stored text is what the API shows).
    pub team: Option<String>,
    pub team_id: Option<TeamId>,
    /// The e-mail address of the user whose personal document it became.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Created {
    pub title: String,
}

/// A file became the document's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Uploaded {
    pub pages: u32,
    pub sha256: String,
    pub size: u64,
}

/// What a send did besides sending: the form values it set on the PDF (an owner's send with
/// `formValues`), or the direct link it came from (a visitor's document). Neither: `{}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sent {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direct_link: Option<DirectLink>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form_values: Option<FormValues>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DirectLink {
    pub template_id: TemplateId,
}

/// The `formValues` names set on the PDF's form, and those its form has no field for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FormValues {
    pub filled: Vec<String>,
    pub unmatched: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Emailed {
    pub mail_id: i64,
    pub to: String,
    pub via: Via,
}

/// How a message left: through SMTP, or filed in the outbox (no `--smtp-url`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Via {
    Smtp,
    Outbox,
}

/// A field filled through a signing link. A link's fills of one field are one row
/// (`audit::record_fill`): `fills` counts them and `last` is the latest, once there are two.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Filled {
    pub field_id: FieldId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fills: Option<i64>,
    /// An assistant's fill of a field of a recipient after them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub for_recipient_id: Option<RecipientId>,
    #[serde(flatten)]
    pub last: Option<LastFill>,
    #[serde(rename = "type", with = "field_type")]
    pub kind: FieldType,
}

impl Filled {
    /// The first fill of `field` (of type `kind`), by its own recipient or, `for_recipient`,
    /// by an assistant for that recipient.
    pub fn first(field: FieldId, kind: FieldType, for_recipient: Option<RecipientId>) -> Filled {
        Filled {
            field_id: field,
            fills: Some(1),
            for_recipient_id: for_recipient,
            last: None,
            kind,
        }
    }

    /// How many fills the row stands for (rows stored one per fill have no count).
    pub fn count(&self) -> i64 {
        self.fills.unwrap_or(1)
    }
}

/// The latest of several fills: when (ISO 8601) and from which address.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LastFill {
    pub last_filled_at: String,
    #[serde(default)]
    pub last_ip_address: Option<String>,
}

/// A recipient finished (signed, approved, viewed or assisted) with this proof.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finished {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<ProofUsed>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rejected {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<ProofUsed>,
    pub reason: String,
}

/// How a recipient showed who they were: `{"method": "LINK"}` for the link alone, else
/// `{"account": ..., "method": ...}` with the account they were signed in to, and
/// `"codeFrom": "EMAIL"` when their TWO_FACTOR_AUTH code was e-mailed to them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProofUsed {
    Link,
    Account {
        method: ActionAuth,
        account: Option<String>,
        /// The code was e-mailed (not an authenticator app's).
        emailed: bool,
    },
}

impl Serialize for ProofUsed {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Link {
            method: &'static str,
        }
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Account<'a> {
            account: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            code_from: Option<&'static str>,
            method: ActionAuth,
        }
        match self {
            ProofUsed::Link => Link { method: "LINK" }.serialize(s),
            ProofUsed::Account {
                method,
                account,
                emailed,
            } => Account {
                account: account.as_deref(),
                code_from: emailed.then_some("EMAIL"),
                method: *method,
            }
            .serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ProofUsed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Stored {
            #[serde(default)]
            account: Option<String>,
            #[serde(default)]
            code_from: Option<String>,
            method: String,
        }
        let stored = Stored::deserialize(d)?;
        if stored.method == "LINK" {
            return Ok(ProofUsed::Link);
        }
        let method = ActionAuth::parse(&stored.method)
            .ok_or_else(|| D::Error::custom(format!("unknown method {:?}", stored.method)))?;
        Ok(ProofUsed::Account {
            method,
            account: stored.account,
            emailed: stored.code_from.as_deref() == Some("EMAIL"),
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Completed {
    pub sha256: String,
}

/// `original`: the uploaded file rather than the sealed one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Downloaded {
    pub original: bool,
}

/// The owner gave a recipient a new e-mail address (and so a new signing link).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Readdressed {
    pub from: String,
    pub recipient_id: RecipientId,
    pub to: String,
}

/// The data of an event that has none: `{}`.
#[derive(Serialize, Deserialize)]
struct Nothing {}

impl Happened {
    /// The event type stored beside the data.
    pub fn kind(&self) -> Event {
        match self {
            Happened::Created(_) => Event::Created,
            Happened::Uploaded(_) => Event::Uploaded,
            Happened::Sent(_) => Event::Sent,
            Happened::Emailed(_) => Event::Emailed,
            Happened::Opened => Event::Opened,
            Happened::FieldFilled(_) => Event::FieldFilled,
            Happened::Signed(_) => Event::Signed,
            Happened::Approved(_) => Event::Approved,
            Happened::Viewed(_) => Event::Viewed,
            Happened::Assisted(_) => Event::Assisted,
            Happened::Rejected(_) => Event::Rejected,
            Happened::Completed(_) => Event::Completed,
            Happened::Downloaded(_) => Event::Downloaded,
            Happened::Cancelled => Event::Cancelled,
            Happened::RecipientChanged(_) => Event::RecipientChanged,
            Happened::Moved(_) => Event::Moved,
            Happened::Expired(_) => Event::Expired,
            Happened::FieldCleared(_) => Event::FieldCleared,
        }
    }

    /// The data column's text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("audit data serialises")
    }

    /// A stored row's data, read as what its type `kind` records.
    pub fn read(kind: Event, data: &str) -> Result<Happened, serde_json::Error> {
        use serde_json::from_str as parse;
        Ok(match kind {
            Event::Created => Happened::Created(parse(data)?),
            Event::Uploaded => Happened::Uploaded(parse(data)?),
            Event::Sent => Happened::Sent(parse(data)?),
            Event::Emailed => Happened::Emailed(parse(data)?),
            Event::Opened => parse::<Nothing>(data).map(|_| Happened::Opened)?,
            Event::FieldFilled => Happened::FieldFilled(parse(data)?),
            Event::Signed => Happened::Signed(parse(data)?),
            Event::Approved => Happened::Approved(parse(data)?),
            Event::Viewed => Happened::Viewed(parse(data)?),
            Event::Assisted => Happened::Assisted(parse(data)?),
            Event::Rejected => Happened::Rejected(parse(data)?),
            Event::Completed => Happened::Completed(parse(data)?),
            Event::Downloaded => Happened::Downloaded(parse(data)?),
            Event::Cancelled => parse::<Nothing>(data).map(|_| Happened::Cancelled)?,
            Event::RecipientChanged => Happened::RecipientChanged(parse(data)?),
            Event::Moved => Happened::Moved(parse(data)?),
            Event::Expired => Happened::Expired(parse(data)?),
            Event::FieldCleared => Happened::FieldCleared(parse(data)?),
        })
    }

    /// A finishing event of a recipient of `role` who proved it by `auth`.
    pub fn finished(role: super::recipients::Role, auth: ProofUsed) -> Happened {
        use super::recipients::Role;
        let done = Finished { auth: Some(auth) };
        match role {
            Role::Approver => Happened::Approved(done),
            Role::Viewer => Happened::Viewed(done),
            Role::Assistant => Happened::Assisted(done),
            Role::Signer | Role::Cc => Happened::Signed(done),
        }
    }
}

/// The data alone, as the column and the API's `data` hold it.
impl Serialize for Happened {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Happened::Created(d) => d.serialize(s),
            Happened::Uploaded(d) => d.serialize(s),
            Happened::Sent(d) => d.serialize(s),
            Happened::Emailed(d) => d.serialize(s),
            Happened::Opened | Happened::Cancelled => Nothing {}.serialize(s),
            Happened::FieldFilled(d) | Happened::FieldCleared(d) => d.serialize(s),
            Happened::Signed(d)
            | Happened::Approved(d)
            | Happened::Viewed(d)
            | Happened::Assisted(d) => d.serialize(s),
            Happened::Rejected(d) => d.serialize(s),
            Happened::Completed(d) => d.serialize(s),
            Happened::Downloaded(d) => d.serialize(s),
            Happened::RecipientChanged(d) => d.serialize(s),
            Happened::Moved(d) => d.serialize(s),
            Happened::Expired(d) => d.serialize(s),
        }
    }
}

/// A field type by its stored name (`TEXT`, `SIGNATURE`, ...).
mod field_type {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::signing::documents::fields::FieldType;

    pub fn serialize<S: Serializer>(kind: &FieldType, s: S) -> Result<S::Ok, S::Error> {
        kind.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<FieldType, D::Error> {
        let name = String::deserialize(d)?;
        FieldType::parse(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown field type {name:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each variant as it is built today, and the text the data column held for it when it was
    /// built as a `serde_json::Value` (keys sorted), before these types.
    fn stored() -> Vec<(Happened, &'static str)> {
        let auth = |m| ProofUsed::Account {
            method: m,
            account: Some("ann@example.com".into()),
            emailed: false,
        };
        let finished = |m| Finished {
            auth: Some(auth(m)),
        };
        vec![
            (
                Happened::Created(Created {
                    title: "Lease \"A\"".into(),
                }),
                r#"{"title":"Lease \"A\""}"#,
            ),
            (
                Happened::Uploaded(Uploaded {
                    pages: 3,
                    sha256: "ab12".into(),
                    size: 1024,
                }),
                r#"{"pages":3,"sha256":"ab12","size":1024}"#,
            ),
            (Happened::Sent(Sent::default()), "{}"),
            (
                Happened::Sent(Sent {
                    form_values: Some(FormValues {
                        filled: vec!["name".into()],
                        unmatched: vec!["nope".into()],
                    }),
                    direct_link: None,
                }),
                r#"{"formValues":{"filled":["name"],"unmatched":["nope"]}}"#,
            ),
            (
                Happened::Sent(Sent {
                    direct_link: Some(DirectLink {
                        template_id: TemplateId::new(4),
                    }),
                    form_values: None,
                }),
                r#"{"directLink":{"templateId":4}}"#,
            ),
            (
                Happened::Emailed(Emailed {
                    mail_id: 12,
                    to: "ann@example.com".into(),
                    via: Via::Smtp,
                }),
                r#"{"mailId":12,"to":"ann@example.com","via":"smtp"}"#,
            ),
            (
                Happened::Emailed(Emailed {
                    mail_id: 13,
                    to: "bob@example.com".into(),
                    via: Via::Outbox,
                }),
                r#"{"mailId":13,"to":"bob@example.com","via":"outbox"}"#,
            ),
            (Happened::Opened, "{}"),
            (
                Happened::FieldFilled(Filled::first(FieldId::new(7), FieldType::Text, None)),
                r#"{"fieldId":7,"fills":1,"type":"TEXT"}"#,
            ),
            (
                Happened::FieldFilled(Filled::first(
                    FieldId::new(8),
                    FieldType::Number,
                    Some(RecipientId::new(3)),
                )),
                r#"{"fieldId":8,"fills":1,"forRecipientId":3,"type":"NUMBER"}"#,
            ),
            (
                Happened::FieldFilled(Filled {
                    fills: Some(4),
                    last: Some(LastFill {
                        last_filled_at: "2026-01-01T11:00:00Z".into(),
                        last_ip_address: None,
                    }),
                    ..Filled::first(FieldId::new(7), FieldType::Signature, None)
                }),
                r#"{"fieldId":7,"fills":4,"lastFilledAt":"2026-01-01T11:00:00Z","lastIpAddress":null,"type":"SIGNATURE"}"#,
            ),
            (
                Happened::Signed(Finished {
                    auth: Some(ProofUsed::Link),
                }),
                r#"{"auth":{"method":"LINK"}}"#,
            ),
            (
                Happened::Signed(finished(ActionAuth::TwoFactor)),
                r#"{"auth":{"account":"ann@example.com","method":"TWO_FACTOR_AUTH"}}"#,
            ),
            (
                Happened::Approved(finished(ActionAuth::Account)),
                r#"{"auth":{"account":"ann@example.com","method":"ACCOUNT"}}"#,
            ),
            (
                Happened::Viewed(finished(ActionAuth::Passkey)),
                r#"{"auth":{"account":"ann@example.com","method":"PASSKEY"}}"#,
            ),
            (
                Happened::Assisted(Finished {
                    auth: Some(ProofUsed::Account {
                        method: ActionAuth::Password,
                        account: None,
                        emailed: false,
                    }),
                }),
                r#"{"auth":{"account":null,"method":"PASSWORD"}}"#,
            ),
            (
                Happened::Signed(Finished {
                    auth: Some(ProofUsed::Account {
                        method: ActionAuth::TwoFactor,
                        account: Some("ann@example.com".into()),
                        emailed: true,
                    }),
                }),
                r#"{"auth":{"account":"ann@example.com","codeFrom":"EMAIL","method":"TWO_FACTOR_AUTH"}}"#,
            ),
            (
                Happened::Rejected(Rejected {
                    auth: Some(ProofUsed::Link),
                    reason: "wrong date".into(),
                }),
                r#"{"auth":{"method":"LINK"},"reason":"wrong date"}"#,
            ),
            (
                Happened::Completed(Completed {
                    sha256: "cd34".into(),
                }),
                r#"{"sha256":"cd34"}"#,
            ),
            (
                Happened::Downloaded(Downloaded { original: true }),
                r#"{"original":true}"#,
            ),
            (Happened::Cancelled, "{}"),
            (
                Happened::RecipientChanged(Readdressed {
                    from: "ann@example.com".into(),
                    recipient_id: RecipientId::new(3),
                    to: "ann.b@example.com".into(),
                }),
                r#"{"from":"ann@example.com","recipientId":3,"to":"ann.b@example.com"}"#,
            ),
            (
                Happened::Moved(Moved {
                    team: Some("Sales".into()),
                    team_id: Some(TeamId::new(4)),
                    user: None,
                }),
                r#"{"team":"Sales","teamId":4}"#,
            ),
            (
                Happened::Moved(Moved {
                    team: None,
                    team_id: None,
                    user: Some("ada@example.com".into()),
                }),
                r#"{"team":null,"teamId":null,"user":"ada@example.com"}"#,
            ),
            (
                Happened::Expired(Expired {
                    email: "bob@example.com".into(),
                    expires_at: "2026-12-20T17:00:00Z".into(),
                }),
                r#"{"email":"bob@example.com","expiresAt":"2026-12-20T17:00:00Z"}"#,
            ),
            (
                Happened::FieldCleared(Filled::first(FieldId::new(7), FieldType::Text, None)),
                r#"{"fieldId":7,"fills":1,"type":"TEXT"}"#,
            ),
        ]
    }

    #[test]
    fn each_event_is_stored_as_it_was_and_reads_back() {
        let all = stored();
        for kind in Event::ALL {
            assert!(all.iter().any(|(h, _)| h.kind() == kind), "{kind:?}");
        }
        for (happened, text) in all {
            assert_eq!(happened.to_json(), text, "{happened:?}");
            // The column's text is what a `Value` built from it prints: the API's answer
            // and the CSV of the audit trail show the same bytes as before.
            let value: serde_json::Value = serde_json::from_str(text).unwrap();
            assert_eq!(value.to_string(), text);
            assert_eq!(Happened::read(happened.kind(), text).unwrap(), happened);
        }
    }

    #[test]
    fn rows_of_older_versions_read_back_unchanged() {
        // Before recipient authentication, finishing recorded no `auth`; before fills were
        // coalesced, each fill was a row without a count.
        for (kind, text) in [
            (Event::Signed, "{}"),
            (Event::Rejected, r#"{"reason":"no"}"#),
            (Event::FieldFilled, r#"{"fieldId":5,"type":"TEXT"}"#),
            (
                Event::FieldFilled,
                r#"{"fieldId":5,"forRecipientId":2,"type":"DATE"}"#,
            ),
        ] {
            let read = Happened::read(kind, text).unwrap();
            assert_eq!(read.to_json(), text, "{kind:?}");
        }
        let Happened::FieldFilled(f) =
            Happened::read(Event::FieldFilled, r#"{"fieldId":5,"type":"TEXT"}"#).unwrap()
        else {
            panic!("a fill");
        };
        assert_eq!((f.count(), f.last), (1, None));
    }

    #[test]
    fn data_that_does_not_fit_its_type_is_an_error() {
        assert!(Happened::read(Event::Uploaded, r#"{"pages":1}"#).is_err());
        assert!(Happened::read(Event::Signed, r#"{"auth":{"method":"SMS"}}"#).is_err());
        assert!(Happened::read(Event::FieldFilled, r#"{"fieldId":5,"type":"BLOB"}"#).is_err());
        assert!(Happened::read(Event::Opened, "3").is_err());
    }
}
