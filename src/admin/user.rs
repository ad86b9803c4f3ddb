//! `docket user ...`

use crate::core::ids::UserId;
use serde::Serialize;

use super::{CliError, Ctx, fields, read_password_stdin, table};
use crate::cli::UserCommand;
use crate::core::timefmt::iso8601;
use crate::{
    identity::accounts::admin, identity::accounts::admin::FactorsReset,
    identity::accounts::admin::NewAccount, identity::accounts::admin::Switched,
};
use crate::{
    identity::users::Email, identity::users::Tier, identity::users::User,
    identity::users::parse_name, identity::users::parse_username, identity::users::password,
};

#[derive(Serialize)]
struct UserOut {
    id: UserId,
    email: String,
    username: String,
    name: String,
    tier: Tier,
    time_zone: String,
    disabled: bool,
    created_at: String,
}

impl From<&User> for UserOut {
    fn from(u: &User) -> Self {
        UserOut {
            id: u.id,
            email: u.email.clone(),
            username: u.username.clone(),
            name: u.name.clone(),
            tier: u.tier,
            time_zone: u.time_zone.clone(),
            disabled: u.disabled,
            created_at: iso8601(u.created_at),
        }
    }
}

fn describe(u: &User) -> String {
    fields(&[
        ("id", u.id.to_string()),
        ("email", u.email.clone()),
        ("username", u.username.clone()),
        ("name", u.name.clone()),
        ("tier", u.tier.as_str().into()),
        ("status", status(u).into()),
        ("created", iso8601(u.created_at)),
    ])
}

fn status(u: &User) -> &'static str {
    if u.disabled { "disabled" } else { "active" }
}

/// The new password: from stdin when asked, else generated (and then printed once).
fn choose_password(from_stdin: bool) -> Result<(String, bool), CliError> {
    if from_stdin {
        Ok((read_password_stdin()?, false))
    } else {
        Ok((password::generate(), true))
    }
}

pub fn run(ctx: &Ctx, cmd: UserCommand) -> Result<(), CliError> {
    match cmd {
        UserCommand::Add {
            email,
            name,
            username,
            tier,
            password_stdin,
        } => add(
            ctx,
            &email,
            &name,
            username.as_deref(),
            &tier,
            password_stdin,
        ),
        UserCommand::List => list(ctx),
        UserCommand::Show { email } => show(ctx, &email),
        UserCommand::Passwd {
            email,
            password_stdin,
        } => passwd(ctx, &email, password_stdin),
        UserCommand::Rename { email, name } => rename(ctx, &email, &name),
        UserCommand::SetEmail { email, new_email } => set_email(ctx, &email, &new_email),
        UserCommand::Disable { email } => set_disabled(ctx, &email, true),
        UserCommand::Enable { email } => set_disabled(ctx, &email, false),
        UserCommand::SetTier { email, tier } => set_tier(ctx, &email, &tier),
        UserCommand::ResetFactors { email } => reset_factors(ctx, &email),
    }
}

fn add(
    ctx: &Ctx,
    email: &str,
    name: &str,
    username: Option<&str>,
    tier: &str,
    password_stdin: bool,
) -> Result<(), CliError> {
    let new = NewAccount {
        email: Email::parse(email)?,
        name: parse_name(name)?,
        username: username.map(parse_username).transpose()?,
        tier: Tier::parse(tier)?,
    };
    let (pw, generated) = choose_password(password_stdin)?;
    let user = admin::create(&ctx.db, new, &pw)?;
    #[derive(Serialize)]
    struct Out<'a> {
        id: UserId,
        email: &'a str,
        name: &'a str,
        username: &'a str,
        tier: Tier,
        #[serde(skip_serializing_if = "Option::is_none")]
        password: Option<&'a str>,
    }
    let out = Out {
        id: user.id,
        email: &user.email,
        name: &user.name,
        username: &user.username,
        tier: user.tier,
        password: generated.then_some(pw.as_str()),
    };
    ctx.print(&out, || {
        let mut text = format!("Created user {}\n{}", user.email, describe(&user));
        if generated {
            text.push_str(&format!(
                "\n\n  password  {pw}\n\nThe password is shown only now; give it to the user."
            ));
        }
        text
    });
    Ok(())
}

fn list(ctx: &Ctx) -> Result<(), CliError> {
    let users = admin::list(&ctx.db)?;
    let out: Vec<UserOut> = users.iter().map(UserOut::from).collect();
    ctx.print(&out, || {
        let rows: Vec<Vec<String>> = users
            .iter()
            .map(|u| {
                vec![
                    u.id.to_string(),
                    u.email.clone(),
                    u.username.clone(),
                    u.name.clone(),
                    u.tier.as_str().into(),
                    status(u).into(),
                ]
            })
            .collect();
        table(
            &["ID", "EMAIL", "USERNAME", "NAME", "TIER", "STATUS"],
            &rows,
        )
    });
    Ok(())
}

fn show(ctx: &Ctx, email: &str) -> Result<(), CliError> {
    let user = admin::find(&ctx.db, email)?;
    ctx.print(&UserOut::from(&user), || describe(&user));
    Ok(())
}

fn passwd(ctx: &Ctx, email: &str, password_stdin: bool) -> Result<(), CliError> {
    let (pw, generated) = choose_password(password_stdin)?;
    let user = admin::set_password(&ctx.db, email, &pw)?;
    #[derive(Serialize)]
    struct Out<'a> {
        id: UserId,
        email: &'a str,
        password_changed: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        password: Option<&'a str>,
    }
    let out = Out {
        id: user.id,
        email: &user.email,
        password_changed: true,
        password: generated.then_some(pw.as_str()),
    };
    ctx.print(&out, || {
        if generated {
            format!(
                "New password for {}\n\n  password  {pw}\n\nThe password is shown only now.",
                user.email
            )
        } else {
            format!("Password changed for {}", user.email)
        }
    });
    Ok(())
}

fn rename(ctx: &Ctx, email: &str, name: &str) -> Result<(), CliError> {
    let user = admin::rename(&ctx.db, email, &parse_name(name)?)?;
    ctx.print(&UserOut::from(&user), || {
        format!("{} is now named {}", user.email, user.name)
    });
    Ok(())
}

fn set_email(ctx: &Ctx, email: &str, new_email: &str) -> Result<(), CliError> {
    let user = admin::set_email(&ctx.db, email, Email::parse(new_email)?)?;
    ctx.print(&UserOut::from(&user), || {
        format!(
            "{} now signs in as {}; a notice goes to the old address",
            email.trim(),
            user.email
        )
    });
    Ok(())
}

fn set_disabled(ctx: &Ctx, email: &str, disabled: bool) -> Result<(), CliError> {
    let Switched { user, changed } = admin::set_disabled(&ctx.db, email, disabled)?;
    let verb = if disabled { "disabled" } else { "enabled" };
    ctx.print(&UserOut::from(&user), || {
        if changed {
            format!("{} is now {verb}", user.email)
        } else {
            format!("{} was already {verb}", user.email)
        }
    });
    Ok(())
}

fn set_tier(ctx: &Ctx, email: &str, tier: &str) -> Result<(), CliError> {
    let tier = Tier::parse(tier)?;
    let user = admin::set_tier(&ctx.db, email, tier)?;
    ctx.print(&UserOut::from(&user), || {
        format!("{} is now on the {} tier", user.email, tier.as_str())
    });
    Ok(())
}

fn reset_factors(ctx: &Ctx, email: &str) -> Result<(), CliError> {
    let FactorsReset { user, removed } = admin::reset_factors(&ctx.db, email)?;
    ctx.print(&UserOut::from(&user), || {
        format!(
            "Removed the second factors of {} ({removed}); they sign in with their password now",
            user.email
        )
    });
    Ok(())
}
