//! "Forgot password?": a one-time link, valid for an hour, mailed to an account's address; the
//! link's page sets a new password. Asking is throttled per address and per client address in
//! the login throttle's table, and answers the same whether or not the address has an account:
//! one write transaction either way, the mail only queued (the SMTP server is never waited
//! for), so neither the answer nor its time tells. Setting the password ends every session
//! of the account and the logins waiting for a second factor; the person then signs in with
//! the new password (and their second factor, which a mailed link must not bypass).

use std::net::IpAddr;

use super::access::{RevokeAll, Revoked};
use super::links::{self, Purpose};
use super::profile::{notify, replace_password};
use crate::core::context::Context;
use crate::core::db::now;
use crate::core::error::AppError;
use crate::identity::throttle;
use crate::identity::users::checks::PasswordChecks;
use crate::identity::users::{Email, store};
use crate::outbox::mail::{Kind, NewMail, compose_account};

/// Links one address may be sent in an hour (asked for, whether or not it has an account).
pub const PER_ADDRESS: i64 = 3;
/// Requests one client address may make in an hour (offices share one: more than one person's).
pub const PER_CLIENT: i64 = 12;
/// The window both are counted in.
pub const WINDOW: i64 = 3600;

/// Mails a reset link to the account with `email`, if there is an enabled one. The same `Ok`
/// either way; 429 when the address or the client asked too often (whether or not the address
/// has an account). `back` is a path of this site (checked by the caller) the person was on
/// their way to, such as a signing page: the link carries it as its `next` query, outside the
/// token, for the link's page to check again and send them on after the new password.
pub async fn request(
    ctx: &Context,
    email: &Email,
    client: Option<IpAddr>,
    back: Option<&str>,
) -> Result<(), AppError> {
    let email = email.as_str().to_string();
    let query = back
        .map(|b| {
            let next: String = url::form_urlencoded::byte_serialize(b.as_bytes()).collect();
            format!("?next={next}")
        })
        .unwrap_or_default();
    let client = crate::core::client_address::client_key_of(client);
    let app = ctx.app.clone();
    ctx.db
        .write(move |tx| {
            let (by_address, by_client) =
                (format!("reset:email:{email}"), format!("reset:ip:{client}"));
            let keys = [
                (by_address.as_str(), PER_ADDRESS),
                (by_client.as_str(), PER_CLIENT),
            ];
            if let Some(wait) = throttle::take(tx, &keys, WINDOW, now())? {
                return Err(AppError::TooManyRequests {
                    retry_after: wait as u64,
                    limit: 0,
                });
            }
            let user = store::find_by_email(tx, &email)?.filter(|u| !u.disabled);
            let Some(user) = user else {
                return Ok(());
            };
            let token = links::create(tx, user.id, Purpose::PasswordReset, &user.email, now())?;
            let link = format!("{app}/auth/reset/{}{query}", token.expose());
            let content = compose_account::PasswordReset {
                name: &user.name,
                email: &user.email,
                link: &link,
                minutes: links::TTL / 60,
            }
            .compose();
            let mail = NewMail::new(Kind::PasswordReset, &user.email, content)
                .with_one_time_link(now() + links::TTL);
            crate::outbox::mail::store::enqueue(tx, &mail, now()).map(drop)
        })
        .await?;
    ctx.workers.mail.wake();
    Ok(())
}

/// The address whose password the link `token` resets, while it works.
pub async fn target(ctx: &Context, token: String) -> Result<Option<String>, AppError> {
    ctx.db
        .read(move |c| {
            let Some(l) = links::find(c, Purpose::PasswordReset, &token, now())? else {
                return Ok(None);
            };
            // A link mailed to an address the account no longer has is of no use.
            Ok(store::get(c, l.user)?
                .filter(|u| u.email == l.email)
                .map(|u| u.email))
        })
        .await
}

/// Uses the link `token` up to give its account the password `new` (already checked, see
/// `profile::check_new_password`): every session ends, the account is told. With `revoke`
/// (the person left "revoke every API token, webhook and connected app" ticked), everything
/// else that acts for the account ends in the same transaction. The account's address and
/// what was revoked; `None` when the link was used, expired or unknown.
pub async fn reset(
    ctx: &Context,
    passwords: &PasswordChecks,
    token: String,
    new: String,
    revoke: Option<RevokeAll>,
) -> Result<Option<(String, Option<Revoked>)>, AppError> {
    let phc = passwords.hash(new).await?;
    let done = ctx
        .db
        .write(move |tx| {
            let Some(l) = links::use_up(tx, Purpose::PasswordReset, &token, now())? else {
                return Ok(None);
            };
            // A link mailed to an address the account no longer has is of no use.
            let Some(user) = store::get(tx, l.user)?.filter(|u| u.email == l.email) else {
                return Ok(None);
            };
            replace_password(tx, l.user, &phc, None, now())?;
            let revoked = revoke.map(|r| r(tx, l.user, now())).transpose()?;
            let what = "The password was reset with a link mailed to this address";
            let what = revoked.map_or_else(|| what.to_string(), |r| r.added_to(what));
            notify(tx, &user, &what, now())?;
            Ok(Some((user.email, revoked)))
        })
        .await?;
    ctx.workers.mail.wake();
    Ok(done)
}
