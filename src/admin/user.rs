//! `docket user ...`

use serde::Serialize;

use super::{CliError, Ctx, fields, read_password_stdin, table};
use crate::cli::UserCommand;
use crate::db::now;
use crate::timefmt::iso8601;
use crate::users::store::{self, NewUser};
use crate::users::{Email, Tier, User, parse_name, parse_username, password};

#[derive(Serialize)]
struct UserOut {
    id: i64,
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
        (
            "status",
            if u.disabled { "disabled" } else { "active" }.into(),
        ),
        ("created", iso8601(u.created_at)),
    ])
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
        } => {
            let email = Email::parse(&email)?;
            let name = parse_name(&name)?;
            let username = username.as_deref().map(parse_username).transpose()?;
            let tier = Tier::parse(&tier)?;
            let (pw, generated) = choose_password(password_stdin)?;
            let hash = password::hash(&pw)?;
            let user = ctx.db.write_blocking(move |tx| {
                store::insert(
                    tx,
                    &NewUser {
                        email: &email,
                        name: &name,
                        username: username.as_deref(),
                        tier,
                        password_hash: &hash,
                    },
                    now(),
                )
            })?;
            #[derive(Serialize)]
            struct Out<'a> {
                id: i64,
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
        }
        UserCommand::List => {
            let users = ctx.db.read_blocking(store::list)?;
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
                            if u.disabled { "disabled" } else { "active" }.into(),
                        ]
                    })
                    .collect();
                table(
                    &["ID", "EMAIL", "USERNAME", "NAME", "TIER", "STATUS"],
                    &rows,
                )
            });
        }
        UserCommand::Show { email } => {
            let user = ctx
                .db
                .read_blocking(|c| store::require_by_email(c, &email))?;
            ctx.print(&UserOut::from(&user), || describe(&user));
        }
        UserCommand::Passwd {
            email,
            password_stdin,
        } => {
            let (pw, generated) = choose_password(password_stdin)?;
            let hash = password::hash(&pw)?;
            let user = ctx.db.write_blocking(move |tx| {
                let user = store::require_by_email(tx, &email)?;
                store::set_password(tx, user.id, &hash, now())?;
                // A new password signs the user out everywhere.
                crate::sessions::store::delete_for_user(tx, user.id)?;
                Ok(user)
            })?;
            #[derive(Serialize)]
            struct Out<'a> {
                id: i64,
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
        }
        UserCommand::Disable { email } => set_disabled(ctx, &email, true)?,
        UserCommand::Enable { email } => set_disabled(ctx, &email, false)?,
        UserCommand::SetTier { email, tier } => {
            let tier = Tier::parse(&tier)?;
            let user = ctx.db.write_blocking(move |tx| {
                let user = store::require_by_email(tx, &email)?;
                store::set_tier(tx, user.id, tier, now())?;
                store::require_by_email(tx, &email)
            })?;
            ctx.print(&UserOut::from(&user), || {
                format!("{} is now on the {} tier", user.email, tier.as_str())
            });
        }
        UserCommand::ResetFactors { email } => {
            let (user, removed) = ctx.db.write_blocking(move |tx| {
                let user = store::require_by_email(tx, &email)?;
                let removed = crate::factors::store::remove_all(tx, user.id, now())?;
                crate::sessions::store::delete_for_user(tx, user.id)?;
                Ok((user, removed))
            })?;
            ctx.print(&UserOut::from(&user), || {
                format!(
                    "Removed the second factors of {} ({removed}); they sign in with their password now",
                    user.email
                )
            });
        }
    }
    Ok(())
}

fn set_disabled(ctx: &Ctx, email: &str, disabled: bool) -> Result<(), CliError> {
    let email = email.to_string();
    let (user, changed) = ctx.db.write_blocking(move |tx| {
        let user = store::require_by_email(tx, &email)?;
        let changed = store::set_disabled(tx, user.id, disabled, now())?;
        if disabled {
            crate::sessions::store::delete_for_user(tx, user.id)?;
        }
        Ok((store::require_by_email(tx, &email)?, changed))
    })?;
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
