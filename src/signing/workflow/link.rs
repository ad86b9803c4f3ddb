//! The use cases of a signing link, each owning its transaction and the
//! notices it queues: opening the page, reading its state, a page image's source, a drawn
//! signature, filling a field, finishing, rejecting, and a passkey challenge. The token in the
//! path is the credential; the browser's session (`Visit::session`) names the signer's account
//! for recipient authentication (`auth`), checked inside each transaction.
//!
//! Each takes the use-case `Context` and, after its commit, wakes the workers for what it
//! queued (mail and webhooks; the sealer when the last recipient finished). The HTTP layer
//! (`http::api::signing`, `http::pages::signing_page`) parses, calls one of these, and replies.

use super::auth::{self, Acting, Proof, Signer};
use super::flow::{self, Origin};
use super::link_answers::{AuthState, Completion, DocumentShown, FieldSaved, FieldShown};
use super::link_answers::{LinkState, PasskeyChallenge, RecipientShown, Rejection};
use crate::core::context::Context;
use crate::core::db::Conn;
use crate::core::error::AppError;
use crate::core::ids::FieldId;
use crate::identity::users::checks::PasswordChecks;
use crate::outbox::webhooks::Event;
use crate::signing::documents::Status;
use crate::signing::documents::dates::format_date_in;
use crate::signing::documents::notify;
use crate::signing::documents::store as documents;
use crate::signing::documents::values::Filled;
use crate::{core::db::Db, core::db::now};
use crate::{identity::factors::Purpose, identity::factors::Verifier};
use crate::{signing::documents::model::Document, signing::documents::model::Recipient};
use crate::{signing::documents::recipients::Role, signing::documents::recipients::SigningStatus};

/// Someone at a link: its token and the browser's session cookie, if any.
#[derive(Debug, Clone)]
pub struct Visit {
    pub token: String,
    pub session: Option<String>,
}

/// An action on a link: the visit, where it came from, and the proof it carries.
#[derive(Debug, Clone)]
pub struct Call {
    pub visit: Visit,
    pub origin: Origin,
    pub proof: Option<Proof>,
}

/// A recipient's signing link: the document it opens, the recipient (`me`), and the sender.
#[derive(Debug, Clone)]
pub struct Link {
    pub document: Document,
    pub me: Recipient,
    pub sender: Sender,
}

/// Who sent a document: its owner's name (for a team's, its creator's on behalf of the team:
/// `team_settings::sender_shown`) and e-mail.
#[derive(Debug, Clone)]
pub struct Sender {
    pub name: String,
    pub email: String,
}

impl Link {
    /// What this recipient must prove besides holding the link (`signing::auth`): their own
    /// options win over the document's.
    pub fn requirement(&self) -> Result<auth::Requirement, AppError> {
        let doc = &self.document.auth_options;
        let mine = &self.me.auth;
        auth::Requirement::of(
            &doc.global_access_auth,
            &doc.global_action_auth,
            &mine.access_auth,
            &mine.action_auth,
        )
    }
}

/// The link for `token` (404 when unknown, also for a template's recipient).
pub fn link(conn: &Conn, token: &str) -> Result<Link, AppError> {
    let (doc, me) = documents::recipients::by_token(conn, token)?
        .ok_or_else(|| AppError::not_found("signing link"))?;
    let document = documents::load(conn, doc)?;
    let me = document
        .recipient(me)
        .cloned()
        .ok_or_else(|| AppError::not_found("signing link"))?;
    let owner = crate::identity::users::store::get(conn, document.user_id)?
        .ok_or_else(|| AppError::internal("a document without its owner"))?;
    let name = crate::signing::documents::team_settings::sender_shown(
        conn,
        &owner.name,
        document.team_id,
        document.meta.language,
    )?;
    Ok(Link {
        document,
        me,
        sender: Sender {
            name,
            email: owner.email,
        },
    })
}

/// The link, 404 while its document is a draft.
pub(super) fn shown_link(conn: &Conn, visit: &Visit) -> Result<Link, AppError> {
    let l = link(conn, &visit.token)?;
    if l.document.status == Status::Draft {
        return Err(AppError::not_found("signing link"));
    }
    Ok(l)
}

/// The signer, for reading `l`: 401 when the document asks for the recipient's account before
/// anything is shown.
pub(super) fn reader(conn: &Conn, l: &Link, visit: &Visit) -> Result<Option<Signer>, AppError> {
    let signer = auth::signer(conn, visit.session.as_deref(), now())?;
    auth::require_account(l.requirement()?, l, signer.as_ref(), true)?;
    Ok(signer)
}

/// Why the page shows only the title: the document asks for the recipient's account first.
#[derive(Debug, Clone)]
pub struct Gate {
    /// `account_required` or `wrong_account`.
    pub code: &'static str,
    pub email: String,
    pub signer: Option<Signer>,
    pub account_exists: bool,
    /// The sender's name and e-mail.
    pub sender: (String, String),
    /// The proof finishing will ask for besides the sign-in, if any.
    pub then: Option<auth::ActionAuth>,
}

/// What opening the page found.
#[derive(Debug, Clone)]
pub struct Opened {
    pub title: String,
    pub status: Status,
    pub role: Role,
    pub gate: Option<Gate>,
    /// The sender's link attachments (none while the gate is up).
    pub attachments: Vec<crate::signing::documents::meta::Attachment>,
    /// The language the recipient reads the document's pages in.
    pub language: crate::core::i18n::Lang,
    /// When the recipient's time to act ended, in the document's zone, date format and
    /// language, once it has: the page says so instead of showing the fields.
    pub expired: Option<String>,
}

/// The link attachments of the document of link `token`, for its recipient (the signing
/// service's `GET /envelope/attachment?token=`): 404 for an unknown link or a draft's, as the
/// page; 401 `account_required` when the document asks for the recipient's account before
/// anything is shown (the page shows its links only after the sign-in).
pub async fn list_attachments(
    ctx: &Context,
    token: String,
) -> Result<Vec<crate::signing::attachments::Attachment>, AppError> {
    use crate::signing::attachments::{Parent, manage, store};
    let of_link = |c: &Conn, token: &str| -> Result<(Parent, store::Reached), AppError> {
        let l = link(c, token)?;
        if l.document.status == Status::Draft {
            return Err(AppError::not_found("signing link"));
        }
        if l.requirement()?.access_account {
            return Err(AppError::AuthRequired {
                code: "account_required",
                message: "this document asks its recipients to sign in to their account first"
                    .into(),
            });
        }
        let reached = store::Reached::Document {
            status: l.document.status,
            listed: l.document.meta.attachments.clone(),
        };
        Ok((Parent::Document(l.document.id), reached))
    };
    let t = token.clone();
    let (parent, rows, to_adopt) = ctx
        .db
        .read(move |c| {
            let (parent, reached) = of_link(c, &t)?;
            let rows = store::of(c, parent)?;
            let to_adopt = rows.is_empty() && manage::lists_links(&reached);
            Ok((parent, rows, to_adopt))
        })
        .await?;
    if !to_adopt {
        return Ok(rows);
    }
    ctx.db
        .write(move |tx| {
            let (_, reached) = of_link(tx, &token)?;
            manage::adopt(tx, parent, &reached)?;
            store::of(tx, parent)
        })
        .await
}

/// Opens the page: the first visit a recipient may see the document counts as OPENED (audit
/// and DOCUMENT_OPENED webhook, queued with it).
pub async fn open(ctx: &Context, visit: Visit, origin: Origin) -> Result<Opened, AppError> {
    let app = ctx.app.clone();
    let (opened, first) = ctx
        .db
        .write(move |tx| {
            let l = shown_link(tx, &visit)?;
            let signer = auth::signer(tx, visit.session.as_deref(), now())?;
            let req = l.requirement()?;
            let gate = match auth::require_account(req, &l, signer.as_ref(), true) {
                Ok(_) => None,
                Err(AppError::AuthRequired { code, .. }) => Some(Gate {
                    then: req.proof_for(auth::Finishing::Agree).preferred(None),
                    code,
                    account_exists: crate::identity::users::store::find_by_email(tx, &l.me.email)?
                        .is_some(),
                    email: l.me.email.clone(),
                    signer,
                    sender: (l.sender.name.clone(), l.sender.email.clone()),
                }),
                Err(e) => return Err(e),
            };
            // A finished recipient may come back to see what they did; the page says so.
            let pending = l.document.status == Status::Pending;
            // A link whose time ran out shows only that: nothing was opened.
            let first = gate.is_none()
                && pending
                && !l.me.expired(now())
                && flow::open(tx, &l, &origin, now())?;
            if first {
                notify::event(tx, l.document.id, Event::DocumentOpened, &app, now())?;
            }
            let language = l.document.meta.language;
            let meta = &l.document.meta;
            let expired = (pending && l.me.expired(now())).then(|| {
                let at = l.me.expires_at.unwrap_or_default();
                let date = format_date_in(at, &meta.timezone, &meta.date_format, language);
                format!("{date} ({})", meta.timezone)
            });
            let attachments = match gate {
                None => l.document.meta.attachments,
                Some(_) => Vec::new(),
            };
            let opened = Opened {
                language,
                title: l.document.title,
                status: l.document.status,
                role: l.me.role,
                gate,
                attachments,
                expired,
            };
            Ok((opened, first))
        })
        .await?;
    if first {
        ctx.workers.notices();
    }
    Ok(opened)
}

/// What the recipient must prove and how far they are: `auth` in the state.
fn auth_state(
    conn: &Conn,
    link: &Link,
    signer: Option<&Signer>,
    invite_csrf: &str,
) -> Result<AuthState, AppError> {
    let req = link.requirement()?;
    let mine = signer.filter(|s| s.email.eq_ignore_ascii_case(&link.me.email));
    let enrolled = match mine {
        Some(s) => Some(crate::identity::factors::store::enrolled(conn, s.user_id)?),
        None => None,
    };
    let mut out = AuthState::of(req.describe(enrolled), signer.map(|s| s.email.clone()));
    out.account_ready = req.is_none() || mine.is_some();
    if !req.is_none() && mine.is_none() {
        let exists = crate::identity::users::store::find_by_email(conn, &link.me.email)?.is_some();
        out.account_exists = Some(exists);
        if !exists {
            out.invite_csrf = Some(invite_csrf.to_string());
        }
    }
    out.enrolled = enrolled.map(Into::into);
    Ok(out)
}

/// What the page shows: the document, this recipient, whether it is their turn, their fields,
/// and what they must prove (`auth`).
fn describe(
    conn: &Conn,
    link: &Link,
    signer: Option<&Signer>,
    invite_csrf: &str,
) -> Result<LinkState, AppError> {
    let parties = super::parties(&link.document.recipients);
    let your_turn = link.document.status == Status::Pending
        && super::current_turn(link.document.meta.signing_order, &parties).contains(&link.me.id);
    let mut fields: Vec<FieldShown> = link
        .document
        .fields_of(link.me.id)
        .into_iter()
        .map(|f| FieldShown::of(f, None))
        .collect();
    // An assistant's: what they may fill in for those after them, and for whom.
    for f in super::assistable(&link.document, &link.me) {
        fields.push(FieldShown::of(f, link.document.recipient(f.recipient_id)));
    }
    let d = &link.document;
    Ok(LinkState {
        auth: auth_state(conn, link, signer, invite_csrf)?,
        document: DocumentShown {
            id: d.id,
            pages: d.page_sizes.clone().unwrap_or_default(),
            redirect_url: d.meta.redirect_url.clone(),
            sender_email: link.sender.email.clone(),
            sender_name: link.sender.name.clone(),
            signing_order: d.meta.signing_order,
            status: d.status,
            title: d.title.clone(),
        },
        fields,
        recipient: RecipientShown::of(&link.me),
        your_turn,
    })
}

/// `GET /sign/<token>/state`. `invite_csrf` is the token of the "create an account" form.
pub async fn state(
    ctx: &Context,
    visit: Visit,
    invite_csrf: String,
) -> Result<LinkState, AppError> {
    ctx.db
        .read(move |c| {
            let l = shown_link(c, &visit)?;
            let signer = reader(c, &l, &visit)?;
            describe(c, &l, signer.as_ref(), &invite_csrf)
        })
        .await
}

/// The stored PDF behind page `n` (1-based) of the link's document and that page's size in
/// points; 410 once the document was cancelled.
pub async fn page_source(
    ctx: &Context,
    visit: Visit,
    n: usize,
) -> Result<crate::signing::documents::preview::PageSource, AppError> {
    ctx.db
        .read(move |c| {
            let l = shown_link(c, &visit)?;
            if l.document.status == Status::Cancelled {
                return Err(AppError::Gone("this document was cancelled".into()));
            }
            reader(c, &l, &visit)?;
            let (sizes, blob) = (&l.document.page_sizes, &l.document.blob_id);
            crate::signing::documents::preview::page_in(sizes.as_deref(), blob.as_deref(), n)
        })
        .await
}

/// The PNG the recipient drew into one of their fields.
pub async fn signature(ctx: &Context, visit: Visit, field: FieldId) -> Result<Vec<u8>, AppError> {
    ctx.db
        .read(move |c| {
            let l = shown_link(c, &visit)?;
            reader(c, &l, &visit)?;
            if !l.document.fields_of(l.me.id).iter().any(|f| f.id == field) {
                return Err(AppError::not_found("signature"));
            }
            documents::fields::signature_png(c, l.document.id, field)?
                .ok_or_else(|| AppError::not_found("signature"))
        })
        .await
}

/// Runs `action` in one write transaction with the link, the signer and their proof. A second
/// factor in the proof is counted against the signer's account before that transaction
/// (`factors::counted`): a wrong code or a refused passkey stands as a failure, and concurrent
/// answers get at most the account's limit of checks.
async fn acting<T: Send + 'static>(
    db: &Db,
    verifier: &Verifier,
    call: Call,
    action: impl FnOnce(&Conn, &Link, &Acting<'_>) -> Result<T, AppError> + Send + 'static,
) -> Result<T, AppError> {
    let verifier = verifier.clone();
    let session = call.visit.session.clone();
    let second_factor = matches!(call.proof, Some(Proof::Code(_) | Proof::Passkey(_)));
    crate::identity::factors::counted(
        db,
        move |tx| match auth::signer(tx, session.as_deref(), now())? {
            Some(s) if second_factor => Verifier::reserve(tx, s.user_id, now()).map(Some),
            _ => Ok(None),
        },
        move |tx, attempt| {
            let l = link(tx, &call.visit.token)?;
            let acting = Acting {
                origin: &call.origin,
                verifier: &verifier,
                signer: auth::signer(tx, call.visit.session.as_deref(), now())?,
                proof: call.proof,
                attempt: *attempt,
            };
            action(tx, &l, &acting)
        },
        |tx, attempt| attempt.map_or(Ok(()), |a| Verifier::release(tx, a)),
    )
    .await
}

/// Stores a value for one of the recipient's fields.
pub async fn fill(
    ctx: &Context,
    verifier: &Verifier,
    call: Call,
    field: FieldId,
    value: Filled,
) -> Result<FieldSaved, AppError> {
    acting(&ctx.db, verifier, call, move |tx, l, a| {
        flow::fill(tx, l, field, &value, a, now())?;
        Ok(FieldSaved {
            field_id: field,
            inserted: true,
        })
    })
    .await
}

/// Empties one of the recipient's fields (`flow::clear`).
pub async fn clear(
    ctx: &Context,
    verifier: &Verifier,
    call: Call,
    field: FieldId,
) -> Result<FieldSaved, AppError> {
    acting(&ctx.db, verifier, call, move |tx, l, a| {
        flow::clear(tx, l, field, a, now())?;
        Ok(FieldSaved {
            field_id: field,
            inserted: false,
        })
    })
    .await
}

/// A PASSWORD proof, checked before the action's transaction (a password check is slow work
/// that must not hold the writer) and under the login throttle of the recipient's account
/// (`sessions::login::recheck`): only someone signed in to that account may try, and a right
/// password becomes `Proof::PasswordChecked`, which `auth::prove` accepts for that account in
/// the action's own transaction. A wrong one is 401 `wrong_password`, and counts as a failed
/// login.
async fn check_password(
    db: &Db,
    passwords: &PasswordChecks,
    call: &mut Call,
) -> Result<(), AppError> {
    let Some(Proof::Password(typed)) = &call.proof else {
        return Ok(());
    };
    let visit = call.visit.clone();
    let email = db
        .read(move |c| {
            let l = link(c, &visit.token)?;
            flow::require_usable(&l, now())?;
            let req = l.requirement()?;
            if !req.actions.contains(auth::ActionAuth::Password) {
                return Err(AppError::bad_request(
                    "this document does not ask you for your password",
                ));
            }
            let signer = auth::signer(c, visit.session.as_deref(), now())?;
            auth::require_account(req, &l, signer.as_ref(), false)?;
            Ok(l.me.email)
        })
        .await?;
    let address = call.origin.ip.as_deref().and_then(|ip| ip.parse().ok());
    match crate::identity::sessions::login::recheck(db, passwords, &email, typed, address).await? {
        Some(user) => {
            call.proof = Some(Proof::PasswordChecked(user));
            Ok(())
        }
        None => Err(AppError::AuthRequired {
            code: "wrong_password",
            message: "that is not the password of your Docket account".into(),
        }),
    }
}

/// Signs, approves or marks viewed; the next recipients' requests and the webhook events are
/// queued with it, and the sealer is woken when this was the last recipient.
pub async fn complete(
    ctx: &Context,
    (verifier, passwords): (&Verifier, &PasswordChecks),
    mut call: Call,
) -> Result<Completion, AppError> {
    check_password(&ctx.db, passwords, &mut call).await?;
    let app = ctx.app.clone();
    let (doc, done) = acting(&ctx.db, verifier, call, move |tx, l, a| {
        let doc = l.document.id;
        let done = flow::complete(tx, l, a, now())?;
        notify::signing_requests(tx, doc, &done.newly_current, &app, now())?;
        if l.me.direct_link {
            notify::direct_link_signed(tx, doc, l.me.id, &done.newly_current, &app, now())?;
        }
        notify::event(tx, doc, Event::DocumentRecipientCompleted, &app, now())?;
        if l.me.role == Role::Signer {
            notify::event(tx, doc, Event::DocumentSigned, &app, now())?;
        }
        Ok((doc, done))
    })
    .await?;
    ctx.workers.notices();
    if done.all_done {
        ctx.workers.seal();
    }
    Ok(Completion {
        document_completing: done.all_done,
        document_id: doc,
        signing_status: SigningStatus::Signed,
    })
}

/// Rejects with `reason`; everyone concerned is told (mail and webhook, queued with it).
pub async fn reject(
    ctx: &Context,
    (verifier, passwords): (&Verifier, &PasswordChecks),
    mut call: Call,
    reason: String,
) -> Result<Rejection, AppError> {
    check_password(&ctx.db, passwords, &mut call).await?;
    let app = ctx.app.clone();
    let answer = acting(&ctx.db, verifier, call, move |tx, l, a| {
        flow::reject(tx, l, &reason, a, now())?;
        notify::rejected(tx, l.document.id, l.me.id, reason.trim(), &app, now())?;
        Ok(Rejection {
            document_id: l.document.id,
            signing_status: SigningStatus::Rejected,
        })
    })
    .await?;
    ctx.workers.notices();
    Ok(answer)
}

/// The WebAuthn request options for a recipient whose document asks for a PASSKEY, signed in
/// to their account (`{"publicKey": options}`). The challenge is good for this recipient only,
/// once, for five minutes.
pub async fn passkey_challenge(
    ctx: &Context,
    verifier: &Verifier,
    visit: Visit,
) -> Result<PasskeyChallenge, AppError> {
    let verifier = verifier.clone();
    ctx.db
        .write(move |tx| {
            let l = link(tx, &visit.token)?;
            flow::require_usable(&l, now())?;
            let req = l.requirement()?;
            if !req.actions.contains(auth::ActionAuth::Passkey) {
                return Err(AppError::Conflict(
                    "this document does not ask you for a passkey".into(),
                ));
            }
            let signer = auth::signer(tx, visit.session.as_deref(), now())?;
            let user = auth::require_account(req, &l, signer.as_ref(), false)?
                .ok_or_else(|| AppError::internal("a passkey requirement without an account"))?;
            let options = verifier.assertion_begin(tx, user, Purpose::Sign(l.me.id), now())?;
            Ok(PasskeyChallenge {
                public_key: options,
            })
        })
        .await
}

/// Mails the recipient of a link whose document asks for an account a one-time link to create
/// one (`users::invites`), and wakes the mail worker. Returns the address it went to.
pub async fn request_account(ctx: &Context, token: String) -> Result<String, AppError> {
    let app = ctx.app.clone();
    let email = ctx
        .db
        .write(move |tx| {
            let l = link(tx, &token)?;
            flow::require_usable(&l, now())?;
            if l.requirement()?.is_none() {
                return Err(AppError::Conflict(
                    "this document does not ask for an account".into(),
                ));
            }
            let code = crate::signing::workflow::invites::create(tx, &l.me.email, l.me.id, now())?;
            let url = format!("{app}/auth/signup/{}", code.expose());
            let content = crate::outbox::mail::compose::AccountInvite {
                title: &l.document.title,
                sender_name: &l.sender.name,
                to: &l.me.email,
                link: &url,
                minutes: crate::signing::workflow::invites::TTL / 60,
                lang: l.document.meta.language,
            }
            .compose();
            let mut mail = crate::outbox::mail::NewMail::new(
                crate::outbox::mail::Kind::AccountInvite,
                &l.me.email,
                content,
            )
            .with_one_time_link(now() + crate::signing::workflow::invites::TTL);
            mail.document_id = Some(l.document.id);
            crate::outbox::mail::store::enqueue(tx, &mail, now())?;
            Ok(l.me.email)
        })
        .await?;
    ctx.workers.mail.wake();
    Ok(email)
}
