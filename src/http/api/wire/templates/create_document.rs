//! `POST /api/v1/templates/{id}/create-document` (the other signing service's older way to
//! generate) as a type: a `generate-document` body whose `title` is required and whose
//! `recipients` name the template's recipients by position (the first item is the template's
//! first recipient) instead of by `id`. Its command names them by position in the template it
//! is checked against, then checks the rest as `generate-document` does.

use serde::Deserialize;
use utoipa::ToSchema;

use super::generate::GenerateRequest;
use crate::core::error::AppError;
use crate::core::lenient::{Given, Object};
use crate::signing::documents::check::{Check, Recheck};
use crate::signing::templates::{Base, GenerateCommand};

/// `POST /api/v1/templates/{id}/create-document`: a `GenerateRequest` whose recipients stand
/// for the template's by position (no `id`) and whose `title` is required.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(transparent)]
pub struct CreateFromTemplateRequest(pub GenerateRequest);

impl CreateFromTemplateRequest {
    /// The command: the recipients named by their position in the template, then the request
    /// laid over it as `generate-document`'s is.
    pub fn command(self) -> GenerateCommand {
        Recheck::new(move |base: &Base| by_position(self.0.clone(), base)?.validate(base))
    }
}

/// `body` with the ids of the template's (`base`) recipients filled in by position, once its
/// `title` is there.
fn by_position(mut body: GenerateRequest, base: &Base) -> Result<GenerateRequest, AppError> {
    let mut c = Check::new();
    if !matches!(body.title.valid(), Some(t) if !t.trim().is_empty()) {
        c.fail("title", "required: 1 to 255 characters");
    }
    match &mut body.recipients {
        Given::Valid(list) => {
            for (i, item) in list.iter_mut().enumerate() {
                match (base.recipients.get(i), item) {
                    (Some((id, _)), Given::Valid(Object(item))) => item.id = Given::Valid(*id),
                    (None, _) => c.fail(
                        format!("recipients[{i}]"),
                        format!(
                            "the template has {} recipients; this one has none to stand for",
                            base.recipients.len()
                        ),
                    ),
                    (_, _) => c.fail(format!("recipients[{i}]"), "must be an object"),
                }
            }
        }
        _ => c.fail(
            "recipients",
            "required: an array of {name, email, role, signingOrder}, in the template's order",
        ),
    }
    c.finish(body)
}

impl utoipa::PartialSchema for CreateFromTemplateRequest {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::{RefOr, schema::Schema};
        match GenerateRequest::schema() {
            RefOr::T(Schema::Object(mut o)) => {
                o.required = vec!["title".into(), "recipients".into()];
                o.example = None;
                o.description = Some("As GenerateDocument, recipients by their position in the template (no id) and title required".into());
                RefOr::T(Schema::Object(o))
            }
            other => other,
        }
    }
}

impl ToSchema for CreateFromTemplateRequest {}
