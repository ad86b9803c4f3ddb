//! The document API's answers around a document's own shape (`view`): creation, lists,
//! deletions and added fields. Their OpenAPI schemas are derived from these types.

use crate::core::ids::DocumentId;
use serde::Serialize;
use utoipa::openapi::schema::{Schema, SchemaType, Type};
use utoipa::openapi::{ObjectBuilder, RefOr};
use utoipa::{PartialSchema, ToSchema};

use super::store::Deleted;
use super::view::{DocumentView, FieldView, RecipientBrief, RecipientView};

/// `POST /api/v1/documents`: the new draft, its recipients, and the signed URL its PDF is to
/// be uploaded to.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = CreateDocumentResponse)]
pub struct DocumentCreated {
    pub upload_url: String,
    pub document_id: DocumentId,
    #[schema(required = true)]
    pub external_id: Option<String>,
    pub recipients: Vec<RecipientBrief>,
}

/// `GET /api/v1/documents`: a page of documents, newest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DocumentList {
    pub documents: Vec<DocumentView>,
    pub total_pages: i64,
}

/// What `DELETE /api/v1/documents/{id}` did (`outcome`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum Outcome {
    Deleted,
    Cancelled,
    Hidden,
}

/// The answer to deleting a document: the document (the other signing service answers it),
/// its `status` a DocumentStatus (a removed draft's is DRAFT), with docket's `deleted` (the
/// row is gone) and `outcome`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = DeletedDocument)]
pub struct DocumentDeleted {
    #[serde(flatten)]
    pub document: DocumentView,
    /// True when the draft and its file are gone.
    pub deleted: bool,
    pub outcome: Outcome,
}

impl DocumentDeleted {
    pub fn of(document: DocumentView, done: Deleted) -> DocumentDeleted {
        let outcome = match done {
            Deleted::Removed => Outcome::Deleted,
            Deleted::Cancelled => Outcome::Cancelled,
            Deleted::Hidden => Outcome::Hidden,
        };
        DocumentDeleted {
            document,
            deleted: done == Deleted::Removed,
            outcome,
        }
    }
}

/// The schema of a member that is always null (a key of the other signing service that docket
/// has nothing for).
pub fn always_null() -> Schema {
    ObjectBuilder::new().schema_type(Type::Null).build().into()
}

/// `{"deleted": true}`'s schema: the constant true.
pub fn always_true() -> Schema {
    ObjectBuilder::new()
        .schema_type(SchemaType::from(Type::Boolean))
        .enum_values(Some([true]))
        .build()
        .into()
}

/// A removed recipient as it was (its `signingUrl` ""), with `deleted: true`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = DeletedRecipient)]
pub struct RecipientRemoved {
    #[serde(flatten)]
    pub recipient: RecipientView,
    #[schema(schema_with = always_true)]
    pub deleted: bool,
}

/// A deleted field as it was, with `deleted: true`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = DeletedField)]
pub struct FieldRemoved {
    #[serde(flatten)]
    pub field: FieldView,
    #[schema(schema_with = always_true)]
    pub deleted: bool,
}

/// The answer to adding fields: `{documentId, fields}`; when one field was sent (an object,
/// not a list), its keys stand at the top level too, as clients of the other signing service
/// read `id` there.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum FieldsAdded {
    One {
        #[serde(flatten)]
        field: Box<FieldView>,
        fields: Vec<FieldView>,
    },
    #[serde(rename_all = "camelCase")]
    Many {
        document_id: DocumentId,
        fields: Vec<FieldView>,
    },
}

impl FieldsAdded {
    /// The answer for `fields` added to `document`, `single` when one object was sent.
    pub fn of(document: DocumentId, single: bool, mut fields: Vec<FieldView>) -> FieldsAdded {
        match fields.first() {
            Some(one) if single => FieldsAdded::One {
                field: Box::new(one.clone()),
                fields,
            },
            _ => FieldsAdded::Many {
                document_id: document,
                fields: std::mem::take(&mut fields),
            },
        }
    }
}

impl utoipa::PartialSchema for FieldsAdded {
    fn schema() -> RefOr<Schema> {
        use utoipa::openapi::schema::{AllOfBuilder, AnyOfBuilder, ArrayBuilder, Ref};
        let fields = || ArrayBuilder::new().items(Ref::from_schema_name("Field"));
        let list = ObjectBuilder::new()
            .property("documentId", i64::schema())
            .property("fields", fields())
            .required("documentId")
            .required("fields");
        let one = AllOfBuilder::new()
            .item(Ref::from_schema_name("Field"))
            .item(
                ObjectBuilder::new()
                    .property("fields", fields())
                    .required("fields"),
            );
        AnyOfBuilder::new()
            .item(list)
            .item(one)
            .description(Some(
                "When one field was sent (an object), its keys (id, recipientId, type, ...) also \
                 stand at the top level",
            ))
            .into()
    }
}

impl ToSchema for FieldsAdded {
    fn name() -> std::borrow::Cow<'static, str> {
        "FieldsResponse".into()
    }

    fn schemas(out: &mut Vec<(String, RefOr<Schema>)>) {
        out.push(("Field".into(), FieldView::schema()));
        FieldView::schemas(out);
    }
}
