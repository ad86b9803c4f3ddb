//! What the API v2's attachment operations take, as either client sends it: the finds'
//! queries (an envelope id; a document's number, `7.0` too) and the bodies of create, update
//! and delete, with every problem named by its path (`data.data` for the URL). An id docket
//! could not have given names nothing: a 404, as another workspace's.

use serde::Deserialize;

use super::wire_folders::required_text;
use crate::core::error::{AppError, FieldError};
use crate::core::ids::DocumentId;
use crate::core::lenient::{Given, Int, Object};
use crate::signing::attachments::model::{LABEL, URL};
use crate::signing::attachments::{NewAttachment, Parent};
use crate::signing::documents::check::Check;
use crate::signing::envelope_ids::Envelope;
use crate::signing::envelopes::attachments::parent_of;

/// `GET /envelope/attachment`'s query.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct EnvelopeAttachmentQuery {
    /// The envelope (`envelope_...`).
    #[param(required = true)]
    pub envelope_id: Option<String>,
    /// A recipient's token: accepted and not needed (the key decides).
    pub token: Option<String>,
}

impl EnvelopeAttachmentQuery {
    pub fn parent(&self) -> Result<Parent, AppError> {
        match self.envelope_id.as_deref().map(str::trim) {
            None | Some("") => Err(AppError::validation(vec![FieldError::new(
                "envelopeId",
                "required",
            )])),
            Some(id) => envelope(id),
        }
    }
}

/// `GET /document/attachment`'s query.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct DocumentAttachmentQuery {
    /// The document's number (7 or 7.0).
    #[param(required = true)]
    pub document_id: Option<String>,
}

impl DocumentAttachmentQuery {
    pub fn parent(&self) -> Result<Parent, AppError> {
        let mut c = Check::new();
        let n = match self.document_id.as_deref().map(str::trim) {
            None | Some("") => {
                c.fail("documentId", "required");
                None
            }
            Some(s) => Int::parse(s).or_else(|| {
                c.fail("documentId", "must be a whole number");
                None
            }),
        };
        c.finish(())?;
        document(n.unwrap_or(Int(0)))
    }
}

/// A link as sent: `{label, data}` (`data` the URL).
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[schema(as = V2AttachmentInput)]
pub struct LinkInput {
    /// 1 to 255 characters.
    #[schema(value_type = String, required = true)]
    #[serde(default)]
    pub label: Given<String>,
    /// An absolute http or https URL.
    #[schema(value_type = String, required = true)]
    #[serde(default)]
    pub data: Given<String>,
}

/// `POST /envelope/attachment/create`'s body.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2EnvelopeAttachmentCreate)]
pub struct CreateEnvelopeAttachment {
    #[schema(value_type = String, required = true)]
    #[serde(default)]
    pub envelope_id: Given<String>,
    #[schema(value_type = LinkInput, required = true)]
    #[serde(default)]
    pub data: Given<Object<LinkInput>>,
}

/// `POST /document/attachment/create`'s body.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2DocumentAttachmentCreate)]
pub struct CreateDocumentAttachment {
    /// The document's number (7 or 7.0).
    #[schema(value_type = i64, required = true)]
    #[serde(default)]
    pub document_id: Given<Int>,
    #[schema(value_type = LinkInput, required = true)]
    #[serde(default)]
    pub data: Given<Object<LinkInput>>,
}

/// `POST /envelope/attachment/update`'s and `/document/attachment/update`'s body.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[schema(as = V2AttachmentUpdate)]
pub struct UpdateAttachment {
    /// The attachment's id.
    #[schema(value_type = String, required = true)]
    #[serde(default)]
    pub id: Given<String>,
    #[schema(value_type = LinkInput, required = true)]
    #[serde(default)]
    pub data: Given<Object<LinkInput>>,
}

/// `POST /envelope/attachment/delete`'s and `/document/attachment/delete`'s body.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[schema(as = V2AttachmentDelete)]
pub struct DeleteAttachment {
    /// The attachment's id.
    #[schema(value_type = String, required = true)]
    #[serde(default)]
    pub id: Given<String>,
}

impl CreateEnvelopeAttachment {
    pub fn command(&self) -> Result<(Parent, NewAttachment), AppError> {
        let mut c = Check::new();
        let id = required_text(&mut c, &self.envelope_id, "envelopeId");
        let link = link(&mut c, &self.data);
        c.finish(())?;
        let parent = envelope(id.as_deref().unwrap_or_default())?;
        Ok((parent, link.expect("checked")))
    }
}

impl CreateDocumentAttachment {
    pub fn command(&self) -> Result<(Parent, NewAttachment), AppError> {
        let mut c = Check::new();
        let n = match &self.document_id {
            Given::Absent | Given::Null => {
                c.fail("documentId", "required");
                None
            }
            given => c
                .given(given, "documentId", "must be a whole number")
                .copied(),
        };
        let link = link(&mut c, &self.data);
        c.finish(())?;
        let parent = document(n.unwrap_or(Int(0)))?;
        Ok((parent, link.expect("checked")))
    }
}

impl UpdateAttachment {
    pub fn command(&self) -> Result<(String, NewAttachment), AppError> {
        let mut c = Check::new();
        let id = required_text(&mut c, &self.id, "id");
        let link = link(&mut c, &self.data);
        c.finish(())?;
        Ok((id.unwrap_or_default(), link.expect("checked")))
    }
}

impl DeleteAttachment {
    pub fn id(&self) -> Result<String, AppError> {
        let mut c = Check::new();
        let id = required_text(&mut c, &self.id, "id");
        c.finish(id.unwrap_or_default())
    }
}

/// The link of `data`, checked by the attachments' one rule (`NewAttachment::parse`), its
/// problems named `data.label` and `data.data`.
fn link(c: &mut Check, data: &Given<Object<LinkInput>>) -> Option<NewAttachment> {
    let d = match data {
        Given::Valid(Object(d)) => d,
        Given::Invalid(_) => {
            c.fail("data", "must be an object {label, data}");
            return None;
        }
        Given::Absent | Given::Null => {
            c.fail("data", "required: an object {label, data}");
            return None;
        }
    };
    let label = c.given(&d.label, "data.label", "must be a string");
    let url = c.given(&d.data, "data.data", "must be a string");
    if d.label.is_invalid() || d.data.is_invalid() {
        return None;
    }
    let (label, url) = (label.cloned().unwrap_or_default(), url.cloned());
    match NewAttachment::parse(&label, url.as_deref().unwrap_or_default()) {
        Ok(new) => Some(new),
        Err(e) => {
            for d in e.details() {
                let at = match d.path.as_str() {
                    LABEL => "data.label",
                    URL => "data.data",
                    other => other,
                };
                c.fail(at, d.message.clone());
            }
            None
        }
    }
}

/// The document or template an envelope id names (a 404 for one docket could not have given).
fn envelope(id: &str) -> Result<Parent, AppError> {
    Envelope::parse(id.trim())
        .map(parent_of)
        .ok_or_else(|| AppError::not_found("envelope"))
}

/// The document a number names (a 404 for one that names none).
fn document(n: Int) -> Result<Parent, AppError> {
    (n.0 > 0)
        .then(|| Parent::Document(DocumentId::new(n.0)))
        .ok_or_else(|| AppError::not_found("document"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::lenient::from_slice;

    fn paths(e: AppError) -> Vec<String> {
        e.details().iter().map(|d| d.path.clone()).collect()
    }

    #[test]
    fn links_are_checked_by_the_one_rule_under_their_v2_paths() {
        let ok: CreateDocumentAttachment = from_slice(
            br#"{"documentId": 7.0, "data": {"label": "Terms", "data": "https://a.example/t"}}"#,
        )
        .unwrap();
        let (parent, new) = ok.command().unwrap();
        assert_eq!(parent, Parent::Document(DocumentId::new(7)));
        assert_eq!((new.label(), new.url()), ("Terms", "https://a.example/t"));
        let bad: CreateDocumentAttachment =
            from_slice(br#"{"documentId": 7.5, "data": {"label": "", "data": "javascript:x"}}"#)
                .unwrap();
        assert_eq!(
            paths(bad.command().unwrap_err()),
            ["documentId", "data.label", "data.data"]
        );
        let bad: CreateEnvelopeAttachment = from_slice(br#"{"data": 3}"#).unwrap();
        assert_eq!(paths(bad.command().unwrap_err()), ["envelopeId", "data"]);
        let nowhere: CreateEnvelopeAttachment = from_slice(
            br#"{"envelopeId": "envelope_nonsense", "data": {"label": "T", "data": "https://a.example"}}"#,
        )
        .unwrap();
        assert_eq!(nowhere.command().unwrap_err().code(), "not_found");
        let up: UpdateAttachment = from_slice(br#"{"id": 4, "data": {"label": "T"}}"#).unwrap();
        assert_eq!(paths(up.command().unwrap_err()), ["id", "data.data"]);
        let gone: DeleteAttachment = from_slice(b"{}").unwrap();
        assert_eq!(paths(gone.id().unwrap_err()), ["id"]);
    }

    #[test]
    fn the_finds_name_their_parent() {
        let q = DocumentAttachmentQuery {
            document_id: Some("12.0".into()),
        };
        assert_eq!(q.parent().unwrap(), Parent::Document(DocumentId::new(12)));
        let q = DocumentAttachmentQuery {
            document_id: Some("1.5".into()),
        };
        assert_eq!(paths(q.parent().unwrap_err()), ["documentId"]);
        let q = EnvelopeAttachmentQuery::default();
        assert_eq!(paths(q.parent().unwrap_err()), ["envelopeId"]);
        let e = Envelope::Document(DocumentId::new(3)).id();
        let q = EnvelopeAttachmentQuery {
            envelope_id: Some(e),
            token: None,
        };
        assert_eq!(q.parent().unwrap(), Parent::Document(DocumentId::new(3)));
    }
}
