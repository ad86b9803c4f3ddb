//! The seal certificate: an RSA key and a certificate chain (seal certificate first) that sign
//! sealed PDFs. Either issued by the local CA of `<data>/tls/` and kept beside it as
//! `seal.pem` / `seal-key.pem` (with a secret key: by the shared local CA, and kept in the
//! database's shared secrets), or read from PEM files given with `--seal-cert` / `--seal-key`.

use std::path::{Path, PathBuf};

use der::{Decode, Encode};
use rsa::pkcs1::DecodeRsaPrivateKey;
use rsa::pkcs8::{DecodePrivateKey, EncodePrivateKey, EncodePublicKey};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use time::{Duration, OffsetDateTime};

use crate::core::datadir::write_atomic;
use crate::core::secrets::Source;
use crate::{core::tls::auto::LocalCa, core::tls::auto::PemPair};

/// The seal certificate's name among the database's shared secrets.
const SHARED_SEAL: &str = "seal";

/// The seal certificate lives this long, and is reissued when this many days or fewer remain.
pub const SEAL_DAYS: i64 = 825;
pub const SEAL_RENEW_WITHIN_DAYS: i64 = 60;

/// The common name of every seal certificate the local CA issues.
pub(super) const SEAL_COMMON_NAME: &str = "Docket document seal";

/// Signs sealed PDFs: the certificate chain (seal certificate first, as DER) and its RSA key.
pub struct SealSigner {
    pub(super) chain: Vec<x509_cert::Certificate>,
    pub(super) key: rsa::RsaPrivateKey,
}

impl std::fmt::Debug for SealSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SealSigner")
            .field("subject", &self.subject())
            .field("key", &"***")
            .finish()
    }
}

impl SealSigner {
    /// The seal certificate kept in `tls_dir` (`seal.pem`, `seal-key.pem`), issued by the
    /// local CA there (created first if missing); a new one when missing, unreadable or
    /// within [`SEAL_RENEW_WITHIN_DAYS`] of expiry. The key keeps mode 0600.
    pub fn load_or_create(tls_dir: &Path) -> Result<SealSigner, String> {
        std::fs::create_dir_all(tls_dir).map_err(|e| format!("{}: {e}", tls_dir.display()))?;
        let ca = LocalCa::load_or_create(tls_dir)?;
        let (cert_path, key_path) = (tls_dir.join("seal.pem"), tls_dir.join("seal-key.pem"));
        let now = OffsetDateTime::now_utc();
        if cert_path.exists() && key_path.exists() {
            match SealSigner::from_pem_files(&cert_path, &key_path) {
                Ok(signer) if signer.days_left(now) > SEAL_RENEW_WITHIN_DAYS => return Ok(signer),
                Ok(_) => tracing::info!("the seal certificate expires soon; issuing a new one"),
                Err(e) => {
                    tracing::warn!(error = %e, "the seal certificate is unusable; issuing a new one")
                }
            }
        }
        let pair = SealSigner::generate(&ca, now)?;
        write_atomic(&key_path, pair.key.as_bytes(), true)
            .map_err(|e| format!("{}: {e}", key_path.display()))?;
        write_atomic(&cert_path, pair.cert.as_bytes(), false)
            .map_err(|e| format!("{}: {e}", cert_path.display()))?;
        SealSigner::from_pem_files(&cert_path, &key_path)
    }

    /// The seal certificate `source` keeps: the files of `<data>/tls/` as `load_or_create`
    /// keeps them, or the database's `seal` (its certificate issued by the shared local CA;
    /// when there is none yet, the node's own seal files are adopted if that CA issued them).
    /// In the database, one that expires soon is replaced once, whichever node sees it first.
    /// Blocking.
    pub fn from_source(source: &Source) -> Result<SealSigner, String> {
        let shared = match source {
            Source::Files(dirs) => return SealSigner::load_or_create(&dirs.tls),
            Source::Database(shared) => shared,
        };
        let ca = LocalCa::from_source(source)?;
        let now = OffsetDateTime::now_utc();
        let stored = match shared.get(SHARED_SEAL)? {
            Some(stored) => stored,
            None => {
                let first = match SealSigner::adoptable(&shared.dirs().tls, &ca, now) {
                    Some(pair) => pair,
                    None => SealSigner::generate(&ca, now)?,
                };
                shared.insert(SHARED_SEAL, &first.to_bytes())?;
                shared
                    .get(SHARED_SEAL)?
                    .ok_or("the shared seal certificate vanished after it was stored")?
            }
        };
        match SealSigner::parse_pair(&stored.plain) {
            Ok(signer) if signer.days_left(now) > SEAL_RENEW_WITHIN_DAYS => return Ok(signer),
            Ok(_) => tracing::info!("the seal certificate expires soon; issuing a new one"),
            Err(e) => {
                tracing::warn!(error = %e, "the seal certificate is unusable; issuing a new one")
            }
        }
        let fresh = SealSigner::generate(&ca, now)?;
        shared.replace(SHARED_SEAL, &stored, &fresh.to_bytes())?;
        // This node's replacement, or the one another node stored first.
        let current = shared
            .get(SHARED_SEAL)?
            .ok_or("the shared seal certificate vanished after it was replaced")?;
        SealSigner::parse_pair(&current.plain)
    }

    /// The files of `tls_dir` that the database's seal certificate replaces, by the value's
    /// name.
    pub fn files_in_database(tls_dir: &Path) -> Vec<(String, PathBuf)> {
        ["seal.pem", "seal-key.pem"]
            .map(|file| (SHARED_SEAL.to_string(), tls_dir.join(file)))
            .to_vec()
    }

    /// The seal files in `tls_dir` when they read, are not due for renewal and were issued by
    /// `ca`.
    fn adoptable(tls_dir: &Path, ca: &LocalCa, now: OffsetDateTime) -> Option<PemPair> {
        let (cert, key) = (tls_dir.join("seal.pem"), tls_dir.join("seal-key.pem"));
        let signer = SealSigner::from_pem_files(&cert, &key).ok()?;
        let issuer = signer.chain.get(1)?.to_der().ok()?;
        (signer.days_left(now) > SEAL_RENEW_WITHIN_DAYS && issuer == ca.der()).then_some(())?;
        Some(PemPair::of(
            &std::fs::read_to_string(&cert).ok()?,
            &std::fs::read_to_string(&key).ok()?,
        ))
    }

    fn parse_pair(bytes: &[u8]) -> Result<SealSigner, String> {
        let pair = PemPair::parse(bytes).map_err(|e| format!("the shared {SHARED_SEAL}: {e}"))?;
        SealSigner::from_pem(
            &pair.cert,
            &pair.key,
            "the shared seal certificate",
            "its key",
        )
    }

    /// A new seal key (RSA 2048) and its certificate from `ca`, valid from `now` for
    /// [`SEAL_DAYS`]: the chain (seal certificate, then the CA) and the PKCS#8 key, as PEM.
    fn generate(ca: &LocalCa, now: OffsetDateTime) -> Result<PemPair, String> {
        let key = rsa::RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 2048)
            .map_err(|e| format!("seal key: {e}"))?;
        let key_der = key.to_pkcs8_der().map_err(|e| format!("seal key: {e}"))?;
        let key_pair =
            rcgen::KeyPair::try_from(key_der.as_bytes()).map_err(|e| format!("seal key: {e}"))?;
        let cert_pem = ca.issue_seal(&key_pair, now, SEAL_DAYS)?;
        let key_pem = key_der
            .to_pem("PRIVATE KEY", der::pem::LineEnding::LF)
            .map_err(|e| format!("seal key: {e}"))?;
        tracing::info!(
            days = SEAL_DAYS,
            "issued a seal certificate from the local CA"
        );
        Ok(PemPair::of(&cert_pem, &key_pem))
    }

    /// Reads a PEM certificate chain (seal certificate first) and its RSA private key
    /// (PKCS#8 or PKCS#1 PEM); refuses a key that does not belong to the first certificate.
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<SealSigner, String> {
        let cert_pem = std::fs::read(cert)
            .map_err(|e| format!("{}: cannot read certificates: {e}", cert.display()))?;
        let key_pem = std::fs::read_to_string(key)
            .map_err(|e| format!("{}: cannot read: {e}", key.display()))?;
        let cert_pem = String::from_utf8(cert_pem)
            .map_err(|_| format!("{}: cannot read certificates: not PEM", cert.display()))?;
        SealSigner::from_pem(
            &cert_pem,
            &key_pem,
            &cert.display().to_string(),
            &key.display().to_string(),
        )
    }

    /// As `from_pem_files`, from the PEM texts; `cert_name` and `key_name` say in messages
    /// where they came from.
    fn from_pem(
        cert_pem: &str,
        key_pem: &str,
        cert_name: &str,
        key_name: &str,
    ) -> Result<SealSigner, String> {
        let ders = CertificateDer::pem_slice_iter(cert_pem.as_bytes())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("{cert_name}: cannot read certificates: {e}"))?;
        if ders.is_empty() {
            return Err(format!("{cert_name}: no certificate found"));
        }
        let chain = ders
            .iter()
            .map(|d| x509_cert::Certificate::from_der(d))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("{cert_name}: not an X.509 certificate: {e}"))?;
        let private = rsa::RsaPrivateKey::from_pkcs8_pem(key_pem)
            .or_else(|_| rsa::RsaPrivateKey::from_pkcs1_pem(key_pem))
            .map_err(|_| format!("{key_name}: not an RSA private key in PEM (PKCS#8 or PKCS#1)"))?;
        let public = private
            .to_public_key()
            .to_public_key_der()
            .map_err(|e| format!("{key_name}: {e}"))?;
        let in_cert = chain[0]
            .tbs_certificate
            .subject_public_key_info
            .to_der()
            .map_err(|e| format!("{cert_name}: {e}"))?;
        if public.as_bytes() != in_cert.as_slice() {
            return Err(format!(
                "{key_name} does not belong to the certificate in {cert_name}"
            ));
        }
        Ok(SealSigner {
            chain,
            key: private,
        })
    }

    /// The seal certificate's subject, e.g. `CN=Docket document seal`.
    pub fn subject(&self) -> String {
        self.chain[0].tbs_certificate.subject.to_string()
    }

    fn days_left(&self, now: OffsetDateTime) -> i64 {
        let not_after = self.chain[0]
            .tbs_certificate
            .validity
            .not_after
            .to_unix_duration();
        (not_after.as_secs() as i64 - now.unix_timestamp()) / 86_400
    }
}

impl LocalCa {
    /// Issues the document-seal certificate for `key`, valid from `now` for `days`; returns
    /// the PEM chain (seal certificate, then this CA).
    pub fn issue_seal(
        &self,
        key: &rcgen::KeyPair,
        now: OffsetDateTime,
        days: i64,
    ) -> Result<String, String> {
        use rcgen::{CertificateParams, DistinguishedName, DnType, IsCa, KeyUsagePurpose};
        let mut params = CertificateParams::default();
        let mut dn = DistinguishedName::new();
        dn.push(DnType::OrganizationName, "Docket");
        dn.push(DnType::CommonName, SEAL_COMMON_NAME);
        params.distinguished_name = dn;
        params.is_ca = IsCa::ExplicitNoCa;
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::ContentCommitment,
        ];
        params.use_authority_key_identifier_extension = true;
        params.not_before = now - Duration::hours(1);
        params.not_after = now + Duration::days(days);
        let cert = self.sign_params(params, key)?;
        Ok(format!("{}{}", cert.pem(), self.cert_pem))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_once_reused_and_key_kept_private() {
        let tmp = tempfile::tempdir().unwrap();
        let a = SealSigner::load_or_create(tmp.path()).unwrap();
        let b = SealSigner::load_or_create(tmp.path()).unwrap();
        assert_eq!(a.chain, b.chain, "reused while valid");
        assert_eq!(a.chain.len(), 2, "seal certificate and CA");
        assert!(a.subject().contains("Docket document seal"));
        assert!(tmp.path().join("ca.pem").exists());
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(tmp.path().join("seal-key.pem"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(a.days_left(OffsetDateTime::now_utc()) > SEAL_DAYS - 2);
        assert!(!format!("{a:?}").contains("BEGIN"));
    }

    #[test]
    fn nodes_of_one_database_share_one_seal_certificate() {
        let tmp = tempfile::tempdir().unwrap();
        let db = crate::core::db::Db::open(&tmp.path().join("t.db"), tmp.path(), 2).unwrap();
        let key = crate::core::secrets::NodeKey::parse(&"ab".repeat(32)).unwrap();
        let node = |name: &str| {
            let dirs = crate::core::secrets::Dirs {
                secrets: tmp.path().join(name),
                tls: tmp.path().join(name),
            };
            std::fs::create_dir_all(&dirs.tls).unwrap();
            Source::Database(crate::core::secrets::Shared::open(db.clone(), &key, dirs).unwrap())
        };
        let (a, b) = (node("a"), node("b"));
        let seal_a = SealSigner::from_source(&a).unwrap();
        let seal_b = SealSigner::from_source(&b).unwrap();
        assert_eq!(seal_a.chain, seal_b.chain);
        assert_eq!(seal_a.key, seal_b.key);
        assert!(
            !tmp.path().join("a/seal-key.pem").exists(),
            "kept in the database"
        );
        let ca = LocalCa::from_source(&b).unwrap();
        assert_eq!(seal_a.chain[1].to_der().unwrap(), ca.der());
    }

    #[test]
    fn a_key_of_another_certificate_is_refused() {
        let one = tempfile::tempdir().unwrap();
        let two = tempfile::tempdir().unwrap();
        SealSigner::load_or_create(one.path()).unwrap();
        SealSigner::load_or_create(two.path()).unwrap();
        let err = SealSigner::from_pem_files(
            &one.path().join("seal.pem"),
            &two.path().join("seal-key.pem"),
        )
        .unwrap_err();
        assert!(err.contains("does not belong"), "{err}");
        let err = SealSigner::from_pem_files(
            &one.path().join("missing.pem"),
            &one.path().join("seal-key.pem"),
        )
        .unwrap_err();
        assert!(err.contains("missing.pem"), "{err}");
        // The TLS leaf key (ECDSA) is not an RSA key.
        let err =
            SealSigner::from_pem_files(&one.path().join("seal.pem"), &one.path().join("ca.key"))
                .unwrap_err();
        assert!(err.contains("RSA"), "{err}");
    }
}
