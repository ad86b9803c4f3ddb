//! Invitations to join a team: an admin invites an e-mail address with a role; the address
//! gets a link holding a random token (only its SHA-256 is stored) that works once, for
//! `TTL`. Inviting an address again replaces its pending invitation (the old link stops
//! working). So that nobody floods mail through it, a team holds at most `MAX_PENDING`
//! pending invitations (409), and one address gets at most `PER_ADDRESS` from a team an hour
//! (429).
//!
//! Accepting is one short transaction whose guarded `UPDATE` checks the whole precondition
//! (the token is live and for the caller's address) before the membership is added. An
//! expired, used, revoked or unknown token is the same 410 Gone (`NO_LONGER_VALID`): a link
//! that once worked and no longer does is "gone", and telling those cases apart would only
//! tell a guesser which tokens existed. An account with another address gets a 403 naming
//! the address the invitation is for, and nothing more. The SQL is in `store`.

pub mod store;

use crate::core::context::Context;
use crate::core::crypto::SecretToken;
use crate::core::db::{Conn, now};
use crate::core::error::AppError;
use crate::identity::principal::Principal;
use crate::identity::users::checks::PasswordChecks;
use crate::identity::users::{Email, Tier, User, store as users};
use crate::outbox::mail::compose_team::TeamInvitation;
use crate::outbox::mail::{Kind, NewMail};

use super::{Membership, Team, TeamRole, manage, notices};
pub use store::Invitation;

/// How long an invitation's link works: a week.
pub const TTL: i64 = 7 * 24 * 3600;
/// Pending invitations one team may hold at once.
pub const MAX_PENDING: i64 = 100;
/// Invitations one team may send one address in an hour, replaced or revoked ones included.
pub const PER_ADDRESS: i64 = 3;
/// What a link that was used, expired, revoked or never existed answers (410).
pub const NO_LONGER_VALID: &str = "this invitation is no longer valid";
/// How long used and expired invitations are kept before they are deleted.
const KEPT: i64 = 30 * 24 * 3600;

fn gone() -> AppError {
    AppError::Gone(NO_LONGER_VALID.into())
}

/// An invitation just made, with its link (a credential: shown once to whoever invited, and
/// mailed; never stored).
#[derive(Debug, Clone)]
pub struct Sent {
    pub team: Team,
    pub invitation: Invitation,
    pub link: String,
}

/// The path of the invitation page for `token`.
pub fn path(token: &str) -> String {
    format!("/invitations/{token}")
}

/// Invites `email` to `team` as `role` on behalf of `inviter` (`None`: the admin CLI) and
/// queues the mail, in the caller's transaction; `base` is where the application's pages are.
/// 409 when the address is a member already or the team holds `MAX_PENDING` invitations.
pub(super) fn create(
    tx: &Conn,
    team: &Team,
    inviter: Option<&User>,
    email: &Email,
    role: TeamRole,
    base: &str,
    now: i64,
) -> Result<Sent, AppError> {
    // Invitations of one team take turns, so that the bound holds when two admins invite at
    // once on PostgreSQL (SQLite has one writer).
    tx.serialize_on(&format!("team-invitations:{}", team.id))?;
    if store::is_member(tx, team.id, email.as_str())? {
        return Err(AppError::Conflict(format!(
            "{email} is already a member of {}",
            team.slug
        )));
    }
    store::delete_spent(tx, team.id, now - KEPT)?;
    let (recent, oldest) = store::made_since(tx, team.id, email.as_str(), now - 3600)?;
    if recent >= PER_ADDRESS {
        return Err(AppError::TooManyRequests {
            retry_after: (oldest.unwrap_or(now) + 3600 - now).max(1) as u64,
            limit: 0,
        });
    }
    // A new invitation for the same address replaces the old one: its link stops working.
    store::retire_pending(tx, team.id, email.as_str(), now)?;
    if store::count_pending(tx, team.id, now)? >= MAX_PENDING {
        return Err(AppError::Conflict(format!(
            "{} has {MAX_PENDING} pending invitations, the most a team may have: revoke some, \
             or wait until they are accepted or expire",
            team.slug
        )));
    }
    let token = SecretToken::generate("", 43);
    let hash = token.hash();
    let expires_at = now + TTL;
    let id = store::insert(
        tx,
        &store::NewInvitation {
            team: team.id,
            email: email.as_str(),
            role,
            invited_by: inviter.map(|u| u.id),
            token_hash: &hash,
            expires_at,
        },
        now,
    )?;
    let link = format!("{base}{}", path(token.expose()));
    let by = inviter.map_or(notices::AN_ADMINISTRATOR, |u| u.name.as_str());
    let content = TeamInvitation {
        team: &team.name,
        inviter: by,
        role: notices::role_words(role),
        to: email.as_str(),
        link: &link,
        expires: &crate::core::timefmt::human(expires_at),
    }
    .compose();
    let mail =
        NewMail::new(Kind::TeamInvitation, email.as_str(), content).with_one_time_link(expires_at);
    crate::outbox::mail::store::enqueue(tx, &mail, now)?;
    let invitation = Invitation {
        id,
        team_id: team.id,
        email: email.to_string(),
        role,
        invited_by: inviter.map(|u| u.id),
        inviter_name: inviter.map(|u| u.name.clone()),
        created_at: now,
        expires_at,
    };
    Ok(Sent {
        team: team.clone(),
        invitation,
        link,
    })
}

/// An admin of the team at `slug` invites `email` as `role`: the mail is queued with the
/// link, which is also returned. 404 outside the team, 403 for its managers and members, 409
/// for a member's address or a team at `MAX_PENDING`.
pub async fn invite(
    ctx: &Context,
    who: &Principal,
    slug: &str,
    email: &str,
    role: TeamRole,
) -> Result<Sent, AppError> {
    let email = Email::parse(email)?;
    ctx.admit_new_work()?;
    let (user, slug, base) = (who.user_id, slug.to_string(), ctx.app.clone());
    let sent = ctx
        .db
        .write(move |tx| {
            let team = manage::managed_by(tx, user, &slug)?;
            let inviter = users::get(tx, user)?;
            create(tx, &team, inviter.as_ref(), &email, role, &base, now())
        })
        .await?;
    ctx.workers.mail.wake();
    Ok(sent)
}

/// The pending invitations of the team at `slug`, newest first, for its admins.
pub async fn pending(
    ctx: &Context,
    who: &Principal,
    slug: &str,
) -> Result<(Team, Vec<Invitation>), AppError> {
    let (user, slug) = (who.user_id, slug.to_string());
    ctx.db
        .read(move |c| {
            c.consistent_read(|c| {
                let team = manage::managed_by(c, user, &slug)?;
                let list = store::pending(c, team.id, now())?;
                Ok((team, list))
            })
        })
        .await
}

/// Takes back `team`'s pending invitation for `email`: its link stops working. 404 when
/// there is none.
pub(super) fn withdraw(tx: &Conn, team: &Team, email: &str) -> Result<(), AppError> {
    if !store::retire_pending(tx, team.id, email.trim(), now())? {
        return Err(AppError::NotFound(format!(
            "{} has no pending invitation for {}",
            team.slug,
            email.trim()
        )));
    }
    Ok(())
}

/// An admin of the team at `slug` revokes its pending invitation for `email`.
pub async fn revoke(
    ctx: &Context,
    who: &Principal,
    slug: &str,
    email: &str,
) -> Result<(), AppError> {
    let (user, slug, email) = (who.user_id, slug.to_string(), email.to_string());
    ctx.db
        .write(move |tx| {
            let team = manage::managed_by(tx, user, &slug)?;
            withdraw(tx, &team, &email)
        })
        .await
}

/// What the page of a live invitation shows: the team, who invited, the role, the address it
/// is for, and whether that address has an account (to sign in with) or not (to create one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    pub team: Team,
    pub email: String,
    pub role: TeamRole,
    pub inviter: Option<String>,
    pub expires_at: i64,
    pub account_exists: bool,
}

/// The invitation behind `token` while it can be accepted; `None` when it is no longer valid.
pub async fn offer(ctx: &Context, token: String) -> Result<Option<Offer>, AppError> {
    let hash = SecretToken::presented(&token).hash();
    ctx.db
        .read(move |c| {
            c.consistent_read(|c| {
                let Some(i) = store::live(c, &hash, now())? else {
                    return Ok(None);
                };
                let team = super::store::get(c, i.team_id)?
                    .ok_or_else(|| AppError::internal("an invitation's team vanished"))?;
                let account_exists = users::find_by_email(c, &i.email.to_lowercase())?.is_some();
                Ok(Some(Offer {
                    team,
                    email: i.email,
                    role: i.role,
                    inviter: i.inviter_name,
                    expires_at: i.expires_at,
                    account_exists,
                }))
            })
        })
        .await
}

/// Uses up the invitation behind `hash` for `user` and makes them a member: 410 when it is no
/// longer valid, 403 naming its address when it is for another one. Someone who became a
/// member meanwhile keeps their role; the invitation is spent all the same.
fn join(tx: &Conn, hash: &str, user: &User, now: i64) -> Result<Membership, AppError> {
    let Some((team_id, role)) = store::use_up(tx, hash, &user.email, now)? else {
        return Err(match store::live(tx, hash, now)? {
            Some(i) => AppError::Forbidden(format!(
                "this invitation is for {}: sign in with that address to join",
                i.email
            )),
            None => gone(),
        });
    };
    let team = super::store::get(tx, team_id)?
        .ok_or_else(|| AppError::internal("an invitation's team vanished"))?;
    let role = match super::store::role_of(tx, team_id, user.id)? {
        Some(had) => had,
        None => super::store::add_member(tx, team_id, user.id, role, now)?.role,
    };
    Ok(Membership { team, role })
}

/// The signed-in `who` accepts the invitation behind `token`: their membership in its team.
pub async fn accept(ctx: &Context, who: &Principal, token: String) -> Result<Membership, AppError> {
    let (user, hash) = (who.user_id, SecretToken::presented(&token).hash());
    ctx.db
        .write(move |tx| {
            let me = users::get(tx, user)?.ok_or_else(|| AppError::not_found("user"))?;
            join(tx, &hash, &me, now())
        })
        .await
}

/// A new account, made by an invitation, signed in and a member of its team.
#[derive(Debug)]
pub struct Joined {
    pub membership: Membership,
    pub session: SecretToken,
}

/// Creates the account of the invited address (named `name`, with `password`, both already
/// checked by the sign-up form's rules), signs it in and joins the team, in one transaction;
/// the invitation proves the address, so this works whether or not sign-up is open. 410 when
/// the invitation is no longer valid, 409 when the address has an account (sign in instead).
pub async fn accept_new_account(
    ctx: &Context,
    passwords: &PasswordChecks,
    token: String,
    name: String,
    password: String,
) -> Result<Joined, AppError> {
    let hash = SecretToken::presented(&token).hash();
    // Checked before the password is hashed, so that a dead link costs no hash.
    let live = {
        let hash = hash.clone();
        ctx.db.read(move |c| store::live(c, &hash, now())).await?
    };
    let invited = live.ok_or_else(gone)?;
    let phc = passwords.hash(password).await?;
    let session = crate::identity::sessions::new_token();
    let opened = session.clone();
    let membership = ctx
        .db
        .write(move |tx| {
            let email = Email::parse(&invited.email)?;
            if users::find_by_email(tx, email.as_str())?.is_some() {
                return Err(AppError::Conflict(format!(
                    "{email} has a Docket account already: sign in to join"
                )));
            }
            let user = users::insert(
                tx,
                &users::NewUser {
                    email: &email,
                    name: &name,
                    username: None,
                    tier: Tier::Standard,
                    password_hash: &phc,
                },
                now(),
            )?;
            crate::identity::sessions::store::create(tx, user.id, &opened, now())?;
            join(tx, &hash, &user, now())
        })
        .await?;
    Ok(Joined {
        membership,
        session,
    })
}

#[cfg(test)]
mod tests {
    use super::manage::tests::user;
    use super::*;
    use crate::core::ids::UserId;
    use crate::params;

    /// The accounts of `manage`'s tests and dee@x.org (4); Sales, whose admin is ada (1) and
    /// manager bob (2), and Legal, whose admin is dee.
    async fn setup() -> (tempfile::TempDir, Context) {
        let (tmp, ctx) = manage::tests::setup().await;
        ctx.db
            .write(|c| {
                c.execute(
                    "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
                     VALUES (4, 'dee@x.org', 'dee', 'dee@x.org', 'x', 0, 0)",
                    [],
                )?;
                Ok(())
            })
            .await
            .unwrap();
        manage::create(&ctx, &user(1), "Sales", "sales")
            .await
            .unwrap();
        manage::create(&ctx, &user(4), "Legal", "legal")
            .await
            .unwrap();
        let team = ctx
            .db
            .read(|c| super::super::store::require_by_slug(c, "sales"))
            .await
            .unwrap();
        ctx.db
            .write(move |tx| {
                super::super::store::add_member(tx, team.id, UserId::new(2), TeamRole::Manager, 0)
                    .map(drop)
            })
            .await
            .unwrap();
        (tmp, ctx)
    }

    fn token(sent: &Sent) -> String {
        sent.link.rsplit('/').next().unwrap().to_string()
    }

    fn queued(ctx: &Context) -> Vec<(String, String, Option<i64>)> {
        ctx.db
            .read_blocking(|c| {
                let mut stmt = c.prepare(
                    "SELECT to_addr, body_text, link_expires_at FROM mail_queue
                      WHERE kind = 'TEAM_INVITATION' ORDER BY id",
                )?;
                let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
                Ok(rows.collect::<Result<Vec<_>, _>>()?)
            })
            .unwrap()
    }

    #[tokio::test]
    async fn only_admins_invite_and_a_member_s_address_is_a_conflict() {
        let (_tmp, ctx) = setup().await;
        let e = invite(&ctx, &user(2), "sales", "new@x.org", TeamRole::Member)
            .await
            .unwrap_err();
        assert_eq!(e.code(), "forbidden", "a manager");
        let e = invite(&ctx, &user(4), "sales", "new@x.org", TeamRole::Member)
            .await
            .unwrap_err();
        assert_eq!(e.code(), "not_found", "an admin of another team");
        let e = invite(&ctx, &user(1), "sales", "BOB@x.org", TeamRole::Member)
            .await
            .unwrap_err();
        assert_eq!(
            (e.code(), e.to_string()),
            ("conflict", "bob@x.org is already a member of sales".into())
        );
        let e = invite(&ctx, &user(1), "sales", "not an address", TeamRole::Member)
            .await
            .unwrap_err();
        assert_eq!(e.details()[0].path, "email");
        assert!(queued(&ctx).is_empty());

        let sent = invite(&ctx, &user(1), "sales", " New@X.org ", TeamRole::Manager)
            .await
            .unwrap();
        assert_eq!(sent.invitation.email, "new@x.org");
        assert_eq!(sent.invitation.expires_at - sent.invitation.created_at, TTL);
        assert!(sent.link.starts_with("https://sign.example/invitations/"));
        let mail = queued(&ctx);
        assert_eq!(mail.len(), 1);
        let (to, text, until) = &mail[0];
        assert_eq!(to, "new@x.org");
        assert!(
            text.contains(&sent.link) && text.contains("ada@x.org invited you"),
            "{text}"
        );
        assert!(text.contains("as a manager"), "{text}");
        assert_eq!(*until, Some(sent.invitation.expires_at), "a one-time link");
        // Only the hash is stored.
        let stored: String = ctx
            .db
            .read_blocking(|c| {
                Ok(c.query_row("SELECT token_hash FROM team_invitations", [], |r| r.get(0))?)
            })
            .unwrap();
        assert_eq!(stored, SecretToken::presented(&token(&sent)).hash());
    }

    #[tokio::test]
    async fn a_new_invitation_replaces_the_old_and_admins_list_and_revoke() {
        let (_tmp, ctx) = setup().await;
        let first = invite(&ctx, &user(1), "sales", "new@x.org", TeamRole::Member)
            .await
            .unwrap();
        let second = invite(&ctx, &user(1), "sales", "NEW@x.org", TeamRole::Admin)
            .await
            .unwrap();
        assert!(
            offer(&ctx, token(&first)).await.unwrap().is_none(),
            "replaced"
        );
        let o = offer(&ctx, token(&second)).await.unwrap().unwrap();
        assert_eq!(
            (
                o.team.slug.as_str(),
                o.role,
                o.inviter.as_deref(),
                o.account_exists
            ),
            ("sales", TeamRole::Admin, Some("ada@x.org"), false)
        );
        invite(&ctx, &user(1), "sales", "cy@x.org", TeamRole::Member)
            .await
            .unwrap();
        let (_, list) = pending(&ctx, &user(1), "sales").await.unwrap();
        let emails: Vec<&str> = list.iter().map(|i| i.email.as_str()).collect();
        assert_eq!(emails, ["cy@x.org", "new@x.org"]);
        assert_eq!(
            pending(&ctx, &user(2), "sales").await.unwrap_err().code(),
            "forbidden"
        );
        assert_eq!(
            revoke(&ctx, &user(2), "sales", "cy@x.org")
                .await
                .unwrap_err()
                .code(),
            "forbidden"
        );
        revoke(&ctx, &user(1), "sales", "CY@x.org").await.unwrap();
        let e = revoke(&ctx, &user(1), "sales", "cy@x.org")
            .await
            .unwrap_err();
        assert_eq!(
            (e.code(), e.to_string()),
            (
                "not_found",
                "sales has no pending invitation for cy@x.org".into()
            )
        );
        let (_, list) = pending(&ctx, &user(1), "sales").await.unwrap();
        assert_eq!(list.len(), 1);
    }

    #[tokio::test]
    async fn one_address_gets_at_most_three_invitations_an_hour_from_a_team() {
        let (_tmp, ctx) = setup().await;
        for _ in 0..PER_ADDRESS {
            invite(&ctx, &user(1), "sales", "new@x.org", TeamRole::Member)
                .await
                .unwrap();
        }
        revoke(&ctx, &user(1), "sales", "new@x.org").await.unwrap();
        let e = invite(&ctx, &user(1), "sales", "NEW@x.org", TeamRole::Member)
            .await
            .unwrap_err();
        assert_eq!(e.code(), "rate_limited", "revoked ones count too");
        assert_eq!(queued(&ctx).len(), 3);
        invite(&ctx, &user(4), "legal", "new@x.org", TeamRole::Member)
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn a_team_holds_at_most_max_pending_invitations() {
        let (_tmp, ctx) = setup().await;
        ctx.db
            .write(|tx| {
                for n in 0..MAX_PENDING - 1 {
                    tx.execute(
                        "INSERT INTO team_invitations (team_id, email, role, token_hash, created_at, expires_at)
                         SELECT id, ?1, 'MEMBER', ?1, 0, ?2 FROM teams WHERE slug = 'sales'",
                        params![format!("p{n}@x.org"), now() + TTL],
                    )?;
                }
                Ok(())
            })
            .await
            .unwrap();
        invite(&ctx, &user(1), "sales", "last@x.org", TeamRole::Member)
            .await
            .unwrap();
        // Replacing one that is pending is no new one.
        invite(&ctx, &user(1), "sales", "p0@x.org", TeamRole::Member)
            .await
            .unwrap();
        let e = invite(&ctx, &user(1), "sales", "over@x.org", TeamRole::Member)
            .await
            .unwrap_err();
        assert_eq!(e.code(), "conflict");
        assert!(e.to_string().contains("100 pending invitations"), "{e}");
        // Another team has its own bound.
        invite(&ctx, &user(4), "legal", "over@x.org", TeamRole::Member)
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn the_invited_account_joins_once_and_others_are_refused() {
        let (_tmp, ctx) = setup().await;
        let sent = invite(&ctx, &user(1), "sales", "CY@x.org", TeamRole::Manager)
            .await
            .unwrap();
        let t = token(&sent);
        let e = accept(&ctx, &user(4), t.clone()).await.unwrap_err();
        assert_eq!(
            (e.code(), e.to_string()),
            (
                "forbidden",
                "this invitation is for cy@x.org: sign in with that address to join".into()
            )
        );
        let joined = accept(&ctx, &user(3), t.clone()).await.unwrap();
        assert_eq!(
            (joined.team.slug.as_str(), joined.role),
            ("sales", TeamRole::Manager)
        );
        for again in [
            accept(&ctx, &user(3), t.clone()).await,
            accept(&ctx, &user(4), t).await,
        ] {
            let e = again.unwrap_err();
            assert_eq!((e.code(), e.to_string()), ("gone", NO_LONGER_VALID.into()));
        }
        let e = accept(&ctx, &user(3), "unknown".into()).await.unwrap_err();
        assert_eq!(e.code(), "gone");

        // An expired one is the same.
        let sent = invite(&ctx, &user(1), "sales", "dee@x.org", TeamRole::Member)
            .await
            .unwrap();
        ctx.db
            .write(|tx| {
                tx.execute(
                    "UPDATE team_invitations SET expires_at = ?1 WHERE email = 'dee@x.org'",
                    [now() - 1],
                )?;
                Ok(())
            })
            .await
            .unwrap();
        assert!(offer(&ctx, token(&sent)).await.unwrap().is_none());
        let e = accept(&ctx, &user(4), token(&sent)).await.unwrap_err();
        assert_eq!(e.code(), "gone");
        let dee = UserId::new(4);
        let in_sales = ctx
            .db
            .read_blocking(|c| manage::membership(c, dee, "sales").map(|m| m.role))
            .unwrap_err();
        assert_eq!(
            in_sales.code(),
            "not_found",
            "nobody joined through a dead link"
        );
    }

    #[tokio::test]
    async fn an_invitation_makes_the_account_it_is_for() {
        let (_tmp, ctx) = setup().await;
        let sent = invite(&ctx, &user(1), "sales", "new@x.org", TeamRole::Member)
            .await
            .unwrap();
        let checks = PasswordChecks::new(1);
        let pw = || "long enough pw".to_string();
        let joined = accept_new_account(&ctx, &checks, token(&sent), "Nia".into(), pw())
            .await
            .unwrap();
        assert_eq!(joined.membership.role, TeamRole::Member);
        let me = crate::identity::sessions::login::signed_in(
            &ctx.db,
            joined.session.expose().to_string(),
        )
        .await
        .unwrap()
        .unwrap();
        assert_eq!((me.email.as_str(), me.name.as_str()), ("new@x.org", "Nia"));
        let mine = manage::mine(&ctx, &Principal::browser(me.id))
            .await
            .unwrap();
        assert_eq!(mine.len(), 1);
        let e = accept_new_account(&ctx, &checks, token(&sent), "Nia".into(), pw())
            .await
            .unwrap_err();
        assert_eq!(e.code(), "gone");

        // An address that has an account signs in instead; the invitation stays.
        let sent = invite(&ctx, &user(1), "sales", "cy@x.org", TeamRole::Member)
            .await
            .unwrap();
        let e = accept_new_account(&ctx, &checks, token(&sent), "Cy".into(), pw())
            .await
            .unwrap_err();
        assert_eq!(e.code(), "conflict");
        assert!(
            offer(&ctx, token(&sent))
                .await
                .unwrap()
                .unwrap()
                .account_exists
        );
    }
}
