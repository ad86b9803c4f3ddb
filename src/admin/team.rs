//! `docket team ...`

use serde::Serialize;

use super::client::public_url;
use super::{CliError, Ctx, fields, table};
use crate::cli::TeamCommand;
use crate::core::error::AppError;
use crate::core::ids::{TeamId, UserId};
use crate::core::timefmt::iso8601;
use crate::signing::documents::team_settings;
use crate::teams::invitations::{Invitation, Sent};
use crate::teams::{Member, Team, TeamRole, admin};

#[derive(Serialize)]
struct InvitationOut<'a> {
    team: &'a str,
    email: &'a str,
    role: TeamRole,
    invited_by: Option<&'a str>,
    created_at: String,
    expires_at: String,
}

fn invitation_out<'a>(team: &'a Team, i: &'a Invitation) -> InvitationOut<'a> {
    InvitationOut {
        team: &team.slug,
        email: &i.email,
        role: i.role,
        invited_by: i.inviter_name.as_deref(),
        created_at: iso8601(i.created_at),
        expires_at: iso8601(i.expires_at),
    }
}

#[derive(Serialize)]
struct TeamOut<'a> {
    id: TeamId,
    name: &'a str,
    slug: &'a str,
    sender_name: Option<&'a str>,
    members: i64,
    created_at: String,
}

#[derive(Serialize)]
struct MemberOut<'a> {
    team: &'a str,
    user_id: UserId,
    email: &'a str,
    name: &'a str,
    role: TeamRole,
    joined_at: String,
}

fn member_out<'a>(team: &'a Team, m: &'a Member) -> MemberOut<'a> {
    MemberOut {
        team: &team.slug,
        user_id: m.user_id,
        email: &m.email,
        name: &m.name,
        role: m.role,
        joined_at: iso8601(m.created_at),
    }
}

fn describe(team: &Team, m: &Member) -> String {
    fields(&[
        ("team", team.slug.clone()),
        ("email", m.email.clone()),
        ("name", m.name.clone()),
        ("role", m.role.as_str().into()),
        ("joined", iso8601(m.created_at)),
    ])
}

/// A role clap already checked against `ADMIN`, `MANAGER`, `MEMBER` in any case.
fn role(text: &str) -> Result<TeamRole, CliError> {
    Ok(TeamRole::require(text)?)
}

pub fn run(ctx: &Ctx, public_url_flag: Option<&str>, cmd: TeamCommand) -> Result<(), CliError> {
    let links = public_url(public_url_flag)?;
    let links = links.as_deref();
    match cmd {
        TeamCommand::List => list(ctx),
        TeamCommand::Members { slug } => members(ctx, &slug),
        TeamCommand::Create { name, slug, admin } => create(ctx, &name, &slug, &admin),
        TeamCommand::Add {
            slug,
            email,
            role: r,
        } => add(ctx, &slug, &email, role(&r)?, links),
        TeamCommand::Remove { slug, email } => remove(ctx, &slug, &email),
        TeamCommand::Role {
            slug,
            email,
            role: r,
        } => set_role(ctx, &slug, &email, role(&r)?),
        TeamCommand::Settings {
            slug,
            name,
            sender_name,
            signing_order,
            date_format,
            time_zone,
            redirect_url,
            language,
            expiration_period,
            clear,
        } => {
            let change = team_settings::Change {
                name,
                sender_name,
                signing_order,
                date_format,
                time_zone,
                redirect_url,
                language,
                expiration_period,
            };
            settings(ctx, &slug, change, &clear)
        }
        TeamCommand::Invite {
            slug,
            email,
            role: r,
        } => invite(ctx, &slug, &email, role(&r)?, links),
        TeamCommand::Invitations { slug } => invitations(ctx, &slug),
        TeamCommand::RevokeInvitation { slug, email } => revoke_invitation(ctx, &slug, &email),
    }
}

fn list(ctx: &Ctx) -> Result<(), CliError> {
    let teams = admin::list(&ctx.db)?;
    let out: Vec<TeamOut> = teams
        .iter()
        .map(|(t, members)| TeamOut {
            id: t.id,
            name: &t.name,
            slug: &t.slug,
            sender_name: t.sender_name.as_deref(),
            members: *members,
            created_at: iso8601(t.created_at),
        })
        .collect();
    ctx.print(&out, || {
        let rows: Vec<Vec<String>> = teams
            .iter()
            .map(|(t, members)| {
                vec![
                    t.id.to_string(),
                    t.slug.clone(),
                    t.name.clone(),
                    members.to_string(),
                    iso8601(t.created_at),
                ]
            })
            .collect();
        table(&["ID", "SLUG", "NAME", "MEMBERS", "CREATED"], &rows)
    });
    Ok(())
}

fn members(ctx: &Ctx, slug: &str) -> Result<(), CliError> {
    let (team, members) = admin::members(&ctx.db, slug)?;
    let out: Vec<MemberOut> = members.iter().map(|m| member_out(&team, m)).collect();
    ctx.print(&out, || {
        let rows: Vec<Vec<String>> = members
            .iter()
            .map(|m| {
                vec![
                    m.email.clone(),
                    m.name.clone(),
                    m.role.as_str().into(),
                    iso8601(m.created_at),
                ]
            })
            .collect();
        table(&["EMAIL", "NAME", "ROLE", "JOINED"], &rows)
    });
    Ok(())
}

fn create(ctx: &Ctx, name: &str, slug: &str, admin_email: &str) -> Result<(), CliError> {
    let (team, admin) = admin::create(&ctx.db, name, slug, admin_email)?;
    let out = TeamOut {
        id: team.id,
        name: &team.name,
        slug: &team.slug,
        sender_name: team.sender_name.as_deref(),
        members: 1,
        created_at: iso8601(team.created_at),
    };
    ctx.print(&out, || {
        format!(
            "Created team {} ({}); {} is its admin\n{}",
            team.name,
            team.slug,
            admin.email,
            fields(&[
                ("id", team.id.to_string()),
                ("name", team.name.clone()),
                ("slug", team.slug.clone()),
                ("admin", admin.email.clone()),
                ("created", iso8601(team.created_at)),
            ])
        )
    });
    Ok(())
}

fn add(
    ctx: &Ctx,
    slug: &str,
    email: &str,
    role: TeamRole,
    links: Option<&str>,
) -> Result<(), CliError> {
    let (team, m) = admin::add(&ctx.db, slug, email, role, links)?;
    ctx.print(&member_out(&team, &m), || {
        format!(
            "{} joined {} as {}\n{}",
            m.email,
            team.slug,
            m.role.as_str(),
            describe(&team, &m)
        )
    });
    Ok(())
}

fn remove(ctx: &Ctx, slug: &str, email: &str) -> Result<(), CliError> {
    let (team, m) = admin::remove(&ctx.db, slug, email)?;
    #[derive(Serialize)]
    struct Out<'a> {
        team: &'a str,
        user_id: UserId,
        email: &'a str,
        removed: bool,
    }
    let out = Out {
        team: &team.slug,
        user_id: m.user_id,
        email: &m.email,
        removed: true,
    };
    ctx.print(&out, || {
        format!(
            "Removed {} from {}; what they made with the team stays the team's",
            m.email, team.slug
        )
    });
    Ok(())
}

/// `docket team settings SLUG [--NAME VALUE]... [--clear NAME]...`: shows the team's
/// settings, or changes them through the same rules as its admins' page (as the system).
fn settings(
    ctx: &Ctx,
    slug: &str,
    mut change: team_settings::Change,
    clear: &[String],
) -> Result<(), CliError> {
    let c = &mut change;
    for (option, value) in [
        ("sender-name", &mut c.sender_name),
        ("signing-order", &mut c.signing_order),
        ("date-format", &mut c.date_format),
        ("time-zone", &mut c.time_zone),
        ("redirect-url", &mut c.redirect_url),
        ("language", &mut c.language),
        ("expiration-period", &mut c.expiration_period),
    ] {
        if !clear.iter().any(|c| c == option) {
            continue;
        }
        if value.is_some() {
            return Err(CliError {
                message: format!("--{option} and --clear {option} cannot go together"),
                code: 2,
            });
        }
        // Blank text, which the use case reads as "back to the default".
        *value = Some(String::new());
    }
    let s = if change == team_settings::Change::default() {
        team_settings::admin_read(&ctx.db, slug)?
    } else {
        team_settings::admin_update(&ctx.db, slug, change).map_err(every_problem)?
    };
    ctx.print(&s, || {
        let d = &s.defaults;
        let or_default = |v: &Option<String>| v.clone().unwrap_or_else(|| "(default)".into());
        fields(&[
            ("name", s.name.clone()),
            ("slug", s.slug.clone()),
            (
                "sender name",
                s.sender_name
                    .clone()
                    .unwrap_or_else(|| format!("(the team's name: {})", s.name)),
            ),
            (
                "signing order",
                d.signing_order
                    .map_or_else(|| "(default)".into(), |o| o.as_str().into()),
            ),
            ("date format", or_default(&d.date_format)),
            ("time zone", or_default(&d.time_zone)),
            ("redirect url", or_default(&d.redirect_url)),
            (
                "language",
                d.language
                    .map_or_else(|| "(each member's own)".into(), |l| l.as_str().to_string()),
            ),
            (
                "expiration period",
                d.expiration_period
                    .as_ref()
                    .map_or_else(|| "(each member's own)".into(), |p| p.describe()),
            ),
        ])
    });
    Ok(())
}

/// A refused change names every problem on its one line, not just how many there are.
fn every_problem(e: AppError) -> CliError {
    let mut out = CliError::from(e.clone());
    if e.details().len() > 1 {
        let all: Vec<String> = e
            .details()
            .iter()
            .map(|d| format!("{}: {}", d.path, d.message))
            .collect();
        out.message = all.join("; ");
    }
    out
}

fn set_role(ctx: &Ctx, slug: &str, email: &str, role: TeamRole) -> Result<(), CliError> {
    let (team, m) = admin::set_role(&ctx.db, slug, email, role)?;
    ctx.print(&member_out(&team, &m), || {
        format!("{} is now {} of {}", m.email, m.role.as_str(), team.slug)
    });
    Ok(())
}

fn invite(
    ctx: &Ctx,
    slug: &str,
    email: &str,
    role: TeamRole,
    links: Option<&str>,
) -> Result<(), CliError> {
    let Sent {
        team,
        invitation: i,
        link,
    } = admin::invite(&ctx.db, slug, email, role, links)?;
    #[derive(Serialize)]
    struct Out<'a> {
        #[serde(flatten)]
        invitation: InvitationOut<'a>,
        /// The link, shown once: only its hash is stored.
        link: &'a str,
    }
    let out = Out {
        invitation: invitation_out(&team, &i),
        link: &link,
    };
    ctx.print(&out, || {
        format!(
            "Invited {} to {} as {}; the running server mails the link within seconds\n{}",
            i.email,
            team.slug,
            i.role.as_str(),
            fields(&[("link", link.clone()), ("expires", iso8601(i.expires_at))])
        )
    });
    Ok(())
}

fn invitations(ctx: &Ctx, slug: &str) -> Result<(), CliError> {
    let (team, list) = admin::invitations(&ctx.db, slug)?;
    let out: Vec<InvitationOut> = list.iter().map(|i| invitation_out(&team, i)).collect();
    ctx.print(&out, || {
        let rows: Vec<Vec<String>> = list
            .iter()
            .map(|i| {
                vec![
                    i.email.clone(),
                    i.role.as_str().into(),
                    i.inviter_name.clone().unwrap_or_else(|| "-".into()),
                    iso8601(i.expires_at),
                ]
            })
            .collect();
        table(&["EMAIL", "ROLE", "INVITED BY", "EXPIRES"], &rows)
    });
    Ok(())
}

fn revoke_invitation(ctx: &Ctx, slug: &str, email: &str) -> Result<(), CliError> {
    let team = admin::revoke_invitation(&ctx.db, slug, email)?;
    #[derive(Serialize)]
    struct Out<'a> {
        team: &'a str,
        email: &'a str,
        revoked: bool,
    }
    let email = email.trim();
    let out = Out {
        team: &team.slug,
        email,
        revoked: true,
    };
    ctx.print(&out, || {
        format!(
            "Revoked the invitation of {email} to {}; its link no longer works",
            team.slug
        )
    });
    Ok(())
}
