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

/// Each owner of a secret keeps its files and formats, and nodes sharing a database share its
/// secrets: the owners above `core` are checked here, where they all meet.
#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use crate::core::crypto::SecretBox;
    use crate::core::datadir::DataDir;
    use crate::core::keyring::KeyRing;
    use crate::core::secrets::tests::{dirs, key, sqlite};
    use crate::core::secrets::{Shared, Source};

    #[test]
    fn file_mode_keeps_the_same_files_in_the_same_formats() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::open(tmp.path()).unwrap();
        let source = Source::open(&sqlite(tmp.path()), &data, None).unwrap();
        let ring = KeyRing::from_source(&source).unwrap();
        let webhook =
            SecretBox::from_source(&source, crate::outbox::webhooks::SECRETS_FILE).unwrap();
        SecretBox::from_source(&source, crate::identity::factors::SECRETS_FILE).unwrap();
        let mut names: Vec<String> = std::fs::read_dir(data.secrets())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["account-secrets.key", "hmac-1.key", "webhook-secrets.key"]
        );
        for name in &names {
            let path = data.secrets().join(name);
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(text.len(), 44, "{name}: base64 of 32 bytes, no newline");
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{name}");
        }
        // What the old loaders read is what the source made.
        let old = KeyRing::load_or_create(&data.secrets()).unwrap();
        assert_eq!(old.active(), ring.active());
        let sealed = webhook.seal("whsec_x").unwrap();
        let old_box =
            SecretBox::load_or_create_file(&data.secrets(), crate::outbox::webhooks::SECRETS_FILE)
                .unwrap();
        assert_eq!(old_box.open(&sealed).unwrap(), "whsec_x");
        // No row was written.
        let rows = sqlite(tmp.path())
            .read_blocking(|c| Ok(crate::core::secrets::store::all(c)?.len()))
            .unwrap();
        assert_eq!(rows, 0);
    }

    #[test]
    fn a_key_switches_a_single_node_to_the_database_adopting_its_files() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::open(tmp.path()).unwrap();
        let files = Source::files(&data);
        let ring = KeyRing::from_source(&files).unwrap();
        let webhook =
            SecretBox::from_source(&files, crate::outbox::webhooks::SECRETS_FILE).unwrap();
        let sealed = webhook.seal("whsec_kept").unwrap();
        let shared = Source::open(&sqlite(tmp.path()), &data, Some(&key(6))).unwrap();
        let adopted = KeyRing::from_source(&shared).unwrap();
        assert_eq!(adopted.active(), ring.active(), "signed URLs keep working");
        let in_db = SecretBox::from_source(&shared, crate::outbox::webhooks::SECRETS_FILE).unwrap();
        assert_eq!(in_db.open(&sealed).unwrap(), "whsec_kept");
    }

    #[test]
    fn nodes_share_the_local_ca_and_the_id_token_key() {
        let tmp = tempfile::tempdir().unwrap();
        sqlite(tmp.path());
        let node = |name: &str| {
            Source::Database(
                Shared::open(sqlite(tmp.path()), &key(8), dirs(&tmp.path().join(name))).unwrap(),
            )
        };
        let (a, b) = (node("a"), node("b"));
        let ca_a = crate::core::tls::auto::LocalCa::from_source(&a).unwrap();
        let ca_b = crate::core::tls::auto::LocalCa::from_source(&b).unwrap();
        assert_eq!(ca_a.fingerprint(), ca_b.fingerprint());
        for n in ["a", "b"] {
            let dir = tmp.path().join(n).join("tls");
            assert_eq!(
                std::fs::read_to_string(dir.join("ca.pem")).unwrap(),
                ca_a.cert_pem,
                "the public certificate is written for clients to trust"
            );
            assert!(
                !dir.join("ca.key").exists(),
                "the CA key stays in the database"
            );
        }
        let ids = |s: &Source| {
            crate::oauth::oidc::IdTokens::lazy(s.clone())
                .jwks()
                .unwrap()
        };
        assert_eq!(ids(&a), ids(&b), "one ID token key");
    }
}
