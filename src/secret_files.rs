//! At start with a secret key: the plaintext secret files an earlier single node kept (the
//! key ring, the webhook, account and ID token keys in `<data>/secrets/`; the CA and seal keys
//! in `<data>/tls/`) are taken into the database, and removed once it holds them durably. The
//! owners adopt their files when they first load (`keyring`, `webhooks::secret`, `tls::auto`
//! at start; `oauth::oidc` and `pdf::seal` when first needed): those loaded lazily are loaded
//! here when their files are there, so that no plaintext copy waits for a first use.

use std::path::PathBuf;

use crate::core::datadir::DataDir;
use crate::{core::secrets::Shared, core::secrets::Source};

/// Adopts and removes what `data` still holds in plain text beside the database's secrets;
/// with the files source, nothing. A failure keeps the files (as before) and is logged: the
/// server runs on the database's secrets either way. Blocking.
pub fn retire(source: &Source, data: &DataDir, seal_auto: bool) {
    let Source::Database(shared) = source else {
        return;
    };
    adopt_lazy(source, data, seal_auto);
    match retire_in(shared, data) {
        Ok(gone) if gone.is_empty() => {}
        Ok(gone) => tracing::info!(
            files = ?gone,
            "removed secret files the database now holds, sealed under the secret key"
        ),
        Err(e) => tracing::warn!(
            error = %e,
            "secret files the database holds are kept in plain text for now; the next start tries again"
        ),
    }
}

/// Loads the secrets loaded only when first needed, when their files are there to adopt.
fn adopt_lazy(source: &Source, data: &DataDir, seal_auto: bool) {
    let log = |what: &str, e: &dyn std::fmt::Display| tracing::warn!(error = %e, "adopting {what} into the database failed; its file stays");
    if data.secrets().join(crate::oauth::oidc::KEY_FILE).exists()
        && let Err(e) = crate::oauth::oidc::IdTokens::lazy(source.clone()).jwks()
    {
        log("the ID token key", &e);
    }
    let tls = data.tls();
    if crate::core::tls::auto::LocalCa::has_key_file(&tls)
        && let Err(e) = crate::core::tls::auto::LocalCa::from_source(source)
    {
        log("the local CA", &e);
    }
    // With --seal-cert the database's seal is never made: its files stay until it is.
    if seal_auto
        && tls.join("seal-key.pem").exists()
        && let Err(e) = crate::signing::pdf::seal::SealSigner::from_source(source)
    {
        log("the seal certificate", &e);
    }
}

fn retire_in(shared: &Shared, data: &DataDir) -> Result<Vec<PathBuf>, String> {
    let tls = data.tls();
    let mut files = shared.stored_files()?;
    files.extend(crate::core::tls::auto::LocalCa::files_in_database(&tls));
    files.extend(crate::signing::pdf::seal::SealSigner::files_in_database(
        &tls,
    ));
    shared.retire_files(&files)
}
