//! What a person changes on their own account page, and an admin from the CLI: the name, the
//! password, the e-mail, and the language of the recipients of their new documents. The steps inside a transaction (`rename`, `replace_password`,
//! `set_email`) are shared by both; the signed-in person's use cases add what proves it is
//! them: the current password for a new password, a confirmed session and a link mailed to the
//! new address for a new e-mail. Every change to how the account signs in mails it a notice.

use std::net::IpAddr;

use super::access::{RevokeAll, Revoked};
use super::links::{self, Purpose};
use crate::core::context::Context;
use crate::core::error::{AppError, FieldError};
use crate::core::i18n::Lang;
use crate::core::ids::UserId;
use crate::identity::users::checks::PasswordChecks;
use crate::identity::users::{Email, User, parse_name, password, store};
use crate::identity::{sessions, throttle};
use crate::outbox::mail::{Kind, NewMail, compose, compose_account};
use crate::{core::db::Conn, core::db::now};

/// E-mail changes one account may ask for in an hour.
pub const EMAIL_CHANGES_PER_HOUR: i64 = 3;

/// Queues the mail that tells the account `user` what changed (`what`).
pub fn notify(tx: &Conn, user: &User, what: &str, now: i64) -> Result<(), AppError> {
    let content = compose::SecurityNotice {
        name: &user.name,
        email: &user.email,
        what,
    }
    .compose();
    let mail = NewMail::new(Kind::SecurityNotice, &user.email, content);
    crate::outbox::mail::store::enqueue(tx, &mail, now).map(drop)
}

/// The account `id`, or 401 when it is gone.
fn account(tx: &Conn, id: UserId) -> Result<User, AppError> {
    store::get(tx, id)?.ok_or_else(|| AppError::Unauthorized("the account no longer exists".into()))
}

/// Names the account `id` `name` (already checked); returns it as it is now.
pub fn rename(tx: &Conn, id: UserId, name: &str, now: i64) -> Result<User, AppError> {
    store::set_name(tx, id, name, now)?;
    account(tx, id)
}

/// Gives the account `id` the password hash `phc` and ends its sessions and the logins waiting
/// for a second factor, all but the session behind `keep` (the browser that changed it). Its
/// failed logins are forgotten: whoever set the password knows it. Returns how many sessions
/// ended.
pub fn replace_password(
    tx: &Conn,
    id: UserId,
    phc: &str,
    keep: Option<&str>,
    now: i64,
) -> Result<usize, AppError> {
    let user = account(tx, id)?;
    store::set_password(tx, id, phc, now)?;
    sessions::pending::delete_for_user(tx, id)?;
    throttle::clear(tx, &throttle::account_key(&user.email))?;
    match keep {
        Some(token) => sessions::store::delete_others(tx, id, token),
        None => sessions::store::delete_for_user(tx, id),
    }
}

/// Makes `email` the address of the account `id` (409 when another account has it) and tells
/// the old address; returns the account as it is now.
pub fn set_email(tx: &Conn, id: UserId, email: &Email, now: i64) -> Result<User, AppError> {
    let before = account(tx, id)?;
    if before.email == email.as_str() {
        return Ok(before);
    }
    store::set_email(tx, id, email, now)?;
    let what = format!("The e-mail address was changed to {email}");
    notify(tx, &before, &what, now)?;
    account(tx, id)
}

/// The account's new name, from the account page: 422 naming the field when it is not one.
pub async fn change_name(ctx: &Context, user: &User, raw: &str) -> Result<User, AppError> {
    let (id, name) = (user.id, parse_name(raw)?);
    ctx.db.write(move |tx| rename(tx, id, &name, now())).await
}

/// The language the account's new documents address their recipients in, from the account
/// page: 422 when it is not one Docket speaks.
pub async fn change_language(ctx: &Context, user: &User, raw: &str) -> Result<Lang, AppError> {
    let lang = Lang::parse(raw.trim())
        .ok_or_else(|| AppError::validation(vec![FieldError::new("language", Lang::expected())]))?;
    let id = user.id;
    ctx.db
        .write(move |tx| store::set_language(tx, id, lang, now()))
        .await?;
    Ok(lang)
}

/// The language the account's new documents address their recipients in.
pub async fn language(ctx: &Context, user: UserId) -> Result<Lang, AppError> {
    let found = ctx.db.read(move |c| store::language(c, user)).await?;
    Ok(found.unwrap_or_default())
}

/// A new password as typed twice on a form: 422 naming the field that must change.
pub fn check_new_password(new: &str, again: &str) -> Result<(), AppError> {
    password::check_policy(new)?;
    if new != again {
        return Err(AppError::validation(vec![FieldError::new(
            "password2",
            "the two passwords differ",
        )]));
    }
    Ok(())
}

/// Changes the password of `user`, signed in with `session`, from `current` (checked under the
/// login throttle, from `address`) to `new` (typed twice). Every other session of the account
/// ends; this one stays. With `revoke` (the person ticked "also revoke every API token,
/// webhook and connected app"), those end too, in the same transaction. Returns how many
/// sessions ended and what was revoked.
pub async fn change_password(
    ctx: &Context,
    passwords: &PasswordChecks,
    (session, user): (String, &User),
    current: &str,
    (new, again): (&str, &str),
    (address, revoke): (Option<IpAddr>, Option<RevokeAll>),
) -> Result<(usize, Option<Revoked>), AppError> {
    check_new_password(new, again)?;
    let right = sessions::login::recheck(&ctx.db, passwords, &user.email, current, address).await?;
    if right != Some(user.id) {
        return Err(AppError::validation(vec![FieldError::new(
            "current",
            "that is not your current password",
        )]));
    }
    let phc = passwords.hash(new.to_string()).await?;
    let id = user.id;
    let ended = ctx
        .db
        .write(move |tx| {
            let ended = replace_password(tx, id, &phc, Some(&session), now())?;
            let revoked = revoke.map(|r| r(tx, id, now())).transpose()?;
            let what = "The password was changed";
            let what = revoked.map_or_else(|| what.to_string(), |r| r.added_to(what));
            notify(tx, &account(tx, id)?, &what, now())?;
            Ok((ended, revoked))
        })
        .await?;
    ctx.workers.mail.wake();
    Ok(ended)
}

/// Asks to make `raw` the e-mail of `user`, signed in with a session confirmed within the last
/// few minutes (`sessions::confirm`): mails a one-time link to the new address, and nothing
/// changes until it is opened. 409 when another account has the address, 429 past
/// `EMAIL_CHANGES_PER_HOUR`. Returns the new address.
pub async fn request_email_change(
    ctx: &Context,
    session: String,
    user: &User,
    raw: &str,
) -> Result<Email, AppError> {
    let email = Email::parse(raw)?;
    if email.as_str() == user.email {
        return Err(AppError::validation(vec![FieldError::new(
            "email",
            "that is your address already",
        )]));
    }
    let (id, name, app, to) = (user.id, user.name.clone(), ctx.app.clone(), email.clone());
    ctx.db
        .write(move |tx| {
            sessions::confirm::require(tx, &session, now())?;
            if store::find_by_email(tx, to.as_str())?.is_some() {
                return Err(AppError::Conflict(format!(
                    "{to} belongs to another Docket account; use another address"
                )));
            }
            let key = format!("email-change:user:{id}");
            if let Some(wait) = throttle::take(tx, &[(&key, EMAIL_CHANGES_PER_HOUR)], 3600, now())?
            {
                return Err(AppError::TooManyRequests {
                    retry_after: wait as u64,
                    limit: 0,
                });
            }
            let token = links::create(tx, id, Purpose::EmailChange, to.as_str(), now())?;
            let link = format!("{app}/account/email/{}", token.expose());
            let content = compose_account::EmailChange {
                name: &name,
                new_email: to.as_str(),
                link: &link,
                minutes: links::TTL / 60,
            }
            .compose();
            let mail = NewMail::new(Kind::EmailChange, to.as_str(), content)
                .with_one_time_link(now() + links::TTL);
            crate::outbox::mail::store::enqueue(tx, &mail, now()).map(drop)
        })
        .await?;
    ctx.workers.mail.wake();
    Ok(email)
}

/// An e-mail change waiting for its link: the account's address now, and the new one.
#[derive(Debug, Clone)]
pub struct PendingEmail {
    pub old: String,
    pub new: String,
}

/// The change behind the link `token`, while it works.
pub async fn pending_email(ctx: &Context, token: String) -> Result<Option<PendingEmail>, AppError> {
    ctx.db
        .read(move |c| {
            let Some(l) = links::find(c, Purpose::EmailChange, &token, now())? else {
                return Ok(None);
            };
            Ok(store::get(c, l.user)?.map(|u| PendingEmail {
                old: u.email,
                new: l.email,
            }))
        })
        .await
}

/// The address `user` asked to change to and has not confirmed yet, while its link works.
pub async fn awaiting_confirmation(
    ctx: &Context,
    user: UserId,
) -> Result<Option<String>, AppError> {
    ctx.db
        .read(move |c| links::pending(c, user, Purpose::EmailChange, now()))
        .await
}

/// Opens the link `token`: its address becomes the account's e-mail, the old address is told.
/// `None` when the link was used, expired or unknown; 409 when another account took the address
/// meanwhile.
pub async fn confirm_email_change(ctx: &Context, token: String) -> Result<Option<User>, AppError> {
    let changed = ctx
        .db
        .write(move |tx| {
            let Some(l) = links::use_up(tx, Purpose::EmailChange, &token, now())? else {
                return Ok(None);
            };
            let email = Email::parse(&l.email)?;
            set_email(tx, l.user, &email, now()).map(Some)
        })
        .await?;
    ctx.workers.mail.wake();
    Ok(changed)
}
