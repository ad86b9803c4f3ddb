//! `docket serve` arguments turned once into a validated `Config`, and `StartupError`: what
//! stops the server before it serves (printed as one line, exit code 1).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use url::Url;

use crate::logging::LogFormat;
use crate::{cli::ServeArgs, cli::TlsMode};

#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("{0}")]
    Config(String),
    #[error("data directory {path}: {source}")]
    DataDir {
        path: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Database(#[from] crate::core::db::OpenError),
    #[error("{0}")]
    BlobStore(String),
    #[error("TLS: {0}")]
    Tls(String),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
}

#[derive(Debug, Clone)]
pub enum Tls {
    Off,
    /// Self-issued; extra names beyond the defaults (or exactly these when given).
    Auto {
        names: Vec<String>,
    },
    Files {
        cert: PathBuf,
        key: PathBuf,
    },
}

/// The certificate that seals completed documents.
#[derive(Debug, Clone, PartialEq)]
pub enum SealCert {
    /// Issued by the local CA and kept in `<data>/tls/` (`seal.pem`, `seal-key.pem`).
    Auto,
    /// From `--seal-cert` and `--seal-key`, checked at startup.
    Files { cert: PathBuf, key: PathBuf },
}

#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    /// `None`: derived from the bound address once listening.
    pub public_url: Option<Url>,
    pub app_url: Option<Url>,
    pub data_dir: PathBuf,
    /// SQLite under `data_dir` (the default), or a PostgreSQL database shared by every node.
    pub database: crate::core::db::Target,
    /// The key that seals the secrets every node shares, in the database (`--secret-key-file`
    /// or `DOCKET_SECRET_KEY`); required with PostgreSQL, optional with SQLite.
    pub secret_key: Option<crate::core::secrets::NodeKey>,
    pub tls: Tls,
    pub seal: SealCert,
    /// Where blobs live (`--blob-url`).
    pub blob_url: crate::core::blob::BlobUrl,
    pub max_upload_bytes: u64,
    /// Below this many free bytes in the data directory new work is refused (0: never).
    pub min_free_bytes: u64,
    pub lifetimes: crate::oauth::tokens::Lifetimes,
    pub rotate_refresh_tokens: bool,
    pub rate_limit: u64,
    /// Checks of sealed PDFs a minute per client address (0: no limit).
    pub check_rate_limit: u64,
    /// Password checks that may run at once.
    pub max_password_checks: usize,
    pub upload_url_ttl: i64,
    pub log_format: LogFormat,
    pub log_level: String,
    /// `None`: mail goes to the outbox.
    pub smtp: Option<crate::outbox::mail::smtp::SmtpUrl>,
    /// `None`: `Docket <docket@HOST>` once the public URL is known.
    pub mail_from: Option<lettre::message::Mailbox>,
    pub allow_private_webhooks: bool,
    /// Webhook deliveries in flight at once.
    pub webhook_concurrency: usize,
    /// Where webhooks and SMTP may connect.
    pub outbound: crate::core::outbound::Outbound,
    /// Webhook endpoints per user.
    pub max_webhooks_per_user: u32,
    /// First retry delay of the outgoing queues.
    pub retry_base: std::time::Duration,
    /// How long a message that left the mail queue is kept (`outbox::mail::prune`).
    pub mail_retention: std::time::Duration,
    /// How long the blob sweep leaves a temp file or a blob with no row (`blob::sweep::GRACE`).
    pub orphan_grace: std::time::Duration,
    /// How long a direct link's visitor document may wait unsigned before it is removed.
    pub direct_link_expiry: std::time::Duration,
    /// A template's visitor documents that may wait unsigned at once.
    pub direct_link_max_open: u32,
    /// How often the scan for passed deadlines and due reminders looks.
    pub deadline_scan: std::time::Duration,
    /// Bulk sends' rows per file and documents per hour.
    pub bulk_send: crate::signing::bulk::Limits,
    /// How often the bulk-send worker looks for runs besides being woken.
    pub bulk_send_scan: std::time::Duration,
    /// Connection caps and timeouts.
    pub limits: crate::http::server::limits::Limits,
    /// Reverse proxies whose forwarding headers name the client.
    pub trusted_proxies: crate::http::server::proxy::TrustedProxies,
    /// Limits of page renders for the signing page.
    pub render: crate::signing::pdf::RenderLimits,
    /// `--queue-lease`: the lease of every queue; `None`: each queue's own default.
    pub queue_lease: Option<crate::core::retry::Lease>,
}

/// A base URL: http(s), a host, no query or fragment; the trailing slash removed.
pub fn parse_base_url(flag: &str, raw: &str) -> Result<Url, StartupError> {
    let url =
        Url::parse(raw.trim()).map_err(|e| StartupError::Config(format!("{flag} {raw:?}: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(StartupError::Config(format!(
            "{flag} {raw:?}: use an http or https URL with a host"
        )));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(StartupError::Config(format!(
            "{flag} {raw:?}: no query or fragment allowed"
        )));
    }
    let trimmed = url.as_str().trim_end_matches('/').to_string();
    Url::parse(&trimmed).map_err(|e| StartupError::Config(format!("{flag}: {e}")))
}

/// A secret kept in a file: its text without one trailing newline.
fn read_secret_file(path: &std::path::Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let text = text.strip_suffix('\n').unwrap_or(&text);
    Ok(text.strip_suffix('\r').unwrap_or(text).to_string())
}

/// The URL's text without a trailing slash, ready to append paths to.
pub fn base(url: &Url) -> String {
    url.as_str().trim_end_matches('/').to_string()
}

/// `--tls` and its files; the files are refused without `--tls files`.
fn tls_from_args(args: &ServeArgs) -> Result<Tls, StartupError> {
    let tls = match args.tls {
        TlsMode::Off => Tls::Off,
        TlsMode::Auto => Tls::Auto {
            names: args
                .tls_names
                .iter()
                .map(|n| n.trim().to_string())
                .filter(|n| !n.is_empty())
                .collect(),
        },
        TlsMode::Files => match (&args.tls_cert, &args.tls_key) {
            (Some(cert), Some(key)) => Tls::Files {
                cert: cert.clone(),
                key: key.clone(),
            },
            _ => {
                return Err(StartupError::Config(
                    "--tls files needs --tls-cert FILE and --tls-key FILE".into(),
                ));
            }
        },
    };
    if !matches!(tls, Tls::Files { .. }) && (args.tls_cert.is_some() || args.tls_key.is_some()) {
        return Err(StartupError::Config(
            "--tls-cert and --tls-key are used only with --tls files".into(),
        ));
    }
    Ok(tls)
}

/// `--seal-cert` and `--seal-key`: both (loaded once to check that they fit) or neither.
fn seal_from_args(args: &ServeArgs) -> Result<SealCert, StartupError> {
    match (&args.seal_cert, &args.seal_key) {
        (Some(cert), Some(key)) => {
            crate::signing::pdf::seal::SealSigner::from_pem_files(cert, key)
                .map_err(|e| StartupError::Config(format!("--seal-cert/--seal-key: {e}")))?;
            Ok(SealCert::Files {
                cert: cert.clone(),
                key: key.clone(),
            })
        }
        (None, None) => Ok(SealCert::Auto),
        _ => Err(StartupError::Config(
            "--seal-cert and --seal-key go together".into(),
        )),
    }
}

/// Without `--listen`: localhost, port 8443 with TLS and 8080 without.
fn default_listen(tls: &Tls) -> SocketAddr {
    let port = if matches!(tls, Tls::Off) { 8080 } else { 8443 };
    SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)
}

fn optional_base_url(flag: &str, raw: Option<&str>) -> Result<Option<Url>, StartupError> {
    raw.map(|u| parse_base_url(flag, u)).transpose()
}

/// `--smtp-url`, with the password from `--smtp-password-file` when given; under
/// `--outbound loopback-only` its host must be local.
fn smtp_from_args(
    args: &ServeArgs,
) -> Result<Option<crate::outbox::mail::smtp::SmtpUrl>, StartupError> {
    let smtp = args
        .smtp_url
        .as_deref()
        .map(|u| {
            crate::outbox::mail::smtp::SmtpUrl::parse(u)
                .map_err(|e| StartupError::Config(format!("--smtp-url: {e}")))
        })
        .transpose()?;
    let smtp = match (smtp, &args.smtp_password_file) {
        (Some(url), Some(path)) => Some(
            read_secret_file(path)
                .and_then(|pw| url.with_password(pw))
                .map_err(|e| {
                    StartupError::Config(format!("--smtp-password-file {}: {e}", path.display()))
                })?,
        ),
        (smtp, _) => smtp,
    };
    if let Some(s) = &smtp
        && !args.outbound.permits_host(&s.host)
    {
        // The SMTP client looks its host up itself: refuse before it could.
        return Err(StartupError::Config(format!(
            "--smtp-url: {} is not localhost or a loopback address, which {} requires",
            s.host,
            crate::core::outbound::Outbound::LOOPBACK_ONLY
        )));
    }
    Ok(smtp)
}

fn mail_from_args(args: &ServeArgs) -> Result<Option<lettre::message::Mailbox>, StartupError> {
    args.mail_from
        .as_deref()
        .map(|m| {
            m.trim().parse::<lettre::message::Mailbox>().map_err(|e| {
                StartupError::Config(format!(
                    "--mail-from {m:?}: {e} (e.g. \"Docket <docket@example.com>\")"
                ))
            })
        })
        .transpose()
}

fn connection_limits(args: &ServeArgs) -> crate::http::server::limits::Limits {
    let secs = std::time::Duration::from_secs;
    crate::http::server::limits::Limits {
        max_connections: args.max_connections as usize,
        max_per_ip: args.max_connections_per_ip as usize,
        idle: secs(args.idle_timeout_secs),
        body: secs(args.body_timeout_secs),
    }
}

fn render_limits(args: &ServeArgs) -> crate::signing::pdf::RenderLimits {
    crate::signing::pdf::RenderLimits {
        exe: args
            .render_exe
            .clone()
            .unwrap_or_else(crate::signing::pdf::RenderLimits::this_binary),
        workers: args.render_workers.map_or_else(
            || std::thread::available_parallelism().map_or(1, usize::from),
            |n| n as usize,
        ),
        timeout: std::time::Duration::from_secs(args.render_timeout_secs),
        memory_bytes: args.render_memory_mb << 20,
    }
}

impl Config {
    pub fn from_args(args: &ServeArgs, data_dir: Option<PathBuf>) -> Result<Config, StartupError> {
        let tls = tls_from_args(args)?;
        let seal = seal_from_args(args)?;
        let listen = args.listen.unwrap_or(default_listen(&tls));
        let public_url = optional_base_url("--public-url", args.public_url.as_deref())?;
        let app_url = optional_base_url("--app-url", args.app_url.as_deref())?;
        let data_dir = data_dir
            .or_else(crate::core::datadir::DataDir::default_path)
            .ok_or_else(|| StartupError::Config("no home directory: pass --data-dir DIR".into()))?;
        let smtp = smtp_from_args(args)?;
        let mail_from = mail_from_args(args)?;
        let trusted_proxies = crate::http::server::proxy::TrustedProxies::parse(
            args.trusted_proxies.iter().map(String::as_str),
        )
        .map_err(|e| StartupError::Config(format!("--trusted-proxies: {e}")))?;
        Ok(Config {
            listen,
            public_url,
            app_url,
            data_dir,
            database: crate::core::db::Target::Sqlite,
            secret_key: None,
            tls,
            seal,
            blob_url: crate::core::blob::BlobUrl::parse(&args.blob_url)
                .map_err(|e| StartupError::Config(format!("--blob-url {e}")))?,
            max_upload_bytes: args.max_upload_mb * 1024 * 1024,
            min_free_bytes: args.min_free_mb << 20,
            lifetimes: crate::oauth::tokens::Lifetimes {
                access: args.access_token_ttl,
                refresh: args.refresh_token_ttl,
                code: args.code_ttl,
            },
            rotate_refresh_tokens: args.rotate_refresh_tokens,
            rate_limit: args.rate_limit,
            check_rate_limit: args.check_rate_limit,
            max_password_checks: args
                .max_password_checks
                .map_or_else(crate::identity::users::checks::default_max, usize::from),
            upload_url_ttl: args.upload_url_ttl,
            log_format: args.log_format,
            log_level: args.log_level.clone(),
            smtp,
            mail_from,
            allow_private_webhooks: args.allow_private_webhooks,
            webhook_concurrency: usize::from(args.webhook_concurrency),
            outbound: args.outbound,
            max_webhooks_per_user: args.max_webhooks_per_user,
            retry_base: std::time::Duration::from_millis(args.retry_base_ms),
            mail_retention: std::time::Duration::from_secs(args.mail_retention_days * 86_400),
            orphan_grace: std::time::Duration::from_secs(args.orphan_grace_secs),
            direct_link_expiry: std::time::Duration::from_secs(
                args.direct_link_expiry_secs
                    .unwrap_or(args.direct_link_expiry_days * 86_400),
            ),
            direct_link_max_open: args.direct_link_max_open,
            deadline_scan: std::time::Duration::from_secs(args.deadline_scan_secs),
            bulk_send: crate::signing::bulk::Limits {
                max_rows: args.bulk_send_max_rows as usize,
                per_hour: args.bulk_send_per_hour as usize,
            },
            bulk_send_scan: std::time::Duration::from_secs(args.bulk_send_scan_secs),
            limits: connection_limits(args),
            trusted_proxies,
            render: render_limits(args),
            queue_lease: args.queue_lease.map(crate::core::retry::Lease::secs),
        })
    }

    pub fn tls_on(&self) -> bool {
        !matches!(self.tls, Tls::Off)
    }

    /// The public URL once the real address is known: the configured one, or
    /// `https://localhost:<port>` (`http` with `--tls off`; the IP instead of `localhost` when
    /// listening on a specific non-loopback address).
    pub fn resolve_public_url(&self, bound: SocketAddr) -> Url {
        if let Some(u) = &self.public_url {
            return u.clone();
        }
        let scheme = if self.tls_on() { "https" } else { "http" };
        let ip = bound.ip();
        let host = if ip.is_loopback() || ip.is_unspecified() {
            "localhost".to_string()
        } else if ip.is_ipv6() {
            format!("[{ip}]")
        } else {
            ip.to_string()
        };
        let default_port = if self.tls_on() { 443 } else { 80 };
        let text = if bound.port() == default_port {
            format!("{scheme}://{host}")
        } else {
            format!("{scheme}://{host}:{}", bound.port())
        };
        Url::parse(&text).expect("a URL built from a scheme, host and port parses")
    }

    /// Names for the self-issued certificate: the given ones, or the defaults plus the public host.
    pub fn tls_names(&self, public_url: &Url) -> Vec<String> {
        let given = match &self.tls {
            Tls::Auto { names } if !names.is_empty() => return names.clone(),
            _ => Vec::new(),
        };
        let mut names = given;
        names.extend(["localhost", "127.0.0.1", "::1"].map(String::from));
        if let Some(host) = public_url.host_str() {
            let host = host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_string();
            if !names.iter().any(|n| n.eq_ignore_ascii_case(&host)) {
                names.push(host);
            }
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn config(args: &[&str]) -> Result<Config, StartupError> {
        let mut argv = vec!["docket", "serve"];
        argv.extend_from_slice(args);
        let cli = crate::cli::Cli::try_parse_from(argv).unwrap();
        match cli.command {
            crate::cli::Command::Serve(a) => Config::from_args(&a, Some("/tmp/d".into())),
            _ => unreachable!(),
        }
    }

    #[test]
    fn defaults_follow_tls() {
        let c = config(&[]).unwrap();
        assert_eq!(c.listen.to_string(), "127.0.0.1:8443");
        assert_eq!(
            c.max_password_checks,
            crate::identity::users::checks::default_max()
        );
        assert_eq!(
            config(&["--max-password-checks", "3"])
                .unwrap()
                .max_password_checks,
            3
        );
        assert_eq!(
            c.resolve_public_url(c.listen).as_str(),
            "https://localhost:8443/"
        );
        let c = config(&["--tls", "off"]).unwrap();
        assert_eq!(c.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(
            c.resolve_public_url(c.listen).as_str(),
            "http://localhost:8080/"
        );
    }

    #[test]
    fn public_url_follows_the_real_port_and_names_include_its_host() {
        let c = config(&["--listen", "127.0.0.1:0"]).unwrap();
        let url = c.resolve_public_url("127.0.0.1:41234".parse().unwrap());
        assert_eq!(base(&url), "https://localhost:41234");
        let c = config(&["--public-url", "https://sign.example.com/"]).unwrap();
        let url = c.resolve_public_url(c.listen);
        assert_eq!(base(&url), "https://sign.example.com");
        assert_eq!(
            c.tls_names(&url),
            vec!["localhost", "127.0.0.1", "::1", "sign.example.com"]
        );
    }

    #[test]
    fn seal_files_are_checked_at_startup() {
        assert_eq!(config(&[]).unwrap().seal, SealCert::Auto);
        let one = tempfile::tempdir().unwrap();
        let two = tempfile::tempdir().unwrap();
        crate::signing::pdf::seal::SealSigner::load_or_create(one.path()).unwrap();
        crate::signing::pdf::seal::SealSigner::load_or_create(two.path()).unwrap();
        let path =
            |dir: &tempfile::TempDir, name: &str| dir.path().join(name).display().to_string();
        let (cert, key) = (path(&one, "seal.pem"), path(&one, "seal-key.pem"));
        let c = config(&["--seal-cert", &cert, "--seal-key", &key]).unwrap();
        assert!(matches!(c.seal, SealCert::Files { .. }));

        let other_key = path(&two, "seal-key.pem");
        let err = config(&["--seal-cert", &cert, "--seal-key", &other_key])
            .unwrap_err()
            .to_string();
        assert!(err.contains("does not belong"), "{err}");
        let missing = path(&one, "nope.pem");
        let err = config(&["--seal-cert", &missing, "--seal-key", &key])
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("--seal-cert/--seal-key: ") && err.contains("nope.pem"),
            "{err}"
        );
        let only_one = ["docket", "serve", "--seal-cert", &cert];
        assert!(
            crate::cli::Cli::try_parse_from(only_one).is_err(),
            "both or neither"
        );
    }

    #[test]
    fn bad_combinations_are_refused() {
        assert!(config(&["--tls", "files"]).is_err());
        assert!(config(&["--tls-cert", "a.pem"]).is_err());
        assert!(config(&["--public-url", "ftp://x"]).is_err());
        assert!(config(&["--public-url", "https://x/?a=1"]).is_err());
        assert!(config(&["--smtp-url", "http://mail.example.com"]).is_err());
        assert!(config(&["--smtp-url", "smtp://h?tls=maybe"]).is_err());
        assert!(config(&["--mail-from", "not a mailbox"]).is_err());
    }

    #[test]
    fn mail_settings_are_parsed() {
        let c = config(&[
            "--smtp-url",
            "smtps://u:p@mail.example.com",
            "--mail-from",
            "Acme <sign@acme.example>",
        ])
        .unwrap();
        assert_eq!(c.smtp.unwrap().port, 465);
        assert_eq!(c.mail_from.unwrap().email.to_string(), "sign@acme.example");
        let c = config(&[]).unwrap();
        assert!(c.smtp.is_none() && c.mail_from.is_none() && !c.allow_private_webhooks);
        assert_eq!(c.max_webhooks_per_user, 20);
        assert_eq!(c.retry_base.as_secs(), 30);
        assert_eq!(c.orphan_grace, crate::core::blob::sweep::GRACE);
        assert_eq!(c.direct_link_expiry.as_secs(), 7 * 86_400);
        assert_eq!(c.direct_link_max_open, 100);
        assert_eq!(c.deadline_scan, crate::signing::workflow::deadlines::EVERY);
        assert_eq!(c.bulk_send_scan, crate::signing::bulk::worker::EVERY);
        assert_eq!(c.bulk_send, crate::signing::bulk::Limits::default());
    }

    #[test]
    fn the_smtp_password_can_come_from_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pw");
        std::fs::write(&file, "s3cret:/@ %41\n").unwrap();
        let file = file.to_str().unwrap();
        let c = config(&["--smtp-url", "smtp://me@h", "--smtp-password-file", file]).unwrap();
        let url = c.smtp.unwrap();
        let plain = crate::outbox::mail::smtp::SmtpUrl::parse("smtp://me@h").unwrap();
        assert_eq!(url, plain.with_password("s3cret:/@ %41".into()).unwrap());
        let both = config(&["--smtp-url", "smtp://me:x@h", "--smtp-password-file", file]);
        assert!(both.unwrap_err().to_string().contains("one place"));
        let missing = dir.path().join("nope").display().to_string();
        let err = config(&[
            "--smtp-url",
            "smtp://me@h",
            "--smtp-password-file",
            &missing,
        ])
        .unwrap_err()
        .to_string();
        assert!(err.contains("nope") && !err.contains("s3cret"), "{err}");
        let argv = ["docket", "serve", "--smtp-password-file", file];
        assert!(
            crate::cli::Cli::try_parse_from(argv).is_err(),
            "needs --smtp-url"
        );
    }

    #[test]
    fn loopback_only_takes_only_a_local_smtp_host() {
        let lo = ["--outbound", "loopback-only", "--smtp-url"];
        for ok in [
            "smtp://127.0.0.1:2525?tls=none",
            "smtp://localhost",
            "smtp://[::1]:25",
        ] {
            let c = config(&[lo.as_slice(), &[ok]].concat()).unwrap();
            assert_eq!(
                c.outbound,
                crate::core::outbound::Outbound::LoopbackOnly,
                "{ok}"
            );
        }
        let err = config(&[lo.as_slice(), &["smtps://mail.example.com"]].concat())
            .unwrap_err()
            .to_string();
        assert!(err.contains("--outbound loopback-only"), "{err}");
        let parse =
            |a: &[&str]| crate::cli::Cli::try_parse_from([&["docket", "serve"], a].concat());
        assert!(parse(&["--outbound", "anywhere"]).is_err());
        assert!(parse(&["--webhook-concurrency", "0"]).is_err());
        let c = config(&[]).unwrap();
        assert_eq!(c.outbound, crate::core::outbound::Outbound::Any);
        assert_eq!(c.webhook_concurrency, 16);
    }

    #[test]
    fn one_queue_lease_overrides_every_queue_or_none_keeps_their_own() {
        assert_eq!(config(&[]).unwrap().queue_lease, None);
        let c = config(&["--queue-lease", "4"]).unwrap();
        assert_eq!(c.queue_lease, Some(crate::core::retry::Lease::secs(4)));
        let parse =
            |a: &[&str]| crate::cli::Cli::try_parse_from([&["docket", "serve"], a].concat());
        // Too short to leave an attempt any time, or not a number of seconds.
        for bad in ["2", "0", "-1", "1.5", "86401"] {
            assert!(parse(&["--queue-lease", bad]).is_err(), "{bad}");
        }
    }
}
