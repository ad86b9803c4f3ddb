//! Editing the recipients and fields of a draft, once for its two kinds: documents and
//! templates (`Draft`). Each use case owns its transaction, reads the user's draft (another
//! user's is a 404), checks the command against it, lets the kind refuse what its state forbids
//! (a document once it is sent; a template never refuses), writes through `documents::store`
//! (`Parent`) and answers the recipient or field as it now is. The callers turn that into the
//! kind's own view.

use crate::core::context::Context;
use crate::core::db::{Conn, now};
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, FieldId, RecipientId, UserId};
use crate::core::owner::Owner;
use crate::identity::principal::Principal;
use crate::teams::access;

use super::audit::{Origin, owner_email};
use super::check::Against;
use super::fields::NewField;
use super::model::{Document, Field, Recipient};
use super::recipients::NewRecipient;
use super::store::{self, Parent};
use super::{Status, parts};

/// What a recipient command is laid over: the recipient it changes (none for a new one), and
/// the address the draft gives a recipient sent without one (a template's placeholder; a
/// document has none).
#[derive(Debug, Clone)]
pub struct RecipientSlot {
    pub current: Option<NewRecipient>,
    pub placeholder: Option<String>,
}

/// A recipient to add, or a change to one, checked against its `RecipientSlot`.
pub type RecipientCommand = Against<RecipientSlot, NewRecipient>;

/// Where fields may go: a file of `pages` pages (none before an upload) and the draft's
/// recipients.
#[derive(Debug, Clone)]
pub struct Placement {
    pub pages: Option<i64>,
    pub recipients: Vec<RecipientId>,
}

/// Fields to add (one or a batch, all or nothing), checked against the draft's `Placement`.
pub type FieldsCommand = Against<Placement, Vec<NewField>>;

/// What a field change is laid over: the field as it is, and where it may go.
#[derive(Debug, Clone)]
pub struct FieldSlot {
    pub field: Field,
    pub placement: Placement,
}

/// A change to one field (members left out keep their values), checked against its
/// `FieldSlot`.
pub type FieldCommand = Against<FieldSlot, NewField>;

/// A document or a template as its editor sees it: what it holds, and the rules its kind adds.
/// The rules' defaults refuse nothing (a template's case).
pub trait Draft: Sized {
    type Id: Copy + Send + 'static;

    /// Draft `id` when `owner` reaches it: 404 for another user's or another team's.
    fn owned(tx: &Conn, owner: &Owner, id: Self::Id) -> Result<Self, AppError>;
    fn parent(id: Self::Id) -> Parent;
    fn recipients(&self) -> &[Recipient];
    fn fields(&self) -> &[Field];
    /// Page count of its file, once there is one.
    fn pages(&self) -> Option<i64>;

    /// The address recipient `r` (a new one: `None`) gets when it is sent without one.
    fn placeholder(&self, _r: Option<&Recipient>) -> Option<String> {
        None
    }

    /// Refuses `action` on its recipients when its state forbids it.
    fn may_edit_recipients(&self, _action: &str) -> Result<(), AppError> {
        Ok(())
    }

    /// Refuses `action` on fields of `recipients` when its state forbids it.
    fn may_edit_fields(&self, _action: &str, _recipients: &[RecipientId]) -> Result<(), AppError> {
        Ok(())
    }

    /// Refuses changing `field` into `after` (`None`: deleting it) when it must stay.
    fn may_change_field(&self, _field: &Field, _after: Option<&NewField>) -> Result<(), AppError> {
        Ok(())
    }

    /// Inside the transaction, once its fields changed: refuses what they became.
    fn fields_changed(&self, _tx: &Conn) -> Result<(), AppError> {
        Ok(())
    }

    /// Inside the transaction, once recipient `rid` changed address (`change`: old, new), by
    /// `user` from `origin`: what the kind tells of it.
    fn readdressed(
        &self,
        _tx: &Conn,
        _user: UserId,
        (_rid, _change): (RecipientId, (&str, &str)),
        _origin: &Origin,
        _app: &str,
    ) -> Result<(), AppError> {
        Ok(())
    }

    fn placement(&self) -> Placement {
        Placement {
            pages: self.pages(),
            recipients: self.recipients().iter().map(|r| r.id).collect(),
        }
    }

    fn recipient(&self, rid: RecipientId) -> Result<&Recipient, AppError> {
        self.recipients()
            .iter()
            .find(|r| r.id == rid)
            .ok_or_else(|| AppError::not_found("recipient"))
    }

    fn field(&self, fid: FieldId) -> Result<&Field, AppError> {
        self.fields()
            .iter()
            .find(|f| f.id == fid)
            .ok_or_else(|| AppError::not_found("field"))
    }
}

/// Adds a recipient to the user's draft `id`.
pub async fn add_recipient<D: Draft>(
    ctx: &Context,
    who: &Principal,
    id: D::Id,
    command: RecipientCommand,
) -> Result<Recipient, AppError> {
    let (user, caller) = (who.user_id, who.clone());
    ctx.db
        .write(move |tx| {
            let d = D::owned(tx, &access::owner(tx, &caller)?, id)?;
            let slot = RecipientSlot {
                current: None,
                placeholder: d.placeholder(None),
            };
            let r = command.check(&slot)?;
            parts::allowed(tx, user, &r)?;
            d.may_edit_recipients("add recipients")?;
            parts::add_recipient(tx, D::parent(id), &r, now())
        })
        .await
}

/// Changes recipient `rid` of the user's draft `id`. A new e-mail address is a new signing
/// link (see `store::recipients::update`), which the kind may tell (`Draft::readdressed`).
pub async fn patch_recipient<D: Draft>(
    ctx: &Context,
    who: &Principal,
    (id, rid): (D::Id, RecipientId),
    command: RecipientCommand,
    origin: Origin,
) -> Result<Recipient, AppError> {
    let (user, caller, app) = (who.user_id, who.clone(), ctx.app.clone());
    ctx.db
        .write(move |tx| {
            let d = D::owned(tx, &access::owner(tx, &caller)?, id)?;
            let current = d.recipient(rid)?;
            let slot = RecipientSlot {
                current: Some(current.as_new()),
                placeholder: d.placeholder(Some(current)),
            };
            let r = command.check(&slot)?;
            parts::allowed(tx, user, &r)?;
            d.may_edit_recipients("change recipients")?;
            let parent = D::parent(id);
            if let Some(old) = store::recipients::update(tx, parent, rid, &r)? {
                let change = (old.as_str(), r.email.as_str());
                d.readdressed(tx, user, (rid, change), &origin, &app)?;
            }
            parts::touch(tx, parent, now())?;
            store::recipients::one(tx, parent, rid)
        })
        .await
}

/// Removes recipient `rid` (and its fields) from the user's draft `id`; answers it as it was.
pub async fn delete_recipient<D: Draft>(
    ctx: &Context,
    who: &Principal,
    (id, rid): (D::Id, RecipientId),
) -> Result<Recipient, AppError> {
    let caller = who.clone();
    ctx.db
        .write(move |tx| {
            let d = D::owned(tx, &access::owner(tx, &caller)?, id)?;
            d.may_edit_recipients("remove recipients")?;
            let gone = d.recipient(rid)?.clone();
            store::recipients::delete(tx, D::parent(id), rid)?;
            parts::touch(tx, D::parent(id), now())?;
            Ok(gone)
        })
        .await
}

/// Adds one field or a batch to the user's draft `id`: all or nothing.
pub async fn add_fields<D: Draft>(
    ctx: &Context,
    who: &Principal,
    id: D::Id,
    command: FieldsCommand,
) -> Result<Vec<Field>, AppError> {
    let caller = who.clone();
    ctx.db
        .write(move |tx| {
            let d = D::owned(tx, &access::owner(tx, &caller)?, id)?;
            let batch = command.check(&d.placement());
            let targets: Vec<RecipientId> =
                batch.iter().flatten().map(|f| f.recipient_id).collect();
            d.may_edit_fields("add fields", &targets)?;
            let added = parts::add_fields(tx, D::parent(id), &batch?, now())?;
            d.fields_changed(tx)?;
            Ok(added)
        })
        .await
}

/// Changes field `fid` of the user's draft `id`.
pub async fn patch_field<D: Draft>(
    ctx: &Context,
    who: &Principal,
    (id, fid): (D::Id, FieldId),
    command: FieldCommand,
) -> Result<Field, AppError> {
    let caller = who.clone();
    ctx.db
        .write(move |tx| {
            let d = D::owned(tx, &access::owner(tx, &caller)?, id)?;
            let field = d.field(fid)?;
            d.may_edit_fields("change fields", &[field.recipient_id])?;
            let slot = FieldSlot {
                field: field.clone(),
                placement: d.placement(),
            };
            let f = command.check(&slot)?;
            d.may_edit_fields("change fields", &[f.recipient_id])?;
            d.may_change_field(field, Some(&f))?;
            let parent = D::parent(id);
            store::fields::update(tx, parent, fid, &f)?;
            d.fields_changed(tx)?;
            parts::touch(tx, parent, now())?;
            store::fields::one(tx, parent, fid)
        })
        .await
}

/// Removes field `fid` from the user's draft `id`; answers it as it was.
pub async fn delete_field<D: Draft>(
    ctx: &Context,
    who: &Principal,
    (id, fid): (D::Id, FieldId),
) -> Result<Field, AppError> {
    let caller = who.clone();
    ctx.db
        .write(move |tx| {
            let d = D::owned(tx, &access::owner(tx, &caller)?, id)?;
            let field = d.field(fid)?.clone();
            d.may_edit_fields("delete fields", &[field.recipient_id])?;
            d.may_change_field(&field, None)?;
            store::fields::delete(tx, D::parent(id), fid)?;
            parts::touch(tx, D::parent(id), now())?;
            Ok(field)
        })
        .await
}

/// A document may change while it is open (a draft, or PENDING for recipients who have not
/// finished), and tells a recipient's new address its signing link.
impl Draft for Document {
    type Id = DocumentId;

    fn owned(tx: &Conn, owner: &Owner, id: DocumentId) -> Result<Self, AppError> {
        store::owned(tx, owner, id)
    }
    fn parent(id: DocumentId) -> Parent {
        Parent::Document(id)
    }
    fn recipients(&self) -> &[Recipient] {
        &self.recipients
    }
    fn fields(&self) -> &[Field] {
        &self.fields
    }
    fn pages(&self) -> Option<i64> {
        Document::pages(self)
    }
    fn may_edit_recipients(&self, action: &str) -> Result<(), AppError> {
        self.require_open(action)
    }
    fn may_edit_fields(&self, action: &str, recipients: &[RecipientId]) -> Result<(), AppError> {
        self.require_fields_editable(action, recipients)
    }
    fn may_change_field(&self, field: &Field, after: Option<&NewField>) -> Result<(), AppError> {
        self.require_field_change_keeps_it_signable(field, after)
    }
    fn fields_changed(&self, tx: &Conn) -> Result<(), AppError> {
        if self.status == Status::Pending {
            store::load(tx, self.id)?.require_choices()?;
        }
        Ok(())
    }
    /// Audited; on a PENDING document whose recipient had been e-mailed, the new address is
    /// e-mailed its link.
    fn readdressed(
        &self,
        tx: &Conn,
        user: UserId,
        (rid, change): (RecipientId, (&str, &str)),
        origin: &Origin,
        app: &str,
    ) -> Result<(), AppError> {
        let owner = owner_email(tx, user)?;
        let actor = origin.actor(&owner, None);
        if super::notify::readdressed(tx, self.id, rid, change, &actor, now())? {
            super::notify::signing_requests(tx, self.id, &[rid], app, now())?;
        }
        Ok(())
    }
}
