//! What clients send to the document API, as types: a new document, a recipient, the
//! document's `meta`, `authOptions` and attachments. Members are read leniently
//! (`crate::core::lenient`); `validate()` turns a shape into the checked command, listing every
//! problem with its JSON path. Templates read the same recipient, meta and auth shapes.

use serde::Deserialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::auth_options;
use super::check::{Against, Check};
use super::drafts::{RecipientCommand, RecipientSlot};
use super::meta::{self, DistributionMethod, SigningOrder};
use super::recipients::{self, NewRecipient, Role};
use super::{CreateDocument, MAX_RECIPIENTS};
use crate::core::error::AppError;
use crate::{core::lenient::Given, core::lenient::Object, core::lenient::OneOrMany};

/// A list of members that are each read on their own.
pub type List<T> = Given<Vec<Given<Object<T>>>>;

/// Authentication methods as sent: one, a list of them, or null.
pub type Methods = Given<OneOrMany<String>>;

/// `POST /api/v1/documents`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = CreateDocument, example = json!({"title": "NDA", "externalId": "crm-42",
    "recipients": [{"name": "Ann", "email": "ann@example.com", "role": "SIGNER", "signingOrder": 1}],
    "meta": {"subject": "Please sign", "timezone": "Europe/Paris", "signingOrder": "SEQUENTIAL"}}))]
pub struct CreateDocumentRequest {
    #[serde(default)]
    #[schema(value_type = String, required = true, min_length = 1, max_length = 255)]
    pub title: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>, max_length = 255)]
    pub external_id: Given<String>,
    #[serde(default)]
    #[schema(value_type = Vec<RecipientInput>, required = true, max_items = 100)]
    pub recipients: List<RecipientInput>,
    #[serde(default)]
    #[schema(value_type = Option<MetaInput>)]
    pub meta: Given<Object<MetaInput>>,
    #[serde(default)]
    /// Links shown to signers.
    #[schema(value_type = Option<Vec<AttachmentInput>>, max_items = 10)]
    pub attachments: List<AttachmentInput>,
    #[serde(default)]
    #[schema(value_type = Option<AuthOptionsInput>)]
    pub auth_options: Given<Object<AuthOptionsInput>>,
    #[serde(default)]
    /// Values for the PDF's form fields, by name, set when the document is sent.
    #[schema(schema_with = form_values_schema)]
    pub form_values: Given<Map<String, Value>>,
}

impl CreateDocumentRequest {
    /// The draft to create: 400 listing every problem. The tier's rules are the use case's.
    pub fn validate(&self) -> Result<CreateDocument, AppError> {
        let mut c = Check::new();
        let title = title(&mut c, &self.title);
        let external_id = c.text(&self.external_id, "externalId", 255);
        let recipients =
            recipients::parse_recipients(&mut c, &self.recipients, "recipients", MAX_RECIPIENTS);
        let mut meta = meta::parse_meta(&mut c, &self.meta, meta::Meta::default(), true);
        meta.attachments = meta::parse_attachments(&mut c, &self.attachments);
        let auth_options = auth_options::parse_auth_options(&mut c, &self.auth_options);
        let form_values = meta::parse_form_values(&mut c, &self.form_values);
        c.finish(CreateDocument {
            title,
            external_id,
            recipients,
            meta,
            auth_options,
            form_values,
        })
    }
}

/// A required `title` of 1 to 255 characters, trimmed (`""` when it has a problem).
pub fn title(c: &mut Check, given: &Given<String>) -> String {
    match given.valid() {
        Some(t) if !t.trim().is_empty() && t.chars().count() <= 255 => t.trim().to_string(),
        Some(_) => {
            c.fail("title", "1 to 255 characters");
            String::new()
        }
        None => {
            c.fail("title", "required: a string");
            String::new()
        }
    }
}

/// A recipient: added to a document or a template, or changed (PATCH: what is left out keeps
/// its value).
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}))]
pub struct RecipientInput {
    #[serde(default)]
    #[schema(value_type = String, format = Email, max_length = 254)]
    pub email: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>, max_length = 200)]
    pub name: Given<String>,
    #[serde(default)]
    /// SIGNER when left out.
    #[schema(value_type = Option<Role>)]
    pub role: Given<Role>,
    #[serde(default)]
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 10000)]
    pub signing_order: Given<i64>,
    #[serde(default)]
    #[schema(value_type = Option<RecipientAuthInput>)]
    pub auth_options: Given<Object<RecipientAuthInput>>,
}

impl RecipientInput {
    /// One recipient: 400 listing every problem.
    pub fn validate(&self) -> Result<NewRecipient, AppError> {
        let mut c = Check::new();
        let r = recipients::parse_recipient(&mut c, self, "");
        c.finish(r)?
            .ok_or_else(|| AppError::bad_request("invalid recipient"))
    }

    /// This PATCH's members checked as far as they go alone (the e-mail may be left out):
    /// 400 listing every problem. The use case checks the patched recipient again.
    pub fn validate_patch(&self) -> Result<(), AppError> {
        let mut whole = self.clone();
        if matches!(whole.email, Given::Absent) {
            whole.email = Given::Valid("kept@example.com".into());
        }
        whole.validate().map(drop)
    }

    /// The command to add this recipient: checked alone, or, when it has no e-mail and the
    /// draft gives such a recipient a placeholder address (a template), with that address.
    pub fn add(self) -> RecipientCommand {
        Against::new(move |slot: &RecipientSlot| match &slot.placeholder {
            Some(p) if self.email.is_absent() => RecipientInput {
                email: Given::Valid(p.clone()),
                ..self
            }
            .validate(),
            _ => self.validate(),
        })
    }

    /// The command to change a recipient: this PATCH laid over it, an `email` of `null` its
    /// placeholder address where the draft has one (a template), checked as a whole.
    pub fn patch(mut self) -> RecipientCommand {
        Against::new(move |slot: &RecipientSlot| {
            if let (Given::Null, Some(p)) = (&self.email, &slot.placeholder) {
                self.email = Given::Valid(p.clone());
            }
            match &slot.current {
                Some(current) => self.over(current).validate(),
                None => self.validate(),
            }
        })
    }

    /// This PATCH laid over `current`: members left out keep its values.
    pub fn over(self, current: &NewRecipient) -> RecipientInput {
        let auth = RecipientAuthInput {
            access_auth: Given::Valid(OneOrMany(current.auth.access_auth.clone())),
            action_auth: Given::Valid(OneOrMany(current.auth.action_auth.clone())),
        };
        RecipientInput {
            email: self.email.or(Given::Valid(current.email.clone())),
            name: self.name.or(Given::Valid(current.name.clone())),
            role: self.role.or(Given::Valid(current.role)),
            signing_order: self
                .signing_order
                .or(current.signing_order.map_or(Given::Null, Given::Valid)),
            auth_options: self.auth_options.or(Given::Valid(Object(auth))),
        }
    }
}

/// A recipient's own authentication, over the document's.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecipientAuthInput {
    #[serde(default)]
    #[schema(schema_with = access_methods_schema)]
    pub access_auth: Methods,
    #[serde(default)]
    #[schema(schema_with = recipient_action_methods_schema)]
    pub action_auth: Methods,
}

/// A document's authentication options: `globalAccessAuth` and `globalActionAuth`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = AuthOptions)]
pub struct AuthOptionsInput {
    #[serde(default)]
    #[schema(schema_with = access_methods_schema)]
    pub global_access_auth: Methods,
    #[serde(default)]
    #[schema(schema_with = action_methods_schema)]
    pub global_action_auth: Methods,
}

/// `meta`: each member optional.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetaInput {
    #[serde(default)]
    #[schema(value_type = Option<String>, max_length = 255)]
    pub subject: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>, max_length = 5000)]
    pub message: Given<String>,
    #[serde(default)]
    /// An IANA time zone name such as Europe/Paris.
    #[schema(value_type = Option<String>, max_length = 64)]
    pub timezone: Given<String>,
    #[serde(default)]
    #[schema(schema_with = date_format_schema)]
    pub date_format: Given<String>,
    #[serde(default)]
    /// An absolute http or https URL.
    #[schema(value_type = Option<String>, max_length = 2000)]
    pub redirect_url: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<SigningOrder>)]
    pub signing_order: Given<SigningOrder>,
    #[serde(default)]
    #[schema(value_type = Option<DistributionMethod>)]
    pub distribution_method: Given<DistributionMethod>,
    #[serde(default)]
    #[schema(value_type = Option<EmailSettingsInput>)]
    pub email_settings: Given<Object<EmailSettingsInput>>,
}

/// `meta.emailSettings`: the switches, each on when left out.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmailSettingsInput {
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub recipient_signing_request: Given<bool>,
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub recipient_removed: Given<bool>,
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub recipient_signed: Given<bool>,
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub document_pending: Given<bool>,
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub document_completed: Given<bool>,
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub document_deleted: Given<bool>,
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub owner_document_completed: Given<bool>,
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub owner_recipient_expired: Given<bool>,
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub owner_document_created: Given<bool>,
}

impl EmailSettingsInput {
    /// Each switch as sent, in `EmailSettings::KEYS`' order.
    pub fn switches(&self) -> [&Given<bool>; 9] {
        [
            &self.recipient_signing_request,
            &self.recipient_removed,
            &self.recipient_signed,
            &self.document_pending,
            &self.document_completed,
            &self.document_deleted,
            &self.owner_document_completed,
            &self.owner_recipient_expired,
            &self.owner_document_created,
        ]
    }
}

/// A link attachment.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct AttachmentInput {
    #[serde(default)]
    #[schema(value_type = String, required = true, min_length = 1, max_length = 255)]
    pub label: Given<String>,
    #[serde(default)]
    /// An absolute http or https URL.
    #[schema(value_type = String, required = true, max_length = 2000)]
    pub data: Given<String>,
    #[serde(default)]
    /// Only `link`.
    #[serde(rename = "type")]
    #[schema(value_type = Option<String>, pattern = "^link$")]
    pub kind: Given<String>,
}

fn methods_schema(allowed: Vec<&'static str>) -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Type};
    let one = || {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(allowed.clone()))
    };
    OneOfBuilder::new()
        .item(one())
        .item(ArrayBuilder::new().items(one()))
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .description(Some(
            "One method, a list of them (any one will do), or null",
        ))
        .into()
}

pub fn access_methods_schema() -> utoipa::openapi::schema::Schema {
    methods_schema(auth_options::ACCESS_AUTH.to_vec())
}

pub fn action_methods_schema() -> utoipa::openapi::schema::Schema {
    methods_schema(auth_options::ACTION_AUTH.to_vec())
}

fn recipient_action_methods_schema() -> utoipa::openapi::schema::Schema {
    methods_schema(auth_options::RECIPIENT_ACTION_AUTH.to_vec())
}

fn date_format_schema() -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    let mut formats: Vec<Option<&str>> = super::dates::DATE_FORMATS
        .iter()
        .copied()
        .map(Some)
        .collect();
    formats.push(None);
    ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::SchemaType::from_iter([
            Type::String,
            Type::Null,
        ]))
        .enum_values(Some(formats))
        .into()
}

/// Names to text, numbers or booleans.
pub fn form_values_schema() -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, SchemaType, Type};
    let value = ObjectBuilder::new().schema_type(SchemaType::from_iter([
        Type::String,
        Type::Number,
        Type::Boolean,
    ]));
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Object, Type::Null]))
        .additional_properties(Some(AdditionalProperties::RefOr(value.into())))
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::lenient::from_slice;

    fn create(body: &str) -> Result<CreateDocument, AppError> {
        from_slice::<Object<CreateDocumentRequest>>(body.as_bytes())?
            .0
            .validate()
    }

    #[test]
    fn a_seed_request_is_read() {
        let doc = create(r#"{"title": "NDA", "recipients": [{"name": "A", "email": "a@x.org", "role": "SIGNER", "signingOrder": 0}], "meta": {"subject": "s"}, "unknown": 1}"#).unwrap();
        assert_eq!(doc.title, "NDA");
        assert_eq!(doc.recipients.len(), 1);
        assert_eq!(doc.meta.subject.as_deref(), Some("s"));
    }

    #[test]
    fn every_problem_is_named_at_once_whatever_its_form() {
        let err = create(r#"{"title": 5, "recipients": "x", "meta": [1], "authOptions": {"globalActionAuth": "NOPE"}}"#).unwrap_err();
        let paths: Vec<&str> = err.details().iter().map(|d| d.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "title",
                "recipients",
                "meta",
                "authOptions.globalActionAuth"
            ]
        );
        let err = create(r#"{"title": "T", "recipients": [5, {"email": "bad", "role": "KING", "signingOrder": "x"}]}"#).unwrap_err();
        let paths: Vec<&str> = err.details().iter().map(|d| d.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "recipients[0]",
                "recipients[1].email",
                "recipients[1].role",
                "recipients[1].signingOrder"
            ]
        );
        let err = create("[1]").unwrap_err();
        assert_eq!(err.details()[0].path, "");
    }

    #[test]
    fn a_patch_keeps_what_it_leaves_out_and_clears_what_it_nulls() {
        let current = NewRecipient {
            email: "a@x.org".into(),
            name: "Ann".into(),
            role: Role::Approver,
            signing_order: Some(2),
            auth: Default::default(),
        };
        let patch: RecipientInput =
            from_slice(br#"{"name": "Bea", "signingOrder": null}"#).unwrap();
        let r = patch.over(&current).validate().unwrap();
        assert_eq!(
            (r.name.as_str(), r.role, r.signing_order),
            ("Bea", Role::Approver, None)
        );
        assert_eq!(r.email, "a@x.org");
    }
}
