//! `docket client ...`: registering OAuth clients and printing what an app needs.

use serde::Serialize;

use super::{CliError, Ctx, fields, table};
use crate::cli::ClientCommand;
use crate::core::timefmt::iso8601;
use crate::identity::scope;
use crate::{config::base, config::parse_base_url};
use crate::{oauth::clients::Client, oauth::clients::Registration};
use crate::{
    oauth::clients::manage, oauth::clients::manage::Endpoints, oauth::clients::manage::Registered,
};

/// The validated `--public-url`, without a trailing slash; `None` when not given (also for
/// the links `docket team` mails).
pub(super) fn public_url(flag: Option<&str>) -> Result<Option<String>, CliError> {
    flag.map(|u| {
        parse_base_url("--public-url", u)
            .map(|url| base(&url))
            .map_err(|e| CliError {
                message: e.to_string(),
                code: 2,
            })
    })
    .transpose()
}

#[derive(Serialize)]
struct ClientOut<'a> {
    client_id: &'a str,
    name: &'a str,
    redirect_uris: &'a [String],
    logo_url: Option<&'a str>,
    app_url: Option<&'a str>,
    public: bool,
    scopes: Option<String>,
    created_at: String,
    #[serde(flatten)]
    endpoints: &'a Endpoints,
}

fn client_out<'a>(c: &'a Client, endpoints: &'a Endpoints) -> ClientOut<'a> {
    ClientOut {
        client_id: &c.client_id,
        name: &c.name,
        redirect_uris: &c.redirect_uris,
        logo_url: c.logo_url.as_deref(),
        app_url: c.app_url.as_deref(),
        public: c.public,
        scopes: c.allowed_scopes.as_deref().map(scope::join),
        created_at: iso8601(c.created_at),
        endpoints,
    }
}

fn describe(c: &Client, e: &Endpoints, secret_line: Option<String>) -> String {
    let mut rows = vec![
        ("Client ID", c.client_id.clone()),
        (
            "Client Secret",
            secret_line.unwrap_or_else(|| {
                if c.public {
                    "none (public client: use PKCE)".into()
                } else {
                    "hidden (shown once at registration; `docket client rotate-secret` issues a new one)".into()
                }
            }),
        ),
        ("Authorization URL", e.authorization_url.clone()),
        ("Access Token Request URL", e.token_url.clone()),
        ("Refresh Token Request URL", e.refresh_token_url.clone()),
        ("Name", c.name.clone()),
        ("Redirect URIs", c.redirect_uris.join("\n                             ")),
    ];
    if let Some(logo) = &c.logo_url {
        rows.push(("Logo", logo.clone()));
    }
    if let Some(app) = &c.app_url {
        rows.push(("App link", app.clone()));
    }
    rows.push((
        "Scopes",
        c.allowed_scopes
            .as_deref()
            .map_or("every scope".into(), scope::join),
    ));
    fields(&rows)
}

pub fn run(ctx: &Ctx, public_url_flag: Option<&str>, cmd: ClientCommand) -> Result<(), CliError> {
    match cmd {
        ClientCommand::Add {
            name,
            redirect_uris,
            logo_url,
            app_url,
            public,
            scopes,
        } => {
            let reg = Registration::validate(
                &name,
                &redirect_uris,
                logo_url.as_deref(),
                app_url.as_deref(),
                public,
                &scopes,
            )?;
            add(ctx, reg, public_url(public_url_flag)?)
        }
        ClientCommand::List => list(ctx, public_url(public_url_flag)?),
        ClientCommand::Show { client_id } => show(ctx, &client_id, public_url(public_url_flag)?),
        ClientCommand::RotateSecret { client_id } => rotate_secret(ctx, &client_id),
        ClientCommand::Remove { client_id } => remove(ctx, &client_id),
    }
}

fn add(ctx: &Ctx, reg: Registration, public_url: Option<String>) -> Result<(), CliError> {
    let Registered {
        client,
        secret,
        endpoints,
    } = manage::register(&ctx.db, reg, public_url)?;
    #[derive(Serialize)]
    struct Out<'a> {
        client_id: &'a str,
        client_secret: Option<&'a str>,
        #[serde(flatten)]
        endpoints: &'a Endpoints,
        name: &'a str,
        redirect_uris: &'a [String],
    }
    let out = Out {
        client_id: &client.client_id,
        client_secret: secret.as_ref().map(|s| s.expose()),
        endpoints: &endpoints,
        name: &client.name,
        redirect_uris: &client.redirect_uris,
    };
    ctx.print(&out, || {
        let secret_line = secret.as_ref().map(|s| s.expose().to_string());
        let mut text = format!(
            "Registered OAuth client \"{}\". Give the app these five items:\n\n{}",
            client.name,
            describe(&client, &endpoints, secret_line)
        );
        if secret.is_some() {
            text.push_str("\n\nThe client secret is shown only now; keep it secret.");
        }
        text
    });
    Ok(())
}

fn list(ctx: &Ctx, public_url: Option<String>) -> Result<(), CliError> {
    let (clients, endpoints) = manage::list(&ctx.db, public_url.as_deref())?;
    let out: Vec<ClientOut> = clients.iter().map(|c| client_out(c, &endpoints)).collect();
    ctx.print(&out, || {
        let rows: Vec<Vec<String>> = clients
            .iter()
            .map(|c| {
                vec![
                    c.client_id.clone(),
                    c.name.clone(),
                    if c.public { "public" } else { "confidential" }.into(),
                    c.redirect_uris.join(" "),
                    iso8601(c.created_at),
                ]
            })
            .collect();
        table(
            &["CLIENT ID", "NAME", "TYPE", "REDIRECT URIS", "CREATED"],
            &rows,
        )
    });
    Ok(())
}

fn show(ctx: &Ctx, client_id: &str, public_url: Option<String>) -> Result<(), CliError> {
    let (client, endpoints) = manage::show(&ctx.db, client_id, public_url.as_deref())?;
    ctx.print(&client_out(&client, &endpoints), || {
        describe(&client, &endpoints, None)
    });
    Ok(())
}

fn rotate_secret(ctx: &Ctx, client_id: &str) -> Result<(), CliError> {
    let secret = manage::rotate_secret(&ctx.db, client_id)?;
    #[derive(Serialize)]
    struct Out<'a> {
        client_id: &'a str,
        client_secret: &'a str,
    }
    ctx.print(
        &Out {
            client_id,
            client_secret: secret.expose(),
        },
        || {
            format!(
                "New secret for client {client_id}:\n\n  Client Secret  {}\n\nThe old secret no longer works. This one is shown only now.",
                secret.expose()
            )
        },
    );
    Ok(())
}

fn remove(ctx: &Ctx, client_id: &str) -> Result<(), CliError> {
    let client = manage::remove(&ctx.db, client_id)?;
    #[derive(Serialize)]
    struct Out<'a> {
        client_id: &'a str,
        name: &'a str,
        removed: bool,
    }
    ctx.print(
        &Out {
            client_id: &client.client_id,
            name: &client.name,
            removed: true,
        },
        || {
            format!(
                "Removed client {} ({}); its tokens no longer work",
                client.client_id, client.name
            )
        },
    );
    Ok(())
}
