//! The command line (clap derive). Every `serve` flag is also a `DOCKET_*` environment variable.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::core::outbound::Outbound;
use crate::logging::LogFormat;

#[derive(Debug, Parser)]
#[command(
    name = "docket",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("DOCKET_COMMIT"), ")"),
    about = "Docket: a self-hosted OAuth 2 provider and document-signing service in one binary",
    long_about = None,
    propagate_version = true,
    after_help = "Start with `docket serve`, then create a user with `docket user add`.\nEvery command takes --data-dir (env DOCKET_DATA_DIR)."
)]
pub struct Cli {
    /// Data directory (database, blobs, TLS, secrets). Default: the platform data dir, e.g. ~/.local/share/docket
    #[arg(long, global = true, env = "DOCKET_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// The database: `sqlite` (default: <data-dir>/docket.db) or postgres://USER:PASS@HOST:PORT/DB?sslmode=... shared by every node
    #[arg(long, global = true, env = "DOCKET_DATABASE_URL", value_name = "URL")]
    pub database_url: Option<String>,

    /// A file holding the database URL (keeps its password off the command line)
    #[arg(
        long,
        global = true,
        env = "DOCKET_DATABASE_URL_FILE",
        value_name = "FILE"
    )]
    pub database_url_file: Option<PathBuf>,

    /// A file (mode 0600) holding the secret key that seals the secrets every node shares, in the database: 64 hex characters or base64 of 32 bytes (`openssl rand -hex 32`). Required with PostgreSQL; the key itself may come in DOCKET_SECRET_KEY instead
    #[arg(
        long,
        global = true,
        env = "DOCKET_SECRET_KEY_FILE",
        value_name = "FILE"
    )]
    pub secret_key_file: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// The secret key from `--secret-key-file` or the variable `DOCKET_SECRET_KEY` (read
    /// from the environment only, so the key itself never stands on a command line).
    pub fn secret_key(&self) -> Result<Option<crate::core::secrets::NodeKey>, String> {
        let text = std::env::var("DOCKET_SECRET_KEY")
            .ok()
            .filter(|t| !t.trim().is_empty());
        crate::core::secrets::NodeKey::from_flags(self.secret_key_file.as_deref(), text.as_deref())
    }

    /// The database the flags name.
    pub fn database(&self) -> Result<crate::core::db::Target, String> {
        crate::core::db::Target::from_flags(
            self.database_url.as_deref(),
            self.database_url_file.as_deref(),
        )
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the server until SIGTERM or Ctrl-C
    Serve(Box<ServeArgs>),
    /// Manage login users
    User(UserArgs),
    /// Manage OAuth clients (apps)
    Client(ClientArgs),
    /// Manage API keys
    Apikey(ApikeyArgs),
    /// Manage teams and their members
    Team(TeamArgs),
    /// Write a consistent copy of the database, blobs and keys to DEST while the server runs
    Backup(BackupArgs),
    /// Outgoing mail: the queue and the outbox
    Mail(MailArgs),
    /// The secrets every node shares: check the secret key against the database
    Secrets(SecretsArgs),
    /// Create or upgrade the database schema (PostgreSQL: once for every node, under a lock)
    Migrate(JsonFlag),
    /// Print version, commit and SQLite version
    Version(JsonFlag),
    /// Render one page of a PDF to PNG on stdout (the server runs this under limits)
    #[command(hide = true)]
    RenderPage(RenderPageArgs),
}

/// `docket render-page`: the child process of a page render; see `pdf/isolated.rs`.
#[derive(Debug, Args)]
pub struct RenderPageArgs {
    /// Page index, 0-based
    #[arg(long)]
    pub page: usize,
    /// Image width in pixels
    #[arg(long)]
    pub width: u32,
    /// The PDF file
    pub pdf: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TlsMode {
    /// Self-issued certificate from a local CA kept in the data dir
    Auto,
    /// Plain HTTP, e.g. behind a reverse proxy that terminates TLS
    Off,
    /// Certificate and key from --tls-cert and --tls-key
    Files,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Socket address to listen on [default: 127.0.0.1:8443, or 127.0.0.1:8080 with --tls off]
    #[arg(long, env = "DOCKET_LISTEN", value_name = "ADDR")]
    pub listen: Option<SocketAddr>,

    /// Base URL of both APIs, used in every URL the server prints or returns [default: https://localhost:<port>]
    #[arg(long, env = "DOCKET_PUBLIC_URL", value_name = "URL")]
    pub public_url: Option<String>,

    /// Base URL of signing links sent to recipients [default: --public-url]
    #[arg(long, env = "DOCKET_APP_URL", value_name = "URL")]
    pub app_url: Option<String>,

    /// TLS mode
    #[arg(long, env = "DOCKET_TLS", value_enum, default_value_t = TlsMode::Auto)]
    pub tls: TlsMode,

    /// PEM certificate chain for --tls files
    #[arg(long, env = "DOCKET_TLS_CERT", value_name = "FILE")]
    pub tls_cert: Option<PathBuf>,

    /// PEM private key for --tls files
    #[arg(long, env = "DOCKET_TLS_KEY", value_name = "FILE")]
    pub tls_key: Option<PathBuf>,

    /// Comma-separated names in the self-issued certificate [default: localhost,127.0.0.1,::1 and the public URL's host]
    #[arg(
        long,
        env = "DOCKET_TLS_NAMES",
        value_name = "NAMES",
        value_delimiter = ','
    )]
    pub tls_names: Vec<String>,

    /// PEM certificate chain that seals completed documents (an RSA key) [default: one issued by the local CA in <data>/tls]
    #[arg(
        long,
        env = "DOCKET_SEAL_CERT",
        value_name = "FILE",
        requires = "seal_key"
    )]
    pub seal_cert: Option<PathBuf>,

    /// PEM private key (RSA, PKCS#8 or PKCS#1) of --seal-cert
    #[arg(
        long,
        env = "DOCKET_SEAL_KEY",
        value_name = "FILE",
        requires = "seal_cert"
    )]
    pub seal_key: Option<PathBuf>,

    /// Where blobs (uploaded and sealed PDFs) live: `file` (<data>/blobs) or
    /// `s3://bucket[/prefix]`, a bucket every node shares, reached with AWS_ENDPOINT_URL,
    /// AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (path-style requests to a custom
    /// endpoint)
    #[arg(
        long,
        env = "DOCKET_BLOB_URL",
        default_value = "file",
        value_name = "URL"
    )]
    pub blob_url: String,

    /// Largest accepted upload, in MiB
    #[arg(long, env = "DOCKET_MAX_UPLOAD_MB", default_value_t = 50, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub max_upload_mb: u64,

    /// Free space (MiB) the data directory's file system must keep: below it new work
    /// (uploads, documents, templates, keys) gets 507 while reads, downloads and documents
    /// already out for signing go on; a quarter of it is held in a reserve file until then.
    /// 0 turns both off
    #[arg(long, env = "DOCKET_MIN_FREE_MB", default_value_t = 256, value_name = "N",
          value_parser = clap::value_parser!(u64).range(0..=(1 << 40)))]
    pub min_free_mb: u64,

    /// API requests a minute per credential (API key or access token); 0 turns the limit off
    #[arg(
        long,
        env = "DOCKET_RATE_LIMIT",
        default_value_t = 1000,
        value_name = "N"
    )]
    pub rate_limit: u64,

    /// Checks of sealed PDFs (the public /verify page and POST /api/v1/verify) a minute per
    /// client address; 0 turns the limit off
    #[arg(
        long,
        env = "DOCKET_CHECK_RATE_LIMIT",
        default_value_t = 10,
        value_name = "N"
    )]
    pub check_rate_limit: u64,

    /// Password checks (argon2id, 19 MiB each) running at once; more wait up to 5 s, then get 503
    /// [default: two per CPU]
    #[arg(long, env = "DOCKET_MAX_PASSWORD_CHECKS", value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub max_password_checks: Option<u16>,

    /// Lifetime of signed upload URLs, in seconds
    #[arg(long, env = "DOCKET_UPLOAD_URL_TTL", default_value_t = 3600, value_name = "SECS",
          value_parser = clap::value_parser!(i64).range(1..=604_800))]
    pub upload_url_ttl: i64,

    /// Lifetime of access tokens, in seconds
    #[arg(long, env = "DOCKET_ACCESS_TOKEN_TTL", default_value_t = 3600, value_name = "SECS",
          value_parser = clap::value_parser!(i64).range(60..=86_400))]
    pub access_token_ttl: i64,

    /// Lifetime of refresh tokens, in seconds
    #[arg(long, env = "DOCKET_REFRESH_TOKEN_TTL", default_value_t = 2_592_000, value_name = "SECS",
          value_parser = clap::value_parser!(i64).range(300..=31_536_000))]
    pub refresh_token_ttl: i64,

    /// Lifetime of authorization codes, in seconds
    #[arg(long, env = "DOCKET_CODE_TTL", default_value_t = 600, value_name = "SECS",
          value_parser = clap::value_parser!(i64).range(10..=3600))]
    pub code_ttl: i64,

    /// Rotate the refresh tokens of confidential clients on every use (public clients always rotate)
    #[arg(long, env = "DOCKET_ROTATE_REFRESH_TOKENS")]
    pub rotate_refresh_tokens: bool,

    /// Outgoing mail server: smtp://[user:pass@]host[:587] (STARTTLS), smtps://[user:pass@]host[:465]
    /// (implicit TLS), or smtp://host[:25]?tls=none (no TLS: a local relay). Without it, mail goes
    /// to the outbox (`docket mail list`)
    #[arg(long, env = "DOCKET_SMTP_URL", value_name = "URL")]
    pub smtp_url: Option<String>,

    /// File holding the SMTP password for the user of --smtp-url (smtp://USER@host), so that it
    /// does not show in the process list as a password inside --smtp-url would; one trailing
    /// newline is ignored
    #[arg(
        long,
        env = "DOCKET_SMTP_PASSWORD_FILE",
        value_name = "FILE",
        requires = "smtp_url"
    )]
    pub smtp_password_file: Option<PathBuf>,

    /// Sender of outgoing mail [default: Docket <docket@HOST>, HOST from the public URL]
    #[arg(long, env = "DOCKET_MAIL_FROM", value_name = "MAILBOX")]
    pub mail_from: Option<String>,

    /// Deliver webhooks to loopback, private, link-local and other internal addresses too
    #[arg(long, env = "DOCKET_ALLOW_PRIVATE_WEBHOOKS")]
    pub allow_private_webhooks: bool,

    /// Webhook deliveries in flight at once (each endpoint has at most one)
    #[arg(long, env = "DOCKET_WEBHOOK_CONCURRENCY", default_value_t = 16, value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..=256))]
    pub webhook_concurrency: u16,

    /// Where webhook deliveries and SMTP may connect: anywhere, or only to localhost and
    /// loopback addresses (tests, staging copies)
    #[arg(long, env = "DOCKET_OUTBOUND", value_enum, default_value_t = Outbound::Any)]
    pub outbound: Outbound,

    /// Page renders at once (each a child process); more wait up to 2 s for a slot, then get 503 [default: the number of CPUs]
    #[arg(long, env = "DOCKET_RENDER_WORKERS", value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=256))]
    pub render_workers: Option<u64>,

    /// Wall-clock time one page render may take, in seconds; a page over it gets a placeholder
    #[arg(long, env = "DOCKET_RENDER_TIMEOUT_SECS", default_value_t = 20, value_name = "SECS",
          value_parser = clap::value_parser!(u64).range(1..=600))]
    pub render_timeout_secs: u64,

    /// Memory (address space) one page render may use, in MiB; a page over it gets a placeholder
    #[arg(long, env = "DOCKET_RENDER_MEMORY_MB", default_value_t = 512, value_name = "N",
          value_parser = clap::value_parser!(u64).range(128..=65_536))]
    pub render_memory_mb: u64,

    /// The program run as `<FILE> render-page ...` to render pages (for tests) [default: this binary]
    #[arg(long, env = "DOCKET_RENDER_EXE", value_name = "FILE", hide = true)]
    pub render_exe: Option<PathBuf>,

    /// Webhook endpoints an account may have at once (its own and its apps' together)
    #[arg(long, env = "DOCKET_MAX_WEBHOOKS_PER_USER", default_value_t = 20, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub max_webhooks_per_user: u32,

    /// Days a message that left the mail queue (sent, filed in the outbox, or given up) is kept
    /// before it is deleted; one-time links leave the kept text as soon as they are sent
    #[arg(long, env = "DOCKET_MAIL_RETENTION_DAYS", default_value_t = crate::outbox::mail::prune::RETENTION_DAYS,
          value_name = "DAYS", value_parser = clap::value_parser!(u64).range(1..=3650))]
    pub mail_retention_days: u64,

    /// First retry delay of the mail and webhook queues, in milliseconds (for tests)
    #[arg(long, env = "DOCKET_RETRY_BASE_MS", default_value_t = 30_000, hide = true,
          value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub retry_base_ms: u64,

    /// Seconds an upload's temp file, or a blob no row refers to, is left before the sweep removes it (for tests: it must exceed the longest upload)
    #[arg(long, env = "DOCKET_ORPHAN_GRACE_SECS", default_value_t = 86_400, hide = true,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub orphan_grace_secs: u64,

    /// Seconds a claimed queue item (a mail, a webhook delivery, a document to seal) is kept
    /// from the other nodes; when its node dies, another takes it over after this. Each
    /// attempt is cut off 2 s before [default: 300 for mail and sealing, 60 for webhooks]
    #[arg(long, env = "DOCKET_QUEUE_LEASE", value_name = "SECS",
          value_parser = clap::value_parser!(u64).range(crate::core::retry::Lease::MIN_SECS..=86_400))]
    pub queue_lease: Option<u64>,

    /// Days a document started through a template's direct link may wait with nobody having
    /// signed it; then it is removed (its link stops working)
    #[arg(long, env = "DOCKET_DIRECT_LINK_EXPIRY_DAYS", default_value_t = 7, value_name = "DAYS",
          value_parser = clap::value_parser!(u64).range(1..=3650))]
    pub direct_link_expiry_days: u64,

    /// Seconds instead of --direct-link-expiry-days (for tests)
    #[arg(long, env = "DOCKET_DIRECT_LINK_EXPIRY_SECS", hide = true, value_name = "SECS",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub direct_link_expiry_secs: Option<u64>,

    /// Seconds between looks for passed deadlines and due reminders (for tests)
    #[arg(long, env = "DOCKET_DEADLINE_SCAN_SECS", hide = true, default_value_t = 60,
          value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub deadline_scan_secs: u64,

    /// Most rows one bulk send's CSV file may have (one document each)
    #[arg(long, env = "DOCKET_BULK_SEND_MAX_ROWS", default_value_t = 500,
          value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub bulk_send_max_rows: u32,

    /// Most documents the bulk sends of one workspace (an account's own, or a team's) send in
    /// an hour; the rest wait for the next hour
    #[arg(long, env = "DOCKET_BULK_SEND_PER_HOUR", default_value_t = 500,
          value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub bulk_send_per_hour: u32,

    /// Seconds between looks for bulk sends to go on with, besides being woken (for tests)
    #[arg(long, env = "DOCKET_BULK_SEND_SCAN_SECS", hide = true, default_value_t = 5,
          value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub bulk_send_scan_secs: u64,

    /// Documents started through one template's direct link that may wait unsigned at once;
    /// past it the link answers 503 (busy) and starts nothing
    #[arg(long, env = "DOCKET_DIRECT_LINK_MAX_OPEN", default_value_t = crate::signing::workflow::direct::MAX_OPEN,
          value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub direct_link_max_open: u32,

    /// Open connections at most; more are accepted and closed at once
    #[arg(long, env = "DOCKET_MAX_CONNECTIONS", default_value_t = 1024, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_connections: u64,

    /// Open connections at most from one client address (IPv6: one /64); trusted proxies count
    /// only toward --max-connections
    #[arg(long, env = "DOCKET_MAX_CONNECTIONS_PER_IP", default_value_t = 64, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_connections_per_ip: u64,

    /// Close a kept-alive connection with no request in flight after this many quiet seconds
    /// (advertised a little shorter in `Keep-Alive: timeout=`); a new one that sends nothing,
    /// and one whose client takes none of a response, after this or 30 s, the shorter
    #[arg(long, env = "DOCKET_IDLE_TIMEOUT_SECS", default_value_t = 120, value_name = "SECS",
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub idle_timeout_secs: u64,

    /// Answer 408 and close the connection when a request body brings no new bytes for this
    /// many seconds
    #[arg(long, env = "DOCKET_BODY_TIMEOUT_SECS", default_value_t = 30, value_name = "SECS",
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub body_timeout_secs: u64,

    /// Comma-separated address ranges of reverse proxies (e.g. 127.0.0.1/32,10.0.0.0/8): only
    /// from these peers is the client address taken from X-Forwarded-For or Forwarded [default:
    /// none, the headers are ignored]
    #[arg(
        long,
        env = "DOCKET_TRUSTED_PROXIES",
        value_name = "CIDRS",
        value_delimiter = ','
    )]
    pub trusted_proxies: Vec<String>,

    /// Log format
    #[arg(long, env = "DOCKET_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Log level or tracing filter (error, warn, info, debug, trace, or e.g. docket=debug)
    #[arg(
        long,
        env = "DOCKET_LOG_LEVEL",
        default_value = "info",
        value_name = "LEVEL"
    )]
    pub log_level: String,
}

#[derive(Debug, Args)]
pub struct JsonFlag {
    /// Print one JSON object (an array for lists) on stdout, for scripts
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct UserArgs {
    #[command(flatten)]
    pub out: JsonFlag,
    #[command(subcommand)]
    pub command: UserCommand,
}

#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Create a login user; prints a generated password once unless --password-stdin
    Add {
        email: String,
        /// Display name
        #[arg(long)]
        name: String,
        /// Username [default: the e-mail's local part, made unique]
        #[arg(long)]
        username: Option<String>,
        /// Account tier
        #[arg(long, default_value = "standard", value_parser = ["standard", "enterprise"])]
        tier: String,
        /// Read the password from the first line of standard input
        #[arg(long)]
        password_stdin: bool,
    },
    /// List users
    List,
    /// Show one user
    Show { email: String },
    /// Set a new password; prints a generated one once unless --password-stdin
    Passwd {
        email: String,
        /// Read the password from the first line of standard input
        #[arg(long)]
        password_stdin: bool,
    },
    /// Change a user's display name
    Rename {
        email: String,
        /// The new display name
        #[arg(long)]
        name: String,
    },
    /// Change a user's e-mail at once (no confirmation mail; the old address is told)
    SetEmail {
        email: String,
        /// The new address
        new_email: String,
    },
    /// Stop a user from logging in; their tokens and keys stop working at once
    Disable { email: String },
    /// Allow a disabled user again
    Enable { email: String },
    /// Change a user's tier
    SetTier {
        email: String,
        #[arg(value_parser = ["standard", "enterprise"])]
        tier: String,
    },
    /// Remove a user's second factors (authenticator app, recovery codes, passkeys) after they
    /// lost them; their sessions end, and they sign in with the password alone until they
    /// enrol again
    ResetFactors { email: String },
}

#[derive(Debug, Args)]
pub struct ClientArgs {
    #[command(flatten)]
    pub out: JsonFlag,
    /// Public URL used in the printed endpoint URLs [default: the one `docket serve` last ran with]
    #[arg(long, global = true, env = "DOCKET_PUBLIC_URL", value_name = "URL")]
    pub public_url: Option<String>,
    #[command(subcommand)]
    pub command: ClientCommand,
}

#[derive(Debug, Subcommand)]
pub enum ClientCommand {
    /// Register an OAuth client; prints the five items the app needs
    Add {
        /// The app's name, shown on the consent page
        #[arg(long)]
        name: String,
        /// Redirect URI (repeatable); compared to requests by exact string equality
        #[arg(long = "redirect-uri", value_name = "URI", required = true)]
        redirect_uris: Vec<String>,
        /// The app's logo (https URL), shown on the consent page
        #[arg(long, value_name = "URL")]
        logo_url: Option<String>,
        /// Link to the app, shown on the consent page
        #[arg(long, value_name = "URL")]
        app_url: Option<String>,
        /// A public client (native or browser app): no secret, PKCE required
        #[arg(long)]
        public: bool,
        /// Limit the client to these scopes (repeatable) [default: every scope]
        #[arg(long = "scope", value_name = "SCOPE")]
        scopes: Vec<String>,
    },
    /// List clients
    List,
    /// Show one client and its endpoint URLs
    Show { client_id: String },
    /// Issue a new client secret; the old one stops working
    RotateSecret { client_id: String },
    /// Remove a client and revoke every token it holds
    Remove { client_id: String },
}

#[derive(Debug, Args)]
pub struct ApikeyArgs {
    #[command(flatten)]
    pub out: JsonFlag,
    #[command(subcommand)]
    pub command: ApikeyCommand,
}

#[derive(Debug, Subcommand)]
pub enum ApikeyCommand {
    /// Create an API key for a user; prints it once
    Create {
        /// The user the key acts as
        #[arg(long, value_name = "EMAIL")]
        user: String,
        /// A name to recognise the key by
        #[arg(long, default_value = "default")]
        name: String,
        /// Expire after N days [default: never]
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=3650))]
        expires_in_days: Option<u32>,
        /// Make it the team's: it acts on the team's documents, templates and webhooks with
        /// the user's role there (the user must be a member)
        #[arg(long, value_name = "SLUG")]
        team: Option<String>,
    },
    /// List API keys
    List {
        /// Only this user's keys
        #[arg(long, value_name = "EMAIL")]
        user: Option<String>,
    },
    /// Revoke an API key
    Revoke { id: i64 },
}

#[derive(Debug, Args)]
pub struct TeamArgs {
    #[command(flatten)]
    pub out: JsonFlag,
    /// Public URL used in the links the mail holds [default: the one `docket serve` last ran with]
    #[arg(long, global = true, env = "DOCKET_PUBLIC_URL", value_name = "URL")]
    pub public_url: Option<String>,
    #[command(subcommand)]
    pub command: TeamCommand,
}

#[derive(Debug, Subcommand)]
pub enum TeamCommand {
    /// List teams
    List,
    /// List a team's members
    Members { slug: String },
    /// Create a team with its first admin
    Create {
        /// The team's name
        name: String,
        /// The team's URLs: /t/SLUG/... (3 to 48 of a-z, 0-9 and inner hyphens)
        #[arg(long)]
        slug: String,
        /// The account that becomes the team's admin
        #[arg(long, value_name = "EMAIL")]
        admin: String,
    },
    /// Add a user to a team
    Add {
        slug: String,
        email: String,
        /// The member's role
        #[arg(long, default_value = "MEMBER", value_parser = TEAM_ROLES, ignore_case = true)]
        role: String,
    },
    /// Remove a user from a team (never its last admin)
    Remove { slug: String, email: String },
    /// Change a member's role (the last admin cannot be demoted)
    Role {
        slug: String,
        email: String,
        #[arg(value_parser = TEAM_ROLES, ignore_case = true)]
        role: String,
    },
    /// Show a team's settings (its name, sender name and the defaults of its new documents and
    /// templates), or change them with the options below
    Settings {
        slug: String,
        /// Rename the team
        #[arg(long)]
        name: Option<String>,
        /// What recipients see the team as (1 to 100 characters; unset: the team's name)
        #[arg(long, value_name = "TEXT")]
        sender_name: Option<String>,
        /// The signing order of new documents
        #[arg(long, value_name = "ORDER")]
        signing_order: Option<String>,
        /// The date format of new documents (one the API's meta.dateFormat takes)
        #[arg(long, value_name = "FORMAT")]
        date_format: Option<String>,
        /// The time zone of new documents (an IANA name such as Europe/Paris)
        #[arg(long, value_name = "ZONE")]
        time_zone: Option<String>,
        /// Where signers go once done (an absolute http or https URL)
        #[arg(long, value_name = "URL")]
        redirect_url: Option<String>,
        /// The language recipients of new documents read their pages and e-mails in (en, de,
        /// fr, es, it, nl, pl or pt; unset: each member's own)
        #[arg(long, value_name = "CODE")]
        language: Option<String>,
        /// How long each recipient of new documents has once sent ("14 days", "2 weeks",
        /// "1 month"; a year at most; unset: each member's own)
        #[arg(long, value_name = "PERIOD")]
        expiration_period: Option<String>,
        /// Set a value back to the product's default (repeatable)
        #[arg(long, value_name = "SETTING", value_parser = TEAM_SETTINGS)]
        clear: Vec<String>,
    },
    /// Invite an e-mail address to a team: mails a link that works once, for 7 days, and prints it
    Invite {
        slug: String,
        email: String,
        /// The role the invitation gives
        #[arg(long, default_value = "MEMBER", value_parser = TEAM_ROLES, ignore_case = true)]
        role: String,
    },
    /// List a team's pending invitations
    Invitations { slug: String },
    /// Revoke a team's pending invitation of an e-mail address: its link stops working
    RevokeInvitation { slug: String, email: String },
}

const TEAM_ROLES: [&str; 3] = ["ADMIN", "MANAGER", "MEMBER"];

/// What `docket team settings --clear` takes.
pub const TEAM_SETTINGS: [&str; 7] = [
    "sender-name",
    "signing-order",
    "date-format",
    "time-zone",
    "redirect-url",
    "language",
    "expiration-period",
];

#[derive(Debug, Args)]
pub struct BackupArgs {
    #[command(flatten)]
    pub out: JsonFlag,
    /// Directory to create; must not exist yet
    pub dest: PathBuf,
    /// The blob store `docket serve` uses; only `file` can be backed up this way
    #[arg(
        long,
        env = "DOCKET_BLOB_URL",
        default_value = "file",
        value_name = "URL"
    )]
    pub blob_url: String,
}

#[derive(Debug, Args)]
pub struct SecretsArgs {
    #[command(flatten)]
    pub out: JsonFlag,
    #[command(subcommand)]
    pub command: SecretsCommand,
}

#[derive(Debug, Subcommand)]
pub enum SecretsCommand {
    /// Say where the secrets live; with a secret key, check that it opens every shared secret
    /// of the database (the first node's key becomes the database's), without printing any
    Check,
}

#[derive(Debug, Args)]
pub struct MailArgs {
    #[command(flatten)]
    pub out: JsonFlag,
    #[command(subcommand)]
    pub command: MailCommand,
}

#[derive(Debug, Subcommand)]
pub enum MailCommand {
    /// List queued, sent, outbox and failed messages, newest first (never their bodies)
    List {
        /// Only messages with this status
        #[arg(long, value_parser = ["QUEUED", "SENT", "OUTBOX", "FAILED"])]
        status: Option<String>,
        /// At most this many
        #[arg(long, default_value_t = 100)]
        limit: i64,
    },
    /// Show one message whole (it may hold a signing link: forward it only to its recipient)
    Show { id: i64 },
    /// Queue a test message to ADDRESS; the running server sends it
    Test {
        #[arg(value_name = "ADDRESS")]
        to: String,
    },
}
