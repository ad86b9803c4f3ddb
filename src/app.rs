//! Building the running appliance: data dir, database, keys, blob store, TLS, routes; binding
//! the listener; the banner; serving until a signal; graceful shutdown.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use url::Url;

use crate::core::datadir::DataDir;
use crate::core::db::Db;
use crate::core::keyring::KeyRing;
use crate::http::server::middleware::Options;
use crate::http::server::state::AppState;
use crate::{config::Config, config::StartupError, config::Tls, config::base};
use crate::{core::blob::BlobStore, core::blob::UrlSigner};
use crate::{core::retry::Wake, core::retry::Workers};

/// Connections in the pool: enough readers for two cores plus the one writer SQLite allows.
const POOL_SIZE: u32 = 8;
/// How often the self-issued certificate is checked for renewal while serving.
const RENEWAL_CHECK: Duration = Duration::from_secs(6 * 3600);

/// How long a stop waits for the mail and webhook workers to finish what they are sending.
const WORKER_STOP: Duration = Duration::from_secs(15);

/// A server that is listening.
pub struct Running {
    pub addr: SocketAddr,
    pub public_url: Url,
    pub banner: String,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
    renewal: Option<JoinHandle<()>>,
    /// Hears the revocations other nodes commit (PostgreSQL only; `core::db::notices`).
    notices: Option<JoinHandle<()>>,
    /// The mail and webhook workers, and the signal that stops them.
    workers: Vec<JoinHandle<()>>,
    stop_workers: tokio::sync::watch::Sender<bool>,
}

impl Running {
    /// Stops accepting, drains in-flight requests (10 s cap), and returns when done.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let _ = (&mut self.task).await;
        if let Some(r) = self.renewal.take() {
            r.abort();
        }
        if let Some(n) = self.notices.take() {
            n.abort();
        }
        // Each finishes the message in hand (a send is bounded by its timeouts); one that
        // hangs anyway is dropped: its state is in the database and is redone at the next start.
        let _ = self.stop_workers.send(true);
        for mut w in self.workers.drain(..) {
            if tokio::time::timeout(WORKER_STOP, &mut w).await.is_err() {
                w.abort();
            }
        }
    }
}

/// Opens everything, binds, and starts serving in the background.
pub async fn start(config: Config) -> Result<Running, StartupError> {
    let data = DataDir::open(&config.data_dir).map_err(|source| StartupError::DataDir {
        path: config.data_dir.display().to_string(),
        source,
    })?;
    let (listener, addr) = bind(&config).await?;
    let public_url = config.resolve_public_url(addr);
    let app_url = config.app_url.clone().unwrap_or_else(|| public_url.clone());
    let stores = open_stores(&config, &data, &public_url).await?;
    let notices = stores.db.listen_for_revocations();
    let names = config.tls_names(&public_url);
    let secrets = stores.secrets.clone();
    let tls = load_tls(&config, &secrets, &data, &names).await?;
    let user_count = stores
        .db
        .read(crate::identity::users::store::count)
        .await
        .unwrap_or(0);
    let banner = banner(
        &config,
        addr,
        &public_url,
        &app_url,
        &data,
        tls.as_ref(),
        user_count,
    );
    let seal = load_seal(&config, &secrets).await?;
    let seal_auto = config.seal == crate::config::SealCert::Auto;
    let (source, dir) = (secrets.clone(), data.clone());
    tokio::task::spawn_blocking(move || crate::secret_files::retire(&source, &dir, seal_auto))
        .await
        .map_err(|e| StartupError::Config(format!("startup task failed: {e}")))?;
    let wakes = Workers::default();
    let mail_worker = mail_worker(&config, &public_url, &stores.db, &stores.blobs, &wakes.mail)?;
    let webhook_secrets = stores.webhook_secrets.clone();
    let state = app_state(&config, &data, (&public_url, app_url), stores, seal, &wakes);
    let (workers, stop_workers) = spawn_workers(&config, &state, webhook_secrets, mail_worker);
    let renewal = match (&tls, &config.tls) {
        (Some(t), Tls::Auto { .. }) => Some(tokio::spawn(renew_forever(
            secrets,
            data.tls(),
            names,
            t.certs.clone(),
        ))),
        _ => None,
    };
    let opts = Options {
        tls: tls.is_some(),
        // Uploads are the largest bodies; leave room for multipart framing.
        max_body: config.max_upload_bytes + 1024 * 1024,
        trusted: std::sync::Arc::new(config.trusted_proxies.clone()),
    };
    let (limits, routes) = (config.limits, crate::http::routes(state));
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let acceptor = tls.map(|t| t.acceptor);
    let task = tokio::spawn(async move {
        crate::http::server::serve(listener, acceptor, routes, opts, limits, async {
            let _ = stop_rx.await;
        })
        .await;
    });
    Ok(Running {
        addr,
        public_url,
        banner,
        stop: Some(stop_tx),
        task,
        renewal,
        notices,
        workers,
        stop_workers,
    })
}

/// The listener on `--listen`, and the address it got (the port when 0 was asked).
async fn bind(config: &Config) -> Result<(TcpListener, SocketAddr), StartupError> {
    let bind_err = |source| StartupError::Bind {
        addr: config.listen,
        source,
    };
    let listener = TcpListener::bind(config.listen).await.map_err(bind_err)?;
    let addr = listener.local_addr().map_err(bind_err)?;
    Ok((listener, addr))
}

fn dir_err(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> StartupError + use<> {
    let path = path.display().to_string();
    move |source| StartupError::DataDir { path, source }
}

/// What lives in the data directory: the database, the keys, the blobs and the page cache.
struct Stores {
    db: Db,
    /// Where the secrets live: the data dir's files, or the database (with a secret key).
    secrets: crate::core::secrets::Source,
    ring: KeyRing,
    blobs: BlobStore,
    webhook_secrets: Arc<crate::core::crypto::SecretBox>,
    account_secrets: Arc<crate::core::crypto::SecretBox>,
    pages: crate::signing::pdf::PageCache,
}

/// Opens (creating when new) the stores in `data`, off the async threads; records the public
/// URL for the CLI and removes uploads a crash left unfinished.
async fn open_stores(
    config: &Config,
    data: &DataDir,
    public_url: &Url,
) -> Result<Stores, StartupError> {
    let data = data.clone();
    let render_limits = config.render.clone();
    let blob_url = config.blob_url.clone();
    let public = base(public_url);
    let database = config.database.clone();
    let key = config.secret_key.clone();
    let orphan_grace = config.orphan_grace;
    crate::core::secrets::Source::check_flags(&database, key.as_ref())
        .map_err(StartupError::Config)?;
    tokio::task::spawn_blocking(move || -> Result<_, StartupError> {
        let db = database.open(&data.database(), &data.backups(), POOL_SIZE, true)?;
        let source = crate::core::secrets::Source::open(&db, &data, key.as_ref())
            .map_err(StartupError::Config)?;
        db.write_blocking(move |c| {
            crate::core::settings::set(
                c,
                crate::core::settings::PUBLIC_URL,
                &public,
                crate::core::db::now(),
            )
        })
        .map_err(|e| StartupError::Config(format!("recording the public URL: {e}")))?;
        let ring = KeyRing::from_source(&source).map_err(StartupError::Config)?;
        let blobs = BlobStore::open_url(&blob_url, &data.blobs(), &data.blob_cache())
            .map_err(StartupError::BlobStore)?;
        if blobs.is_remote() {
            tracing::info!(store = %blobs.describe(), "blobs are kept in a bucket");
        }
        let boxed = |file| {
            crate::core::crypto::SecretBox::from_source(&source, file).map_err(StartupError::Config)
        };
        let webhook_secrets = boxed(crate::outbox::webhooks::SECRETS_FILE)?;
        let account_secrets = boxed(crate::identity::factors::SECRETS_FILE)?;
        if let Ok(n @ 1..) = blobs.clean_stale_temp(orphan_grace) {
            tracing::info!(files = n, "removed unfinished uploads left by a crash");
        }
        let pages = crate::signing::pdf::PageCache::open(&data.page_cache(), render_limits)
            .map_err(dir_err(&data.page_cache()))?;
        Ok(Stores {
            db,
            secrets: source,
            ring,
            blobs,
            webhook_secrets: Arc::new(webhook_secrets),
            account_secrets: Arc::new(account_secrets),
            pages,
        })
    })
    .await
    .map_err(|e| StartupError::Config(format!("startup task failed: {e}")))?
}

/// The TLS configuration `--tls` asks for: none, the given files, or a self-issued certificate
/// for `names`.
async fn load_tls(
    config: &Config,
    secrets: &crate::core::secrets::Source,
    data: &DataDir,
    names: &[String],
) -> Result<Option<crate::core::tls::Tls>, StartupError> {
    let (mode, tls_dir, names) = (config.tls.clone(), data.tls(), names.to_vec());
    let secrets = secrets.clone();
    tokio::task::spawn_blocking(move || match mode {
        Tls::Off => Ok(None),
        Tls::Files { cert, key } => crate::core::tls::from_files(&cert, &key).map(Some),
        Tls::Auto { .. } => crate::core::tls::self_issued(&secrets, &tls_dir, &names).map(Some),
    })
    .await
    .map_err(|e| StartupError::Tls(e.to_string()))?
    .map_err(StartupError::Tls)
}

/// The seal certificate: `--seal-cert`/`--seal-key`, checked now, or the local CA's, made
/// when first needed.
async fn load_seal(
    config: &Config,
    secrets: &crate::core::secrets::Source,
) -> Result<crate::signing::workflow::sealing::SealKey, StartupError> {
    use crate::signing::workflow::sealing::SealKey;
    match &config.seal {
        crate::config::SealCert::Auto => Ok(SealKey::lazy(secrets.clone())),
        crate::config::SealCert::Files { cert, key } => {
            let (cert, key) = (cert.clone(), key.clone());
            let signer = tokio::task::spawn_blocking(move || {
                crate::signing::pdf::seal::SealSigner::from_pem_files(&cert, &key)
            })
            .await
            .map_err(|e| StartupError::Config(format!("startup task failed: {e}")))?
            .map_err(|e| StartupError::Config(format!("--seal-cert/--seal-key: {e}")))?;
            Ok(SealKey::given(signer))
        }
    }
}

/// What every handler is given.
fn app_state(
    config: &Config,
    data: &DataDir,
    (public_url, app_url): (&Url, Url),
    stores: Stores,
    seal: crate::signing::workflow::sealing::SealKey,
    wakes: &Workers,
) -> AppState {
    let keys = Arc::new(stores.ring);
    let id_tokens = Arc::new(crate::oauth::oidc::IdTokens::lazy(stores.secrets.clone()));
    let relying_party = crate::identity::factors::passkey::RelyingParty::for_app(&app_url);
    let limiter = crate::core::ratelimit::RateLimiter::new(config.rate_limit, &stores.db);
    let seal_checks = crate::http::server::state::SealChecks {
        per_client: crate::core::ratelimit::RateLimiter::new(config.check_rate_limit, &stores.db),
        at_once: crate::signing::workflow::seal_check::Checks::new(
            crate::signing::workflow::seal_check::default_max(),
        ),
    };
    AppState::new(crate::http::server::state::Services {
        config: Arc::new(crate::http::server::state::Settings {
            lifetimes: config.lifetimes,
            rotate_refresh_tokens: config.rotate_refresh_tokens,
            max_upload_bytes: config.max_upload_bytes,
            upload_url_ttl: config.upload_url_ttl,
            max_webhooks_per_user: config.max_webhooks_per_user,
            direct_link_max_open: config.direct_link_max_open,
            bulk_send: config.bulk_send,
            tls: config.tls_on(),
        }),
        public_url: Arc::new(public_url.clone()),
        app_url: Arc::new(app_url),
        db: stores.db,
        blobs: stores.blobs,
        pages: stores.pages,
        seal: Arc::new(seal),
        signer: UrlSigner::new(keys.clone()),
        keys,
        data: Arc::new(data.clone()),
        limiter: Arc::new(limiter),
        seal_checks,
        passwords: crate::identity::users::checks::PasswordChecks::new(config.max_password_checks),
        workers: wakes.clone(),
        webhook_secrets: stores.webhook_secrets,
        factors: crate::identity::factors::Verifier {
            secrets: stores.account_secrets,
            rp: relying_party,
        },
        id_tokens,
        disk: crate::core::disk_space::DiskSpace::watch(data.root(), config.min_free_bytes),
        verified: crate::oauth::verified::Caches::new(),
    })
}

/// Starts the mail and webhook workers, the mail queue's pruning, the blob sweep, the
/// direct-link expiry, the deadline scan, bulk sends and the sealer; the sender stops them.
fn spawn_workers(
    config: &Config,
    state: &AppState,
    webhook_secrets: Arc<crate::core::crypto::SecretBox>,
    mail_worker: crate::outbox::mail::worker::Worker,
) -> (Vec<JoinHandle<()>>, tokio::sync::watch::Sender<bool>) {
    let webhook_worker = crate::outbox::webhooks::deliver::Worker {
        db: state.db.clone(),
        secrets: webhook_secrets,
        wake: state.workers.webhooks.clone(),
        backoff: crate::outbox::webhooks::deliver::backoff(config.retry_base),
        allow_private: config.allow_private_webhooks,
        concurrency: config.webhook_concurrency,
        outbound: config.outbound,
        lease: config
            .queue_lease
            .unwrap_or(crate::outbox::webhooks::deliver::LEASE),
    };
    // The sealer's first round seals what a stop interrupted and retries failures now due.
    let sealer = crate::signing::workflow::sealing::Sealer {
        db: state.db.clone(),
        blobs: state.blobs.clone(),
        seal: state.seal.clone(),
        app_base: state.app_base(),
        workers: state.workers.clone(),
        backoff: crate::signing::workflow::sealing::backoff(config.retry_base),
        lease: config
            .queue_lease
            .unwrap_or(crate::signing::workflow::sealing::SEAL_LEASE),
    };
    let (stop_workers, stop) = crate::core::retry::Stop::new();
    let sweep = crate::core::blob::sweep::run(
        state.blobs.clone(),
        state.db.clone(),
        config.orphan_grace,
        crate::core::blob::sweep::EVERY,
        stop.clone(),
    );
    let prune =
        crate::outbox::mail::prune::run(state.db.clone(), config.mail_retention, stop.clone());
    let expiry = crate::signing::workflow::direct_expiry::Expiry {
        db: state.db.clone(),
        blobs: state.blobs.clone(),
        workers: state.workers.clone(),
        app: state.app_base(),
        after: config.direct_link_expiry,
    };
    let deadlines = crate::signing::workflow::deadlines::Deadlines {
        db: state.db.clone(),
        workers: state.workers.clone(),
        app: state.app_base(),
        every: config.deadline_scan,
    };
    let bulk = crate::signing::bulk::worker::Worker {
        ctx: state.ctx(),
        limits: config.bulk_send,
        every: config.bulk_send_scan,
    };
    let workers = vec![
        tokio::spawn(mail_worker.run(stop.clone())),
        tokio::spawn(bulk.run(stop.clone())),
        tokio::spawn(deadlines.run(stop.clone())),
        tokio::spawn(prune),
        tokio::spawn(webhook_worker.run(stop.clone())),
        tokio::spawn(sweep),
        tokio::spawn(expiry.run(stop.clone())),
        tokio::spawn(sealer.run(stop)),
    ];
    tokio::spawn(state.disk.clone().watch_forever());
    // The large block the allocator keeps for reuse goes back to the system when idle.
    #[cfg(target_os = "linux")]
    tokio::spawn(async {
        let mut tick = tokio::time::interval(crate::core::large_blocks::KEEP_FOR);
        loop {
            tick.tick().await;
            crate::core::large_blocks::release_idle();
        }
    });
    (workers, stop_workers)
}

/// The mail worker as configured: SMTP with `--smtp-url`, the outbox without.
fn mail_worker(
    config: &Config,
    public_url: &Url,
    db: &Db,
    blobs: &BlobStore,
    wake: &Wake,
) -> Result<crate::outbox::mail::worker::Worker, StartupError> {
    let transport = config
        .smtp
        .as_ref()
        .map(|s| s.transport())
        .transpose()
        .map_err(|e| StartupError::Config(format!("--smtp-url: {e}")))?;
    let from = match &config.mail_from {
        Some(m) => m.clone(),
        None => {
            let host = match public_url.host() {
                Some(url::Host::Domain(d)) => d.to_string(),
                _ => "localhost".to_string(),
            };
            format!("Docket <docket@{host}>").parse().map_err(|e| {
                StartupError::Config(format!("default sender for {host}: {e}; pass --mail-from"))
            })?
        }
    };
    Ok(crate::outbox::mail::worker::Worker {
        db: db.clone(),
        on_sent: std::sync::Arc::new(crate::signing::documents::notify::mail_sent),
        blobs: blobs.clone(),
        transport,
        from,
        wake: wake.clone(),
        backoff: crate::outbox::mail::worker::backoff(config.retry_base),
        lease: config
            .queue_lease
            .unwrap_or(crate::outbox::mail::worker::LEASE),
    })
}

/// Reissues the self-issued leaf when it nears expiry, without a restart.
async fn renew_forever(
    secrets: crate::core::secrets::Source,
    dir: std::path::PathBuf,
    names: Vec<String>,
    certs: Arc<crate::core::tls::SwappableCert>,
) {
    loop {
        tokio::time::sleep(RENEWAL_CHECK).await;
        let (secrets, dir, names) = (secrets.clone(), dir.clone(), names.clone());
        let renewed = tokio::task::spawn_blocking(move || {
            let now = time::OffsetDateTime::now_utc();
            if !crate::core::tls::auto::needs_renewal(&dir, &names, now) {
                return Ok(None);
            }
            let ca = crate::core::tls::auto::LocalCa::from_source(&secrets)?;
            crate::core::tls::auto::ensure_leaf(&dir, &ca, &names, now).map(Some)
        })
        .await;
        match renewed {
            Ok(Ok(Some(chain))) => match certs.replace(chain) {
                Ok(()) => tracing::info!("TLS certificate renewed"),
                Err(e) => tracing::error!(error = %e, "installing the renewed certificate failed"),
            },
            Ok(Ok(None)) => {}
            Ok(Err(e)) => tracing::error!(error = %e, "TLS certificate renewal failed"),
            Err(e) => tracing::error!(error = %e, "TLS renewal task failed"),
        }
    }
}

fn banner(
    config: &Config,
    addr: SocketAddr,
    public_url: &Url,
    app_url: &Url,
    data: &DataDir,
    tls: Option<&crate::core::tls::Tls>,
    users: i64,
) -> String {
    let scheme = if tls.is_some() { "https" } else { "http" };
    let mut lines = vec![
        format!(
            "docket {} ({})",
            crate::core::version::VERSION,
            crate::core::version::COMMIT
        ),
        format!("  listening    {scheme}://{addr}"),
        format!("  public url   {}", base(public_url)),
        format!("  app url      {}", base(app_url)),
        format!("  data dir     {}", data.root().display()),
    ];
    match (&config.tls, tls) {
        (Tls::Off, _) => {
            lines.push("  tls          off (plain HTTP; put a TLS proxy in front)".into())
        }
        (Tls::Files { cert, .. }, _) => {
            lines.push(format!("  tls          files ({})", cert.display()))
        }
        (Tls::Auto { .. }, Some(t)) => {
            if let Some((ca, fp)) = &t.ca {
                lines.push(format!(
                    "  tls          auto (self-issued by the local CA {})",
                    ca.display()
                ));
                lines.push(format!("  ca sha256    {fp}"));
                lines.push(format!(
                    "  trust it     curl --cacert {} {}/healthz",
                    ca.display(),
                    base(public_url)
                ));
                lines.push(format!(
                    "               or: sudo cp {} /usr/local/share/ca-certificates/docket-ca.crt && sudo update-ca-certificates",
                    ca.display()
                ));
            }
        }
        (Tls::Auto { .. }, None) => {}
    }
    if users == 0 {
        lines.push("  no users yet: docket user add you@example.com --name \"Your Name\"".into());
    }
    lines.join("\n")
}

/// `docket serve`: start, print the banner, serve until SIGTERM or SIGINT, drain, return.
pub async fn run(config: Config) -> Result<(), StartupError> {
    // Listen for signals before anyone can learn the address from the banner, so that a
    // SIGTERM sent right after start is a graceful stop and not the default kill.
    let stop = shutdown_signal().map_err(|e| StartupError::Config(format!("signals: {e}")))?;
    let running = start(config).await?;
    println!("{}", running.banner);
    {
        use std::io::Write;
        let _ = std::io::stdout().flush();
    }
    // Under systemd (Type=notify): READY=1 now that the listener is bound, watchdog pings.
    let systemd =
        crate::systemd::Service::ready(&format!("serving on {}", base(&running.public_url)));
    stop.await;
    tracing::info!("signal received; shutting down");
    systemd.stopping();
    running.shutdown().await;
    tracing::info!("stopped");
    Ok(())
}

/// Resolves at the first SIGTERM or SIGINT; the handlers are installed when this returns.
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {},
            _ = int.recv() => {},
        }
    })
}
