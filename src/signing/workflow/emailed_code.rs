//! A code by e-mail for a signing link (`POST /sign/<token>/email-code`): a recipient whose
//! document asks for TWO_FACTOR_AUTH, signed in to their account, asks for a six-digit code to
//! finish with instead of an authenticator app's (`identity::factors::mailed`). The code is
//! good for this recipient and account only, once, for ten minutes; a new request replaces it,
//! and requests are throttled (429 with the seconds to wait). Finishing takes it where a TOTP
//! code goes (`auth::prove`).

use super::auth;
use super::flow;
use super::link::{Visit, link};
use super::link_answers::CodeSent;
use crate::core::context::Context;
use crate::core::db::now;
use crate::core::error::AppError;
use crate::identity::factors::mailed;
use crate::outbox::mail::{Kind, NewMail, compose::EmailedCode};

/// Queues the code's mail to the recipient's address, in the document's language, through the
/// outbox (like a one-time link, its text leaves the database once it is sent), and wakes the
/// mail worker. Returns where it went.
pub async fn request(ctx: &Context, visit: Visit) -> Result<CodeSent, AppError> {
    let answer = ctx
        .db
        .write(move |tx| {
            let l = link(tx, &visit.token)?;
            flow::require_turn(&l, now())?;
            let req = l.requirement()?;
            if !req.actions.contains(auth::ActionAuth::TwoFactor) {
                return Err(AppError::Conflict(
                    "this document does not ask you for a code".into(),
                ));
            }
            let signer = auth::signer(tx, visit.session.as_deref(), now())?;
            let user = auth::require_account(req, &l, signer.as_ref(), false)?
                .ok_or_else(|| AppError::internal("a code requirement without an account"))?;
            let code = mailed::issue(tx, l.me.id, user, now())?;
            let content = EmailedCode {
                title: &l.document.title,
                code: code.expose(),
                minutes: mailed::TTL / 60,
                lang: l.document.meta.language,
            }
            .compose();
            let mut mail = NewMail::new(Kind::EmailedCode, &l.me.email, content)
                .with_one_time_link(now() + mailed::TTL);
            mail.document_id = Some(l.document.id);
            crate::outbox::mail::store::enqueue(tx, &mail, now())?;
            Ok(CodeSent {
                expires_in_seconds: mailed::TTL,
                sent_to: l.me.email,
            })
        })
        .await?;
    ctx.workers.mail.wake();
    Ok(answer)
}
