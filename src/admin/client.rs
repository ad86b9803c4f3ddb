//! `docket client ...`: registering OAuth clients and printing what an app needs.

use serde::Serialize;

use super::{CliError, Ctx, fields, table};
use crate::cli::ClientCommand;
use crate::config::{base, parse_base_url};
use crate::db::now;
use crate::oauth::clients::store;
use crate::oauth::clients::{Client, Registration};
use crate::oauth::scope;
use crate::timefmt::iso8601;

/// The endpoint URLs of this installation, as an app needs them.
#[derive(Serialize)]
struct Endpoints {
    authorization_url: String,
    token_url: String,
    refresh_token_url: String,
}

impl Endpoints {
    fn new(base_url: &str) -> Self {
        Endpoints {
            authorization_url: format!("{base_url}/auth/oauth2/authorize"),
            token_url: format!("{base_url}/api/auth/oauth/token"),
            refresh_token_url: format!("{base_url}/api/auth/oauth/refreshToken"),
        }
    }
}

/// `--public-url`, else the URL the server last ran with, else the built-in default.
fn base_url(ctx: &Ctx, flag: Option<&str>) -> Result<String, CliError> {
    if let Some(u) = flag {
        let url = parse_base_url("--public-url", u).map_err(|e| CliError {
            message: e.to_string(),
            code: 2,
        })?;
        return Ok(base(&url));
    }
    let stored = ctx
        .db
        .read_blocking(|c| crate::settings::get(c, crate::settings::PUBLIC_URL))?;
    Ok(stored.unwrap_or_else(|| "https://localhost:8443".to_string()))
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
    endpoints: Endpoints,
}

fn client_out<'a>(c: &'a Client, base_url: &str) -> ClientOut<'a> {
    ClientOut {
        client_id: &c.client_id,
        name: &c.name,
        redirect_uris: &c.redirect_uris,
        logo_url: c.logo_url.as_deref(),
        app_url: c.app_url.as_deref(),
        public: c.public,
        scopes: c.allowed_scopes.as_deref().map(scope::join),
        created_at: iso8601(c.created_at),
        endpoints: Endpoints::new(base_url),
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

pub fn run(ctx: &Ctx, public_url: Option<&str>, cmd: ClientCommand) -> Result<(), CliError> {
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
            let base_url = base_url(ctx, public_url)?;
            let (client, secret) = ctx
                .db
                .write_blocking(move |tx| store::insert(tx, &reg, now()))?;
            let endpoints = Endpoints::new(&base_url);
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
        }
        ClientCommand::List => {
            let clients = ctx.db.read_blocking(store::list)?;
            let base_url = base_url(ctx, public_url)?;
            let out: Vec<ClientOut> = clients.iter().map(|c| client_out(c, &base_url)).collect();
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
        }
        ClientCommand::Show { client_id } => {
            let client = ctx.db.read_blocking(|c| store::require(c, &client_id))?;
            let base_url = base_url(ctx, public_url)?;
            let endpoints = Endpoints::new(&base_url);
            ctx.print(&client_out(&client, &base_url), || {
                describe(&client, &endpoints, None)
            });
        }
        ClientCommand::RotateSecret { client_id } => {
            let secret = ctx.db.write_blocking({
                let client_id = client_id.clone();
                move |c| store::rotate_secret(c, &client_id, now())
            })?;
            #[derive(Serialize)]
            struct Out<'a> {
                client_id: &'a str,
                client_secret: &'a str,
            }
            ctx.print(
                &Out {
                    client_id: &client_id,
                    client_secret: secret.expose(),
                },
                || {
                    format!(
                        "New secret for client {client_id}:\n\n  Client Secret  {}\n\nThe old secret no longer works. This one is shown only now.",
                        secret.expose()
                    )
                },
            );
        }
        ClientCommand::Remove { client_id } => {
            let client = ctx.db.write_blocking({
                let client_id = client_id.clone();
                move |c| store::remove(c, &client_id)
            })?;
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
        }
    }
    Ok(())
}
