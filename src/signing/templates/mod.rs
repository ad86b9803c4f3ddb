//! Reusable templates: the commands to create one or to generate a document from one (their
//! wire shapes are in `http::api::wire::templates`), the shapes returned, and the copy into a
//! new document.
//! SQL lives in `store.rs`; the document side of a copy goes through `documents::store`.

pub mod answers;
pub mod direct;
pub mod edit;
pub mod from_document;
pub mod manage;
pub mod model;
pub mod prefill;
pub mod row;
pub mod store;

use crate::core::ids::{DocumentId, FieldId, RecipientId, TemplateId, UserId};

use std::collections::HashMap;
use std::io::Read;

use crate::core::db::Conn;
use serde::Serialize;

use crate::core::blob::store::StoredBlob;
use crate::core::error::AppError;
use crate::identity::users::Tier;
use crate::signing::documents::check::{Check, Recheck};
use crate::signing::documents::fields::FieldType;
use crate::{core::blob::BlobId, core::blob::BlobStore};
use crate::{signing::documents, signing::documents::CreateDocument};
use crate::{
    signing::documents::auth_options::AuthOptions, signing::documents::meta::Meta,
    signing::documents::meta::SigningOrder,
};
use crate::{signing::documents::recipients::NewRecipient, signing::documents::recipients::Role};
use serde::Deserialize;

/// Template recipients may be created without an e-mail (a role to fill in later). They get
/// `recipient.<n>@placeholder.docket.invalid` instead, because every recipient row needs an
/// address and a generated document needs distinct ones: `.invalid` is reserved (RFC 2606), so
/// nothing can ever be delivered there, and sending a document refuses addresses in this domain
/// until the recipient is edited.
pub const PLACEHOLDER_DOMAIN: &str = "placeholder.docket.invalid";

/// The placeholder address of a template's `n`-th recipient (from 1).
pub fn placeholder_email(n: usize) -> String {
    format!("recipient.{n}@{PLACEHOLDER_DOMAIN}")
}

/// `n` of an address made by `placeholder_email(n)`.
pub fn placeholder_number(email: &str) -> Option<usize> {
    let (local, _) = email.rsplit_once('@').filter(|_| is_placeholder(email))?;
    local.strip_prefix("recipient.")?.parse().ok()
}

/// True for an address made by `placeholder_email`.
pub fn is_placeholder(email: &str) -> bool {
    email
        .rsplit_once('@')
        .is_some_and(|(_, domain)| domain.eq_ignore_ascii_case(PLACEHOLDER_DOMAIN))
}

/// `templateDocumentData.type`. The seed shows `S3_PATH`, whose `data` is a storage key; files
/// live on this server's disk, so the type says how to read `data` instead: the SHA-256 (hex) of
/// the uploaded PDF, or `""` before an upload. The PDF itself is never inlined.
pub const DOCUMENT_DATA_TYPE: &str = "SHA256";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum TemplateType {
    Public,
    Private,
}

impl TemplateType {
    pub const ALL: [TemplateType; 2] = [TemplateType::Public, TemplateType::Private];
    pub fn as_str(self) -> &'static str {
        match self {
            TemplateType::Public => "PUBLIC",
            TemplateType::Private => "PRIVATE",
        }
    }
    pub fn parse(s: &str) -> Option<TemplateType> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

crate::sql_text_enum!(TemplateType);

/// `POST /api/v1/templates`, validated.
#[derive(Debug, Clone)]
pub struct CreateTemplate {
    pub title: String,
    pub external_id: Option<String>,
    pub kind: TemplateType,
    pub recipients: Vec<NewRecipient>,
    pub meta: Meta,
    /// As `CreateDocument::chosen`: made in a team, the values not chosen are the team's.
    pub chosen: crate::signing::documents::meta::Chosen,
    pub auth_options: AuthOptions,
    /// Who in its team sees it (a team's template only; `None`: EVERYONE).
    pub visibility: Option<crate::core::owner::Visibility>,
}

/// A template as the API shows it, in the other signing service's shape exactly.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = Template)]
pub struct TemplateView {
    pub id: TemplateId,
    #[schema(required = true)]
    pub external_id: Option<String>,
    #[serde(rename = "type")]
    pub kind: TemplateType,
    pub title: String,
    pub user_id: UserId,
    #[schema(required = true)]
    pub team_id: Option<i64>,
    pub template_document_data_id: String,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
    pub template_meta: TemplateMeta,
    pub direct_link: DirectLink,
    pub template_document_data: TemplateDocumentData,
    #[serde(rename = "Field")]
    pub fields: Vec<TemplateField>,
    #[serde(rename = "Recipient")]
    pub recipients: Vec<TemplateRecipient>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateMeta {
    pub id: String,
    #[schema(required = true)]
    pub subject: Option<String>,
    #[schema(required = true)]
    pub message: Option<String>,
    pub timezone: String,
    pub date_format: String,
    pub template_id: TemplateId,
    #[schema(required = true)]
    pub redirect_url: Option<String>,
    pub signing_order: SigningOrder,
    /// The language its documents' recipients read.
    pub language: crate::core::i18n::Lang,
    /// How long each recipient of its documents has once sent (`meta.envelopeExpirationPeriod`).
    #[schema(required = true)]
    pub envelope_expiration_period: Option<crate::signing::documents::deadline::Period>,
    /// Its documents' automatic reminders (`meta.reminders`).
    #[schema(required = true)]
    pub reminders: Option<crate::signing::documents::deadline::Reminders>,
}

impl TemplateMeta {
    pub fn new(id: String, template_id: TemplateId, m: Meta) -> Self {
        TemplateMeta {
            id,
            subject: m.subject,
            message: m.message,
            timezone: m.timezone,
            date_format: m.date_format,
            template_id,
            redirect_url: m.redirect_url,
            signing_order: m.signing_order,
            language: m.language,
            envelope_expiration_period: m.envelope_expiration_period,
            reminders: m.reminders,
        }
    }
}

/// The template's direct link as the signing service shows it; `enabled` is true only while
/// the link works (`direct::DirectLinkState` has the recipient and the address).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct DirectLink {
    pub token: String,
    pub enabled: bool,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct TemplateDocumentData {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub data: String,
}

/// A template's field as the API shows it: position and size are decimal strings.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateField {
    pub id: FieldId,
    pub recipient_id: RecipientId,
    #[serde(rename = "type")]
    pub kind: FieldType,
    pub page: i64,
    pub position_x: String,
    pub position_y: String,
    pub width: String,
    pub height: String,
    #[schema(required = true, value_type = Option<Object>)]
    pub field_meta: Option<crate::signing::documents::field_meta::FieldMeta>,
}

/// A template's recipient as the API shows it: `authOptions` is JSON text (`""` when none).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateRecipient {
    pub id: RecipientId,
    pub email: String,
    pub name: String,
    #[schema(required = true)]
    pub signing_order: Option<i64>,
    pub auth_options: String,
    pub role: Role,
}

/// What a template gives a generated document before the request's changes.
#[derive(Debug, Clone)]
pub struct Base {
    pub title: String,
    pub meta: Meta,
    pub auth_options: AuthOptions,
    /// The template's recipients, in order, with their ids.
    pub recipients: Vec<(RecipientId, NewRecipient)>,
    /// The template's fields (what `prefillFields` names).
    pub fields: Vec<crate::signing::documents::model::Field>,
}

/// `POST /api/v1/templates/{id}/generate-document`, validated against the template.
#[derive(Debug, Clone)]
pub struct Generate {
    pub document: CreateDocument,
    /// Every template recipient (by its template id) as the document will have it.
    pub recipients: Vec<(RecipientId, NewRecipient)>,
    /// `prefillFields`, by template field id.
    pub prefill: HashMap<FieldId, prefill::Prefilled>,
}

/// A client's request to generate a document (`generate-document`, `create-document`, the web
/// application's Use form) as the HTTP layer's conversion: what it makes of the template
/// (`Base`), or a 400 listing every problem. `manage::generate` checks it in a read, so that a
/// bad request starts no write, and again against the template the copying transaction reads.
pub type GenerateCommand = Recheck<Base, Generate>;

/// A document to generate from a template: what it changes of the template, checked against
/// the template in the transaction that copies it.
#[derive(Debug, Clone, Copy)]
pub enum GenerateDocument<'a> {
    /// A client's request, as its command.
    Request(&'a GenerateCommand),
    /// A direct link's visitor (name and address already checked), standing for the template
    /// recipient `recipient`; the rest is the template's.
    Visitor {
        recipient: RecipientId,
        name: &'a str,
        email: &'a str,
    },
    /// A row of values (a bulk send's CSV row), over the template's.
    Row(&'a row::Row),
}

impl GenerateDocument<'_> {
    /// The document to make from the template `base`, for an account of `tier`.
    pub fn against(self, base: &Base, tier: Tier) -> Result<Generate, AppError> {
        match self {
            GenerateDocument::Request(command) => command.check(base)?.within_tier(tier),
            GenerateDocument::Visitor {
                recipient,
                name,
                email,
            } => Generate::for_visitor(base, tier, recipient, name, email),
            GenerateDocument::Row(row) => Generate::for_row(base, tier, row),
        }
    }
}

impl Generate {
    /// The template as it is, with recipient `recipient` named `name` at `email`. Refused as
    /// the same change sent as a request would be: a recipient the template lacks, or an
    /// address another recipient has.
    fn for_visitor(
        base: &Base,
        tier: Tier,
        recipient: RecipientId,
        name: &str,
        email: &str,
    ) -> Result<Generate, AppError> {
        let mut c = Check::new();
        let mut recipients = base.recipients.clone();
        match recipients.iter_mut().find(|(id, _)| *id == recipient) {
            Some((_, r)) => {
                r.name = name.to_string();
                r.email = email.to_string();
            }
            None => c.fail("recipients[0].id", no_such_recipient(recipient)),
        }
        if recipients
            .iter()
            .any(|(id, r)| *id != recipient && r.email == email)
        {
            c.fail("recipients[0].email", address_taken(email));
        }
        let g = c.finish(Generate {
            document: CreateDocument {
                title: base.title.clone(),
                external_id: None,
                recipients: Vec::new(),
                meta: base.meta.clone(),
                chosen: crate::signing::documents::meta::Chosen::ALL,
                auth_options: base.auth_options.clone(),
                form_values: None,
                visibility: None,
            },
            recipients,
            prefill: HashMap::new(),
        })?;
        g.within_tier(tier)
    }

    /// 403 unless an account of `tier` may ask for what the document's authentication options
    /// and recipients ask.
    pub fn within_tier(self, tier: Tier) -> Result<Generate, AppError> {
        let all: Vec<NewRecipient> = self.recipients.iter().map(|(_, r)| r.clone()).collect();
        crate::signing::documents::check_tier(&self.document.auth_options, &all, tier)?;
        Ok(self)
    }
}

/// A new blob with the bytes of `source`, for a duplicated template. (A document made from a
/// template shares the template's file instead: `generate`.)
pub fn copy_blob(blobs: &BlobStore, source: &BlobId) -> Result<StoredBlob, AppError> {
    let mut from = blobs.open_blob(source).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            AppError::Conflict("the template's file changed meanwhile; try again".into())
        } else {
            e.into()
        }
    })?;
    let mut w = blobs.begin()?;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = from.read(&mut buf)?;
        if n == 0 {
            break;
        }
        w.write_all(&buf[..n])?;
    }
    Ok(w.commit()?)
}

/// `copy_blob` of `source` on the blocking pool (the copy reads and writes the whole file).
pub async fn copy_blob_async(blobs: &BlobStore, source: &BlobId) -> Result<StoredBlob, AppError> {
    let (blobs, source) = (blobs.clone(), source.clone());
    tokio::task::spawn_blocking(move || copy_blob(&blobs, &source))
        .await
        .map_err(|e| AppError::internal(format!("copy task failed: {e}")))?
}

/// `generate-document` in one transaction: a DRAFT of `owner` (from its template, which
/// `owner` must reach) with the template's recipients (as the
/// request changed them), fields (on the new recipients), meta and the template's file, which
/// the document shares (the same stored file, not a copy: twenty documents of a 2 MB template
/// store 2 MB, not 40; deleting the template or a document releases the file, which goes only
/// when nothing refers to it). `expected_blob` is the file the caller checked. Answers the
/// document id.
#[allow(clippy::too_many_arguments)]
pub fn generate(
    tx: &Conn,
    owner: &crate::core::owner::Owner,
    template: TemplateId,
    body: GenerateDocument<'_>,
    tier: Tier,
    expected_blob: &str,
    data_id: &str,
    now: i64,
) -> Result<DocumentId, AppError> {
    // Taken before the template is read, so no release of the file can slip in between.
    crate::core::blob::rows::hold(tx, expected_blob)?;
    let t = store::owned(tx, owner, template)?;
    let g = body.against(&t.base(), tier)?;
    let (Some(blob), Some(sizes)) = (&t.blob_id, &t.page_sizes) else {
        return Err(no_file());
    };
    let sizes = serde_json::to_string(sizes).unwrap_or_else(|_| "[]".into());
    if blob != expected_blob {
        return Err(AppError::Conflict(
            "the template's file changed meanwhile; try again".into(),
        ));
    }
    let doc = documents::store::insert(tx, owner, &g.document, data_id, now)?;
    documents::store::share_file(tx, doc, blob, &sizes, now)?;
    documents::store::set_template(tx, doc, t.id)?;
    let parent = documents::store::Parent::Document(doc);
    let mut ids = HashMap::new();
    for (tid, r) in &g.recipients {
        ids.insert(
            *tid,
            documents::store::recipients::insert(tx, parent, r, now)?,
        );
    }
    for source in &t.fields {
        let mut f = source.as_new();
        f.recipient_id = *ids
            .get(&f.recipient_id)
            .ok_or_else(|| AppError::internal("a template field without its recipient"))?;
        let prefilled = g.prefill.get(&source.id);
        if let Some(p) = prefilled {
            f.field_meta = p.meta.clone();
        }
        let id = documents::store::fields::insert(tx, parent, &f, now)?;
        if let Some(value) = prefilled.and_then(|p| p.value.as_deref()) {
            documents::store::fields::preset(tx, id, value, now)?;
        }
    }
    let attachments = crate::signing::attachments::store::copy;
    attachments(tx, documents::store::Parent::Template(t.id), parent, now)?;
    Ok(doc)
}

/// Why a generated document cannot name the template's recipient `id`: the template has none.
pub fn no_such_recipient(id: RecipientId) -> String {
    format!("no recipient {id} on this template; GET the template for its Recipient ids")
}

/// Why a generated document's recipient cannot have `email`: another recipient has it.
pub fn address_taken(email: &str) -> String {
    format!("{email} is already another recipient's address")
}

/// 409: generating needs the template's PDF.
pub fn no_file() -> AppError {
    AppError::Conflict("the template has no file yet; PUT the PDF to its uploadUrl first".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::users::Tier;
    use crate::signing::documents::check_tier;
    use serde_json::Value;
    use serde_json::json;

    fn create(body: Value) -> Result<CreateTemplate, AppError> {
        serde_json::from_value::<crate::http::api::wire::templates::create::CreateTemplateRequest>(
            body,
        )
        .unwrap()
        .validate()
    }

    #[test]
    fn recipients_without_email_get_placeholders() {
        let t = create(
            json!({"title": "T", "recipients": [{"role": "SIGNER"}, {"email": "b@x.org", "role": "CC"}, {"name": "C", "email": null}]}),
        )
        .unwrap();
        let emails: Vec<&str> = t.recipients.iter().map(|r| r.email.as_str()).collect();
        assert_eq!(
            emails,
            [
                "recipient.1@placeholder.docket.invalid",
                "b@x.org",
                "recipient.3@placeholder.docket.invalid"
            ]
        );
        assert_eq!(t.recipients[0].name, "");
        assert!(is_placeholder(&emails[0].to_uppercase()));
        assert!(!is_placeholder("b@x.org"));
        assert_eq!(t.kind, TemplateType::Private);
    }

    #[test]
    fn create_is_validated_like_documents() {
        let err = create(
            json!({"title": "", "type": "SHARED", "recipients": [{"email": "nope"}], "meta": {"timezone": "Mars/Base"}}),
        )
        .unwrap_err();
        let paths: Vec<&str> = err.details().iter().map(|d| d.path.as_str()).collect();
        assert_eq!(
            paths,
            ["title", "type", "recipients[0].email", "meta.timezone"]
        );
        let auth =
            json!({"title": "T", "recipients": [], "authOptions": {"globalActionAuth": "PASSKEY"}});
        let t = create(auth).unwrap();
        assert!(matches!(
            check_tier(&t.auth_options, &t.recipients, Tier::Standard),
            Err(AppError::Forbidden(_))
        ));
        assert!(check_tier(&t.auth_options, &t.recipients, Tier::Enterprise).is_ok());
    }
}
