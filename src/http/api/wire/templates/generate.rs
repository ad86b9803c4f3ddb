//! `POST /api/v1/templates/{id}/generate-document` as types: recipients named by their template
//! id. Members are read leniently (`crate::core::lenient`); the command it becomes
//! (`templates::GenerateCommand`) lays the request over the template (`Base`), listing every
//! problem with its JSON path, each time the use case checks it against the template it reads.

use crate::core::ids::RecipientId;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::core::error::AppError;
use crate::core::lenient::{Given, Object};
use crate::http::api::wire::documents::create::title as document_title;
use crate::http::api::wire::documents::meta::{self, MetaInput, form_values_schema};
use crate::http::api::wire::documents::{List, auth as auth_options, auth::AuthOptionsInput};
use crate::identity::users::Email;
use crate::signing::documents::meta::Chosen;
use crate::signing::documents::recipients::Role;
use crate::signing::documents::{CreateDocument, MAX_RECIPIENTS};
use crate::signing::documents::{
    check::Check, check::Recheck, check::join, recipients::NewRecipient,
};
use crate::signing::templates::{Base, Generate, GenerateCommand};
use crate::signing::templates::{address_taken, no_such_recipient};

/// `POST /api/v1/templates/{id}/generate-document`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = GenerateDocument, example = json!({"title": "Lease: Ann",
    "recipients": [{"id": 7, "name": "Ann", "email": "ann@example.com"}],
    "prefillFields": [{"id": 31, "type": "text", "value": "Flat 2"}]}))]
pub struct GenerateRequest {
    #[serde(default)]
    /// The template's title when left out.
    #[schema(value_type = Option<String>, min_length = 1, max_length = 255)]
    pub title: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>, max_length = 255)]
    pub external_id: Given<String>,
    #[serde(default)]
    /// Template recipients to change, by id; those left out keep the template's values.
    #[schema(value_type = Vec<NamedRecipientInput>, required = true, max_items = 100)]
    pub recipients: List<NamedRecipientInput>,
    #[serde(default)]
    /// Over the template's; `timezone` and `dateFormat` are free text here.
    #[schema(value_type = Option<MetaInput>)]
    pub meta: Given<Object<MetaInput>>,
    #[serde(default)]
    #[schema(value_type = Option<AuthOptionsInput>)]
    pub auth_options: Given<Object<AuthOptionsInput>>,
    #[serde(default)]
    #[schema(schema_with = form_values_schema)]
    pub form_values: Given<Map<String, Value>>,
    #[serde(default)]
    /// Values for the copied fields, by template field id: filled at once and read-only.
    #[schema(value_type = Option<Vec<super::prefill::PrefillInput>>, max_items = 500)]
    pub prefill_fields: Given<Vec<Given<Object<super::prefill::PrefillInput>>>>,
}

/// A template recipient named by its `id`, and what changes: absent members keep the
/// template's values, a null `signingOrder` clears it.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NamedRecipientInput {
    #[serde(default)]
    /// The template recipient's id (`create-document`: given by position).
    #[schema(value_type = i64, required = true)]
    pub id: Given<RecipientId>,
    #[serde(default)]
    #[schema(value_type = Option<String>, format = Email, max_length = 254)]
    pub email: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>, max_length = 200)]
    pub name: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 10000)]
    pub signing_order: Given<serde_json::Number>,
    #[serde(default)]
    #[schema(value_type = Option<Role>)]
    pub role: Given<String>,
}

impl GenerateRequest {
    /// The command: this request laid over the template each time the use case checks it.
    pub fn command(self) -> GenerateCommand {
        Recheck::new(move |base: &Base| self.validate(base))
    }

    /// The document to make from the template `base`: every template recipient (as changed),
    /// meta over the template's, and the prefills. (Whether the account's tier allows it is
    /// the use case's to say.)
    pub fn validate(&self, base: &Base) -> Result<Generate, AppError> {
        let mut c = Check::new();
        let title = title(&mut c, &self.title).unwrap_or_else(|| base.title.clone());
        let external_id = c.text(&self.external_id, "externalId", 255);
        let recipients = self.recipients(&mut c, &base.recipients);
        let meta = meta::parse_meta(&mut c, &self.meta, base.meta.clone(), false);
        let auth_options = match &self.auth_options {
            Given::Absent | Given::Null => base.auth_options.clone(),
            raw => auth_options::parse_auth_options(&mut c, raw),
        };
        let form_values = meta::parse_form_values(&mut c, &self.form_values);
        let prefill = super::prefill::parse(&mut c, &self.prefill_fields, &base.fields, &meta);
        c.finish(Generate {
            document: CreateDocument {
                title,
                external_id,
                recipients: Vec::new(),
                meta,
                // The template's meta stands for every value the request leaves out.
                chosen: Chosen::ALL,
                auth_options,
                form_values,
                visibility: None,
            },
            recipients,
            prefill,
        })
    }

    /// The template's recipients (`current`) with the request's items laid over them;
    /// addresses must stay distinct (the error names the request's item).
    fn recipients(
        &self,
        c: &mut Check,
        current: &[(RecipientId, NewRecipient)],
    ) -> Vec<(RecipientId, NewRecipient)> {
        let mut out = current.to_vec();
        let mut named: HashMap<RecipientId, usize> = HashMap::new();
        match self.recipients.valid() {
            Some(list) if list.len() > MAX_RECIPIENTS => {
                c.fail("recipients", format!("at most {MAX_RECIPIENTS} recipients"))
            }
            Some(list) => {
                for (i, item) in list.iter().enumerate() {
                    let path = format!("recipients[{i}]");
                    if let Some((slot, r)) = named_item(c, item, &path, &out) {
                        if named.insert(out[slot].0, i).is_some() {
                            c.fail(join(&path, "id"), "names the same recipient twice");
                        } else {
                            out[slot].1 = r;
                        }
                    }
                }
            }
            None => c.fail(
                "recipients",
                "required: an array of {id, name, email, signingOrder}, one for each template recipient",
            ),
        }
        for (slot, (id, r)) in out.iter().enumerate() {
            let earlier = out[..slot].iter().find(|(_, o)| o.email == r.email);
            if let Some(i) = earlier.and_then(|(other, _)| named.get(id).or(named.get(other))) {
                c.fail(format!("recipients[{i}].email"), address_taken(&r.email));
            }
        }
        out
    }
}

/// An optional `title`: when sent, a document's title (`documents::create::title`), else none.
fn title(c: &mut Check, given: &Given<String>) -> Option<String> {
    match given {
        Given::Absent | Given::Null => None,
        sent => Some(document_title(c, sent)),
    }
}

/// One request item: which template recipient (its slot in `current`) and what it becomes.
fn named_item(
    c: &mut Check,
    given: &Given<Object<NamedRecipientInput>>,
    path: &str,
    current: &[(RecipientId, NewRecipient)],
) -> Option<(usize, NewRecipient)> {
    let Given::Valid(Object(item)) = given else {
        c.fail(path, "must be an object {id, name, email, signingOrder}");
        return None;
    };
    let before = c.error_count();
    let slot = slot(c, item, path, current);
    let email = match &item.email {
        Given::Valid(e) => match Email::check(e) {
            Ok(e) => Some(e.as_str().to_string()),
            Err(why) => {
                let at = join(path, "email");
                c.fail(at, format!("{e:?} is not a valid e-mail address ({why})"));
                None
            }
        },
        Given::Invalid(_) => {
            c.fail(join(path, "email"), "must be an e-mail address");
            None
        }
        _ => None,
    };
    let name = c.text(&item.name, &join(path, "name"), 200);
    let order = c.int(&item.signing_order, &join(path, "signingOrder"), 0..=10_000);
    let role = match &item.role {
        Given::Valid(r) if Role::parse(r).is_some() => Role::parse(r),
        Given::Absent | Given::Null => None,
        _ => {
            let why = "must be SIGNER, APPROVER, VIEWER, CC or ASSISTANT";
            c.fail(join(path, "role"), why);
            None
        }
    };
    if c.error_count() != before {
        return None;
    }
    let slot = slot?;
    let mut r = current[slot].1.clone();
    r.role = role.unwrap_or(r.role);
    r.email = email.unwrap_or(r.email);
    r.name = name.unwrap_or(r.name);
    match item.signing_order {
        Given::Absent => {}
        Given::Null => r.signing_order = None,
        _ => r.signing_order = order,
    }
    Some((slot, r))
}

/// The slot in `current` of the template recipient `item` names by `id`.
fn slot(
    c: &mut Check,
    item: &NamedRecipientInput,
    path: &str,
    current: &[(RecipientId, NewRecipient)],
) -> Option<usize> {
    let Some(id) = item.id.valid().copied() else {
        let why = "required: the id of one of the template's recipients";
        c.fail(join(path, "id"), why);
        return None;
    };
    let slot = current.iter().position(|(rid, _)| *rid == id);
    if slot.is_none() {
        c.fail(join(path, "id"), no_such_recipient(id));
    }
    slot
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::users::Tier;
    use crate::signing::documents::auth_options::AuthOptions;
    use crate::signing::documents::meta::Meta;
    use crate::signing::templates::{GenerateDocument, placeholder_email};
    use serde_json::json;

    fn parse_generate(body: &Value, base: &Base, tier: Tier) -> Result<Generate, AppError> {
        let command = serde_json::from_value::<GenerateRequest>(body.clone())
            .unwrap()
            .command();
        GenerateDocument::Request(&command).against(base, tier)
    }

    fn base() -> Base {
        let r = |email: &str, order| NewRecipient {
            email: email.into(),
            name: "T".into(),
            role: Role::Signer,
            signing_order: order,
            auth: Default::default(),
        };
        Base {
            title: "Lease".into(),
            meta: Meta {
                subject: Some("from template".into()),
                ..Meta::default()
            },
            auth_options: AuthOptions::default(),
            recipients: vec![
                (RecipientId::new(7), r(&placeholder_email(1), Some(0))),
                (RecipientId::new(8), r(&placeholder_email(2), Some(1))),
            ],
            fields: Vec::new(),
        }
    }

    #[test]
    fn generate_merges_the_request_over_the_template() {
        let g = parse_generate(
            &json!({"recipients": [{"id": 8, "name": "Bo", "email": "BO@x.org", "signingOrder": null}], "meta": {"timezone": "somewhere", "dateFormat": "whatever"}}),
            &base(),
            Tier::Standard,
        )
        .unwrap();
        assert_eq!(g.document.title, "Lease");
        assert_eq!(g.document.meta.timezone, "somewhere");
        assert_eq!(g.document.meta.subject.as_deref(), Some("from template"));
        assert_eq!(g.recipients[0].1.email, placeholder_email(1));
        assert_eq!(
            (
                g.recipients[1].1.email.as_str(),
                g.recipients[1].1.name.as_str(),
                g.recipients[1].1.signing_order
            ),
            ("bo@x.org", "Bo", None)
        );
    }

    #[test]
    fn generate_names_bad_items() {
        let paths = |body: Value| -> Vec<String> {
            match parse_generate(&body, &base(), Tier::Standard) {
                Ok(_) => vec![],
                Err(e) => e.details().iter().map(|d| d.path.clone()).collect(),
            }
        };
        assert_eq!(paths(json!({})), ["recipients"]);
        assert_eq!(
            paths(json!({"recipients": [{"id": 7}, {"id": 99}]})),
            ["recipients[1].id"]
        );
        assert_eq!(
            paths(json!({"recipients": [{"id": 7}, {"id": 7}]})),
            ["recipients[1].id"]
        );
        assert_eq!(
            paths(json!({"recipients": [{"email": "a@x.org"}]})),
            ["recipients[0].id"]
        );
        assert_eq!(
            paths(
                json!({"recipients": [{"id": 7, "email": "a@x.org"}, {"id": 8, "email": "A@x.org"}]})
            ),
            ["recipients[1].email"]
        );
        assert!(paths(json!({"recipients": []})).is_empty());
    }
}
