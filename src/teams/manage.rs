//! The members' use cases: create a team, list the caller's teams, read a team's members,
//! change a role, remove a member (who is told by mail) or leave. Invitations are in
//! `invitations`. The caller's membership and role are read in the
//! transaction that acts on them, never cached, so a role change or a removal holds at once
//! on every node. A team the caller does not belong to is a 404, like one that does not exist.

use crate::core::context::Context;
use crate::core::db::{Conn, now};
use crate::core::error::{AppError, FieldError};
use crate::core::ids::UserId;
use crate::identity::principal::Principal;

use super::{Member, Membership, Team, TeamRole, model, notices, slug, store};

/// Creates the team `name` at `slug` (checked here) with `who` as its admin; 409 when the
/// slug is taken.
pub async fn create(
    ctx: &Context,
    who: &Principal,
    name: &str,
    slug: &str,
) -> Result<Membership, AppError> {
    let mut problems: Vec<FieldError> = Vec::new();
    let name = model::parse_name(name).map_err(|e| problems.extend_from_slice(e.details()));
    let slug = slug::parse(slug).map_err(|e| problems.extend_from_slice(e.details()));
    let (Ok(name), Ok(slug)) = (name, slug) else {
        return Err(AppError::validation(problems));
    };
    ctx.admit_new_work()?;
    let user = who.user_id;
    ctx.db
        .write(move |tx| {
            let t = now();
            let team = store::insert(tx, &name, &slug, t)?;
            store::add_member(tx, team.id, user, TeamRole::Admin, t)?;
            Ok(Membership {
                team,
                role: TeamRole::Admin,
            })
        })
        .await
}

/// The teams `who` belongs to, with their role in each, by name.
pub async fn mine(ctx: &Context, who: &Principal) -> Result<Vec<Membership>, AppError> {
    let user = who.user_id;
    ctx.db.read(move |c| store::memberships(c, user)).await
}

/// The team at `slug` and `user`'s role in it; a 404 when there is none or they are not in it.
pub fn membership(c: &Conn, user: UserId, slug: &str) -> Result<Membership, AppError> {
    store::membership_at(c, slug, user)?.ok_or_else(|| AppError::not_found("team"))
}

/// The team at `slug` for one of its admins: a 404 for others outside it, a 403 for members
/// who are not admins.
pub(super) fn managed_by(c: &Conn, user: UserId, slug: &str) -> Result<Team, AppError> {
    admin_of(c, user, slug, "manage its members")
}

/// As `managed_by`, for what else only its admins do (`act`: "delete it"), said in the 403.
pub fn admin_of(c: &Conn, user: UserId, slug: &str, act: &str) -> Result<Team, AppError> {
    let Membership { team, role } = membership(c, user, slug)?;
    if !role.may_manage() {
        return Err(AppError::Forbidden(format!("only the team's admins {act}")));
    }
    Ok(team)
}

/// The members of the team at `slug`, for one of them.
pub async fn members(
    ctx: &Context,
    who: &Principal,
    slug: &str,
) -> Result<(Membership, Vec<Member>), AppError> {
    let (user, slug) = (who.user_id, slug.to_string());
    ctx.db
        .read(move |c| {
            c.consistent_read(|c| {
                let mine = membership(c, user, &slug)?;
                let members = store::members(c, mine.team.id)?;
                Ok((mine, members))
            })
        })
        .await
}

/// Gives `member` the role `role` in the team at `slug` (admins only); 409 when that would
/// leave the team without an admin.
pub async fn change_role(
    ctx: &Context,
    who: &Principal,
    slug: &str,
    member: UserId,
    role: TeamRole,
) -> Result<Member, AppError> {
    let (user, slug) = (who.user_id, slug.to_string());
    ctx.db
        .write(move |tx| {
            let team = managed_by(tx, user, &slug)?;
            store::set_role(tx, team.id, member, role)
        })
        .await
}

/// Takes `member` out of the team at `slug`: an admin removes anyone, and the member removed
/// is told by mail; any member removes themselves (leaves), quietly. 409 when that would leave
/// the team without an admin.
pub async fn remove(
    ctx: &Context,
    who: &Principal,
    slug: &str,
    member: UserId,
) -> Result<(), AppError> {
    let (user, slug) = (who.user_id, slug.to_string());
    let told = ctx
        .db
        .write(move |tx| {
            if member == user {
                let team = membership(tx, user, &slug)?.team;
                return store::remove_member(tx, team.id, member).map(|()| false);
            }
            let team = managed_by(tx, user, &slug)?;
            let was = store::member_of(tx, team.id, member)?;
            store::remove_member(tx, team.id, member)?;
            let Some(was) = was else {
                return Ok(false);
            };
            let by = crate::identity::users::store::get(tx, user)?
                .map_or_else(|| notices::AN_ADMINISTRATOR.to_string(), |u| u.name);
            notices::removed(tx, &team, &was, &by, now())?;
            Ok(true)
        })
        .await?;
    if told {
        ctx.workers.mail.wake();
    }
    Ok(())
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::core::db::Db;
    use crate::params;

    /// A database with the accounts 1 to 3 (ada@, bob@ and cy@x.org, named so) and its context.
    pub(in crate::teams) async fn setup() -> (tempfile::TempDir, Context) {
        let tmp = tempfile::tempdir().unwrap();
        let db = Db::open(&tmp.path().join("t.db"), tmp.path(), 2).unwrap();
        db.write(|c| {
            for (id, email) in [(1, "ada@x.org"), (2, "bob@x.org"), (3, "cy@x.org")] {
                c.execute(
                    "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
                     VALUES (?1, ?2, ?2, ?2, 'x', 0, 0)",
                    params![id, email],
                )?;
            }
            Ok(())
        })
        .await
        .unwrap();
        let ctx = Context::for_tests(db, tmp.path());
        (tmp, ctx)
    }

    pub(in crate::teams) fn user(id: i64) -> Principal {
        Principal::browser(UserId::new(id))
    }

    async fn add(ctx: &Context, slug: &str, id: i64, role: TeamRole) {
        let slug = slug.to_string();
        ctx.db
            .write(move |tx| {
                let team = store::require_by_slug(tx, &slug)?;
                store::add_member(tx, team.id, UserId::new(id), role, now())
            })
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn the_creator_is_the_admin_and_a_taken_slug_is_a_conflict() {
        let (_tmp, ctx) = setup().await;
        let made = create(&ctx, &user(1), " Sales ", "Sales").await.unwrap();
        assert_eq!(
            (made.team.name.as_str(), made.team.slug.as_str()),
            ("Sales", "sales")
        );
        assert_eq!(made.role, TeamRole::Admin);
        let taken = create(&ctx, &user(2), "Other", "sales").await.unwrap_err();
        assert_eq!(taken.code(), "conflict");
        let bad = create(&ctx, &user(2), " ", "a_b").await.unwrap_err();
        let paths: Vec<&str> = bad.details().iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["name", "slug"]);
        assert_eq!(mine(&ctx, &user(1)).await.unwrap(), vec![made]);
        assert!(mine(&ctx, &user(2)).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn only_members_see_a_team_and_only_admins_manage_it() {
        let (_tmp, ctx) = setup().await;
        create(&ctx, &user(1), "Sales", "sales").await.unwrap();
        create(&ctx, &user(3), "Legal", "legal").await.unwrap();
        add(&ctx, "sales", 2, TeamRole::Member).await;

        let (mine, list) = members(&ctx, &user(2), "sales").await.unwrap();
        assert_eq!(mine.role, TeamRole::Member);
        let emails: Vec<&str> = list.iter().map(|m| m.email.as_str()).collect();
        assert_eq!(emails, ["ada@x.org", "bob@x.org"]);
        // Another team, and one that does not exist, answer alike.
        for slug in ["legal", "nowhere"] {
            let e = members(&ctx, &user(2), slug).await.unwrap_err();
            assert_eq!(
                (e.code(), e.to_string()),
                ("not_found", "team not found".into())
            );
        }
        let e = change_role(&ctx, &user(3), "sales", UserId::new(2), TeamRole::Admin)
            .await
            .unwrap_err();
        assert_eq!(e.code(), "not_found", "an admin of another team");
        let e = change_role(&ctx, &user(2), "sales", UserId::new(2), TeamRole::Admin)
            .await
            .unwrap_err();
        assert_eq!(e.code(), "forbidden", "a member cannot promote themselves");
        let e = remove(&ctx, &user(2), "sales", UserId::new(1))
            .await
            .unwrap_err();
        assert_eq!(e.code(), "forbidden", "a member cannot remove others");

        let promoted = change_role(&ctx, &user(1), "sales", UserId::new(2), TeamRole::Manager)
            .await
            .unwrap();
        assert_eq!(promoted.role, TeamRole::Manager);
        // The role holds at once: the manager is still no admin.
        let e = remove(&ctx, &user(2), "sales", UserId::new(1))
            .await
            .unwrap_err();
        assert_eq!(e.code(), "forbidden");
    }

    fn mail_to(ctx: &Context, kind: &str) -> Vec<String> {
        let kind = kind.to_string();
        ctx.db
            .read_blocking(move |c| {
                let mut stmt =
                    c.prepare("SELECT to_addr FROM mail_queue WHERE kind = ?1 ORDER BY id")?;
                let rows = stmt.query_map([kind], |r| r.get(0))?;
                Ok(rows.collect::<Result<Vec<String>, _>>()?)
            })
            .unwrap()
    }

    #[tokio::test]
    async fn a_member_removed_by_an_admin_is_told_and_one_who_leaves_is_not() {
        let (_tmp, ctx) = setup().await;
        create(&ctx, &user(1), "Sales", "sales").await.unwrap();
        add(&ctx, "sales", 2, TeamRole::Member).await;
        add(&ctx, "sales", 3, TeamRole::Member).await;
        remove(&ctx, &user(3), "sales", UserId::new(3))
            .await
            .unwrap();
        assert!(
            mail_to(&ctx, "TEAM_REMOVED").is_empty(),
            "leaving sends nothing"
        );
        remove(&ctx, &user(1), "sales", UserId::new(2))
            .await
            .unwrap();
        assert_eq!(mail_to(&ctx, "TEAM_REMOVED"), ["bob@x.org"]);
        let e = remove(&ctx, &user(1), "sales", UserId::new(2))
            .await
            .unwrap_err();
        assert_eq!(e.code(), "not_found");
        assert_eq!(
            mail_to(&ctx, "TEAM_REMOVED").len(),
            1,
            "no mail for a refusal"
        );
    }

    #[tokio::test]
    async fn a_member_leaves_but_the_last_admin_cannot() {
        let (_tmp, ctx) = setup().await;
        create(&ctx, &user(1), "Sales", "sales").await.unwrap();
        add(&ctx, "sales", 2, TeamRole::Member).await;

        remove(&ctx, &user(2), "sales", UserId::new(2))
            .await
            .unwrap();
        assert!(mine(&ctx, &user(2)).await.unwrap().is_empty());
        let e = members(&ctx, &user(2), "sales").await.unwrap_err();
        assert_eq!(e.code(), "not_found", "gone at once");

        for refused in [
            remove(&ctx, &user(1), "sales", UserId::new(1)).await,
            change_role(&ctx, &user(1), "sales", UserId::new(1), TeamRole::Member)
                .await
                .map(|_| ()),
        ] {
            let e = refused.unwrap_err();
            assert_eq!(
                (e.code(), e.to_string()),
                ("conflict", store::LAST_ADMIN.into())
            );
        }

        add(&ctx, "sales", 3, TeamRole::Admin).await;
        remove(&ctx, &user(1), "sales", UserId::new(1))
            .await
            .unwrap();
        let (_, left) = members(&ctx, &user(3), "sales").await.unwrap();
        assert_eq!(left.len(), 1);
        assert_eq!(
            (left[0].user_id, left[0].role),
            (UserId::new(3), TeamRole::Admin)
        );
    }
}
