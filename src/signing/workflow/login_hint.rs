//! What the login page says when a signing link sent the visitor there (`next=/sign/<token>`):
//! which document, from whom, and what its recipient is asked to do, and whether the recipient
//! could create an account from it. Only what the holder of the link sees on the signing page
//! anyway (the title and the sender's name); read-only, so looking counts no visit.

use crate::core::context::Context;
use crate::core::error::AppError;
use crate::signing::documents::Status;
use crate::signing::documents::recipients::Role;

/// The document behind a signing link, as the login page names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginHint {
    pub title: String,
    pub sender: String,
    /// What the recipient is asked to do: "sign", "approve", "view", "fill in", "see".
    pub verb: &'static str,
    /// The recipient's address, the account to sign in to.
    pub email: String,
    /// The document asks for an account and the recipient has none: the signing page's "Create
    /// an account" applies.
    pub can_sign_up: bool,
}

/// The hint for the signing link `token`; `None` when it is unknown or its document a draft.
pub async fn for_link(ctx: &Context, token: String) -> Result<Option<LoginHint>, AppError> {
    ctx.db
        .read(move |c| {
            let l = match super::link::link(c, &token) {
                Ok(l) if l.document.status != Status::Draft => l,
                Ok(_) | Err(AppError::NotFound(_)) => return Ok(None),
                Err(e) => return Err(e),
            };
            let asks = !l.requirement()?.is_none();
            let has_account =
                crate::identity::users::store::find_by_email(c, &l.me.email)?.is_some();
            Ok(Some(LoginHint {
                verb: match l.me.role {
                    Role::Signer => "sign",
                    Role::Approver => "approve",
                    Role::Viewer => "view",
                    Role::Assistant => "fill in",
                    Role::Cc => "see",
                },
                can_sign_up: asks && !has_account && l.document.status == Status::Pending,
                title: l.document.title,
                sender: l.sender.name,
                email: l.me.email,
            }))
        })
        .await
}
