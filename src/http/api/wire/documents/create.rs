//! `POST /api/v1/documents` as a type, turned into the `CreateDocument` command; with it the
//! `title` that templates read too.

use serde::Deserialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::List;
use super::attachments::{AttachmentInput, parse_attachments};
use super::auth::{AuthOptionsInput, parse_auth_options};
use super::meta::{MetaInput, chosen, form_values_schema, parse_form_values, parse_meta};
use super::recipients::{RecipientInput, parse_recipients};
use crate::core::error::AppError;
use crate::core::lenient::{Given, Object};
use crate::signing::documents::check::Check;
use crate::signing::documents::meta::Meta;
use crate::signing::documents::{CreateDocument, MAX_EXTERNAL_ID, MAX_RECIPIENTS, MAX_TITLE};

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
    #[serde(default)]
    /// Who in its team sees it: `EVERYONE` (when left out), `MANAGER_AND_ABOVE` or `ADMIN` (a
    /// team's document only; a role gives only a visibility it sees).
    #[schema(value_type = Option<crate::core::owner::Visibility>)]
    pub visibility: Given<String>,
}

impl CreateDocumentRequest {
    /// The draft to create: 400 listing every problem. The tier's rules are the use case's.
    pub fn validate(&self) -> Result<CreateDocument, AppError> {
        let mut c = Check::new();
        let title = title(&mut c, &self.title);
        let external_id = c.text(&self.external_id, "externalId", MAX_EXTERNAL_ID);
        let recipients = parse_recipients(&mut c, &self.recipients, "recipients", MAX_RECIPIENTS);
        let mut meta = parse_meta(&mut c, &self.meta, Meta::default(), true);
        let chosen = chosen(&self.meta);
        meta.attachments = parse_attachments(&mut c, &self.attachments);
        let auth_options = parse_auth_options(&mut c, &self.auth_options);
        let form_values = parse_form_values(&mut c, &self.form_values);
        let visibility = super::settings::parse_visibility(&mut c, &self.visibility);
        c.finish(CreateDocument {
            title,
            external_id,
            recipients,
            meta,
            chosen,
            auth_options,
            form_values,
            visibility,
        })
    }
}

/// A required `title` of 1 to `MAX_TITLE` characters, trimmed (`""` when it has a problem).
pub fn title(c: &mut Check, given: &Given<String>) -> String {
    match given.valid() {
        Some(t) if !t.trim().is_empty() && t.chars().count() <= MAX_TITLE => t.trim().to_string(),
        Some(_) => {
            c.fail("title", format!("1 to {MAX_TITLE} characters"));
            String::new()
        }
        None => {
            c.fail("title", "required: a string");
            String::new()
        }
    }
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
}
