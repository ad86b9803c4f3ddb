//! A visitor of a template's direct link starts a document (`templates::direct` has the
//! link itself): a copy of the template owned by its owner, with the visitor as the link's
//! recipient, sent at once by `flow::send` in the same transaction. The visitor then signs
//! first and alone (`current_turn`). Each client address may start `PER_ADDRESS` documents an
//! hour, and each template `PER_TEMPLATE`; at most `max_open` of a template's visitor
//! documents may wait unsigned at once (`--direct-link-max-open`), and those left unsigned
//! are removed after `--direct-link-expiry-days` (`direct_expiry`). The document shares the
//! template's stored PDF: a visit stores no file.

use super::flow;
use crate::core::blob::BlobId;
use crate::core::context::Context;
use crate::core::db::now;
use crate::core::error::AppError;
use crate::identity::users::Email;
use crate::outbox::webhooks::Event as Hook;
use crate::signing::documents::audit_data;
use crate::signing::documents::check::Check;
use crate::signing::documents::{DocumentView, audit::Origin, notify, store as documents};
use crate::signing::templates::direct::{field_error, open};
use crate::signing::templates::{GenerateDocument, generate, no_file};

/// Documents one client address may start through direct links in `WINDOW`.
pub const PER_ADDRESS: i64 = 10;
/// Documents one template's direct link may start in `WINDOW`, from all addresses together.
pub const PER_TEMPLATE: i64 = 100;
/// The window both are counted in, in seconds.
pub const WINDOW: i64 = 3600;
/// Visitor documents of one template that may wait unsigned at once, by default.
pub const MAX_OPEN: u32 = 100;
/// What a visitor past `max_open` is told to wait before trying again, in seconds.
pub const BUSY_RETRY_AFTER: u64 = 600;
/// The longest name a visitor may give.
const MAX_NAME: usize = 200;

/// A visitor of a direct link, as they gave themselves.
#[derive(Debug, Clone)]
pub struct Visitor {
    pub name: String,
    pub email: String,
}

impl Visitor {
    /// The name (trimmed, 1 to 200 characters) and the address, every problem at once.
    fn check(&self) -> Result<(String, Email), AppError> {
        let mut c = Check::new();
        let name = self.name.trim();
        if name.is_empty() || name.chars().count() > MAX_NAME {
            c.fail(
                "name",
                format!("enter your name (at most {MAX_NAME} characters)"),
            );
        }
        let email = match Email::check(&self.email) {
            Ok(e) => Some(e),
            Err(why) => {
                let why = format!("enter your e-mail address, such as name@example.com ({why})");
                c.fail("email", why);
                None
            }
        };
        let email = c
            .finish(email)?
            .ok_or_else(|| AppError::internal("an address both refused and accepted"))?;
        Ok((name.to_string(), email))
    }
}

/// Starts a document for `visitor` through direct link `token`: a copy of the template owned
/// by its owner (sharing its PDF), with the visitor as the link's recipient, sent (nobody is
/// e-mailed yet: the visitor signs first). Answers the visitor's signing token. 404 for a link
/// that does not work (its owner disabled too), 400 for the visitor's own mistakes, 409 when
/// the template is not ready, 429 past the hourly limits, 503 with `Retry-After` while
/// `max_open` of the template's visitor documents wait unsigned (nothing stored).
pub async fn start(
    ctx: &Context,
    token: String,
    visitor: Visitor,
    origin: Origin,
    max_open: u32,
) -> Result<String, AppError> {
    ctx.admit_new_work()?;
    let (name, email) = visitor.check()?;
    let (tok, address) = (token.clone(), email.as_str().to_string());
    let (template, source) = ctx
        .db
        .read(move |c| {
            let t = open(c, &tok)?;
            let taken = t
                .recipients
                .iter()
                .any(|r| Some(r.id) != t.direct_link_recipient && r.email == address);
            if taken {
                let why = "that address is already one of this document's other recipients; give your own";
                return Err(field_error("email", why));
            }
            let blob = t.blob_id.as_deref().and_then(BlobId::parse);
            Ok((t.id, blob.ok_or_else(no_file)?))
        })
        .await?;
    let client = crate::core::client_address::client_key(origin.ip.as_deref());
    ctx.db
        .write(move |tx| {
            let (by_client, by_template) = (
                format!("direct:ip:{client}"),
                format!("direct:template:{template}"),
            );
            let keys = [
                (by_client.as_str(), PER_ADDRESS),
                (by_template.as_str(), PER_TEMPLATE),
            ];
            match crate::identity::throttle::take(tx, &keys, WINDOW, now())? {
                Some(wait) => Err(AppError::TooManyRequests {
                    retry_after: wait as u64,
                    limit: 0,
                }),
                None => Ok(()),
            }
        })
        .await?;
    let app = ctx.app.clone();
    let data_id = crate::signing::documents::new_data_id();
    let signing_token = ctx
        .db
        .write(move |tx| {
            // Visitors of one template take turns here, so the count below stays exact.
            tx.serialize_on(&format!("direct-link:{template}"))?;
            let t = open(tx, &token)?;
            let me = t
                .direct_link_recipient
                .ok_or_else(|| AppError::not_found("link"))?;
            if documents::visitors::open_count(tx, t.id)? >= i64::from(max_open) {
                return Err(busy());
            }
            let body = GenerateDocument::Visitor {
                recipient: me,
                name: &name,
                email: email.as_str(),
            };
            let tier = crate::identity::users::store::tier(tx, t.user_id)?;
            let (source, at) = (source.as_str(), now());
            // The document is the template's owner's: its creator's, or its team's.
            let owner = crate::core::owner::Owner::of_row(t.user_id, t.team_id);
            let doc = generate(tx, &owner, t.id, body, tier, source, &data_id, at)?;
            let (rid, signing_token) = documents::recipients::mark_direct(tx, doc, email.as_str())?;
            let view = DocumentView::of(&documents::load(tx, doc)?, &app);
            let actor = origin.actor(email.as_str(), Some(rid));
            notify::created(tx, &view, &actor, at)?;
            let sent = audit_data::Sent {
                direct_link: Some(audit_data::DirectLink { template_id: t.id }),
                form_values: None,
            };
            flow::send(tx, doc, email.as_str(), &origin, sent, at).map_err(not_ready)?;
            notify::event(tx, doc, Hook::DocumentSent, &app, at)?;
            Ok(signing_token)
        })
        .await?;
    ctx.workers.notices();
    Ok(signing_token)
}

/// 503: the template's visitor documents waiting unsigned are at their bound. Not 429: it is
/// the link that is full, whoever asks, and it frees as visitors sign or their documents
/// expire.
fn busy() -> AppError {
    AppError::Overloaded {
        retry_after: BUSY_RETRY_AFTER,
        message: "this link is busy: too many documents started through it are waiting to be signed; please try again later".into(),
    }
}

/// A send refused for what the template lacks, as the visitor may read it: 409, since only the
/// template's owner can change it.
fn not_ready(e: AppError) -> AppError {
    match e {
        AppError::BadRequest { message, .. } => AppError::Conflict(format!(
            "this document cannot be started right now, because its template is not ready ({message}); please tell its sender"
        )),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_visitor_gives_a_name_and_an_address() {
        let v = |name: &str, email: &str| {
            Visitor {
                name: name.into(),
                email: email.into(),
            }
            .check()
        };
        let (name, email) = v("  Ann Visitor ", "Ann@Example.COM").unwrap();
        assert_eq!(
            (name.as_str(), email.as_str()),
            ("Ann Visitor", "ann@example.com")
        );
        let e = v(" ", "no-at-sign").unwrap_err();
        let paths: Vec<&str> = e.details().iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["name", "email"]);
        assert!(v(&"x".repeat(201), "a@example.com").is_err());
    }
}
