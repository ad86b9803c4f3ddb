//! What every handler is given: the appliance's services and settings, built once by the
//! composition root (`app`), cheap to clone, no globals.

use std::sync::Arc;

use url::Url;

use crate::core::datadir::DataDir;
use crate::core::db::Db;
use crate::core::keyring::KeyRing;
use crate::core::retry::Workers;
use crate::{core::blob::BlobStore, core::blob::UrlSigner};

/// The settings handlers read, taken from the configuration by the composition root.
#[derive(Debug, Clone)]
pub struct Settings {
    pub lifetimes: crate::oauth::tokens::Lifetimes,
    pub rotate_refresh_tokens: bool,
    pub max_upload_bytes: u64,
    /// How long a signed upload URL stays valid, in seconds.
    pub upload_url_ttl: i64,
    pub max_webhooks_per_user: u32,
    /// A template's direct-link documents that may wait unsigned at once.
    pub direct_link_max_open: u32,
    /// Bulk sends' rows per file and documents per hour.
    pub bulk_send: crate::signing::bulk::Limits,
    /// The server speaks HTTPS itself (cookies are then `Secure`).
    pub tls: bool,
}

/// What bounds the public check of sealed PDFs.
pub struct SealChecks {
    pub per_client: crate::core::ratelimit::RateLimiter,
    pub at_once: crate::signing::workflow::seal_check::Checks,
}

/// A URL without its trailing slash.
fn base(url: &Url) -> String {
    url.as_str().trim_end_matches('/').to_string()
}

/// Shared by every handler, no globals: one pointer to the appliance's services, so that a
/// clone (warp gives one to each filter that asks, several a request) is one reference count,
/// not one for each service (issue 27's profile of `/me`: cloning and dropping the services
/// one by one took about 6 % of the server's CPU).
#[derive(Clone)]
pub struct AppState(Arc<Services>);

impl AppState {
    pub fn new(services: Services) -> AppState {
        AppState(Arc::new(services))
    }
}

impl std::ops::Deref for AppState {
    type Target = Services;

    fn deref(&self) -> &Services {
        &self.0
    }
}

/// The appliance's services and settings, built once by the composition root.
pub struct Services {
    pub config: Arc<Settings>,
    pub public_url: Arc<Url>,
    pub app_url: Arc<Url>,
    pub db: Db,
    pub blobs: BlobStore,
    /// Rendered pages of uploaded PDFs, for the signing page.
    pub pages: crate::signing::pdf::PageCache,
    /// The certificate and key that sign sealed PDFs.
    pub seal: Arc<crate::signing::workflow::sealing::SealKey>,
    pub signer: UrlSigner,
    /// HMAC keys for signed URLs and CSRF tokens.
    pub keys: Arc<KeyRing>,
    pub data: Arc<DataDir>,
    pub limiter: Arc<crate::core::ratelimit::RateLimiter>,
    /// The public check of sealed PDFs: its budget per client address (`--check-rate-limit`)
    /// and its bound on checks at once.
    pub seal_checks: SealChecks,
    /// The bound on concurrent password checks (`--max-password-checks`).
    pub passwords: crate::identity::users::checks::PasswordChecks,
    /// Wakes the mail and webhook workers and the sealer after a commit that queued their work.
    pub workers: Workers,
    /// Encrypts webhook secrets at rest.
    pub webhook_secrets: Arc<crate::core::crypto::SecretBox>,
    /// Checks second factors (TOTP, passkeys) for logins and recipient authentication.
    pub factors: crate::identity::factors::Verifier,
    /// Signs OpenID Connect ID tokens.
    pub id_tokens: Arc<crate::oauth::oidc::IdTokens>,
    /// Free space in the data directory (`--min-free-mb`).
    pub disk: crate::core::disk_space::DiskSpace,
    /// The credentials, clients and introspections this server verified a moment ago: its
    /// own, so that servers sharing a process (the tests' nodes) remember nothing of each
    /// other's.
    pub verified: crate::oauth::verified::Caches,
}

impl Services {
    /// The issuer: the public URL without a trailing slash.
    pub fn issuer(&self) -> String {
        base(&self.public_url)
    }

    pub fn tls(&self) -> bool {
        self.config.tls
    }

    /// The base of signing links (`--app-url`), without a trailing slash.
    pub fn app_base(&self) -> String {
        base(&self.app_url)
    }

    /// What the domain's use cases are given.
    pub fn ctx(&self) -> crate::core::context::Context {
        crate::core::context::Context {
            db: self.db.clone(),
            blobs: self.blobs.clone(),
            workers: self.workers.clone(),
            app: self.app_base(),
            disk: self.disk.clone(),
        }
    }
}
