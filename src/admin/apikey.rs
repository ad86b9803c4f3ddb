//! `docket apikey ...`

use serde::Serialize;

use super::{CliError, Ctx, fields, table};
use crate::cli::ApikeyCommand;
use crate::core::db::now;
use crate::identity::apikeys::ApiKey;
use crate::{core::timefmt::iso8601, core::timefmt::iso8601_opt};
use crate::{
    identity::apikeys::manage, identity::apikeys::manage::Created,
    identity::apikeys::manage::Expiry, identity::apikeys::manage::KeyOf,
    identity::apikeys::manage::NewKey,
};

#[derive(Serialize)]
struct KeyOut<'a> {
    id: i64,
    user: &'a str,
    /// The team of a team key; absent for a personal one.
    #[serde(skip_serializing_if = "Option::is_none")]
    team: Option<&'a str>,
    name: &'a str,
    prefix: &'a str,
    state: &'static str,
    created_at: String,
    expires_at: Option<String>,
    revoked_at: Option<String>,
    last_used_at: Option<String>,
}

fn key_out(k: &ApiKey, now: i64) -> KeyOut<'_> {
    KeyOut {
        id: k.id,
        user: &k.user,
        team: k.team.as_deref(),
        name: &k.name,
        prefix: &k.prefix,
        state: k.state(now),
        created_at: iso8601(k.created_at),
        expires_at: iso8601_opt(k.expires_at),
        revoked_at: iso8601_opt(k.revoked_at),
        last_used_at: iso8601_opt(k.last_used_at),
    }
}

pub fn run(ctx: &Ctx, cmd: ApikeyCommand) -> Result<(), CliError> {
    let t = now();
    match cmd {
        ApikeyCommand::Create {
            user,
            name,
            expires_in_days,
            team,
        } => {
            let expiry = expires_in_days.map_or(Expiry::Never, Expiry::Days);
            let new = NewKey::check(&name, expiry, t).map_err(|e| CliError {
                message: format!("--{}", e.public_message()),
                code: 2,
            })?;
            let created = match team {
                None => manage::create(&ctx.db, KeyOf::Email(user), new, t)?,
                Some(slug) => crate::teams::tokens::create_for(&ctx.db, &slug, &user, new, t)?,
            };
            created_out(ctx, created)
        }
        ApikeyCommand::List { user } => list(ctx, user.as_deref(), t),
        ApikeyCommand::Revoke { id } => revoke(ctx, id, t),
    }
}

fn created_out(ctx: &Ctx, Created { key, stored }: Created) -> Result<(), CliError> {
    #[derive(Serialize)]
    struct Out<'a> {
        id: i64,
        key: &'a str,
        user: &'a str,
        /// The team of a team key; absent for a personal one.
        #[serde(skip_serializing_if = "Option::is_none")]
        team: Option<&'a str>,
        name: &'a str,
        expires_at: Option<String>,
    }
    let out = Out {
        id: stored.id,
        key: key.expose(),
        user: &stored.user,
        team: stored.team.as_deref(),
        name: &stored.name,
        expires_at: iso8601_opt(stored.expires_at),
    };
    ctx.print(&out, || {
        format!(
            "Created API key {} for {}{}\n\n{}\n\nThe key is shown only now. Send it as `Authorization: Bearer <key>`.",
            stored.id,
            stored.user,
            stored
                .team
                .as_deref()
                .map(|t| format!(" in the team {t}"))
                .unwrap_or_default(),
            fields(&[
                ("key", key.expose().to_string()),
                ("name", stored.name.clone()),
                ("expires", never_or(stored.expires_at)),
            ])
        )
    });
    Ok(())
}

fn list(ctx: &Ctx, owner: Option<&str>, t: i64) -> Result<(), CliError> {
    let keys = manage::list(&ctx.db, owner)?;
    let out: Vec<KeyOut> = keys.iter().map(|k| key_out(k, t)).collect();
    ctx.print(&out, || {
        let rows: Vec<Vec<String>> = keys
            .iter()
            .map(|k| {
                vec![
                    k.id.to_string(),
                    k.user.clone(),
                    k.team.clone().unwrap_or_else(|| "-".into()),
                    k.name.clone(),
                    format!("{}…", k.prefix),
                    k.state(t).into(),
                    iso8601(k.created_at),
                    never_or(k.expires_at),
                    never_or(k.last_used_at),
                ]
            })
            .collect();
        table(
            &[
                "ID",
                "USER",
                "TEAM",
                "NAME",
                "KEY",
                "STATE",
                "CREATED",
                "EXPIRES",
                "LAST USED",
            ],
            &rows,
        )
    });
    Ok(())
}

fn revoke(ctx: &Ctx, id: i64, t: i64) -> Result<(), CliError> {
    let key = manage::revoke(&ctx.db, id, t)?;
    ctx.print(&key_out(&key, t), || {
        format!("Revoked API key {} ({}, {})", key.id, key.name, key.user)
    });
    Ok(())
}

/// A time, or "never" when there is none.
fn never_or(t: Option<i64>) -> String {
    iso8601_opt(t).unwrap_or_else(|| "never".into())
}
