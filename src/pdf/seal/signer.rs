//! The seal certificate: an RSA key and a certificate chain (seal certificate first) that sign
//! sealed PDFs. Either issued by the local CA of `<data>/tls/` and kept beside it as
//! `seal.pem` / `seal-key.pem`, or read from PEM files given with `--seal-cert` / `--seal-key`.

use std::path::Path;

use der::{Decode, Encode};
use rsa::pkcs1::DecodeRsaPrivateKey;
use rsa::pkcs8::{DecodePrivateKey, EncodePrivateKey, EncodePublicKey};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use time::{Duration, OffsetDateTime};

use crate::datadir::write_atomic;
use crate::tls::auto::LocalCa;

/// The seal certificate lives this long, and is reissued when this many days or fewer remain.
pub const SEAL_DAYS: i64 = 825;
pub const SEAL_RENEW_WITHIN_DAYS: i64 = 60;

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
        let key = rsa::RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 2048)
            .map_err(|e| format!("seal key: {e}"))?;
        let key_der = key.to_pkcs8_der().map_err(|e| format!("seal key: {e}"))?;
        let key_pair =
            rcgen::KeyPair::try_from(key_der.as_bytes()).map_err(|e| format!("seal key: {e}"))?;
        let cert_pem = ca.issue_seal(&key_pair, now, SEAL_DAYS)?;
        let key_pem = key_der
            .to_pem("PRIVATE KEY", der::pem::LineEnding::LF)
            .map_err(|e| format!("seal key: {e}"))?;
        write_atomic(&key_path, key_pem.as_bytes(), true)
            .map_err(|e| format!("{}: {e}", key_path.display()))?;
        write_atomic(&cert_path, cert_pem.as_bytes(), false)
            .map_err(|e| format!("{}: {e}", cert_path.display()))?;
        tracing::info!(
            days = SEAL_DAYS,
            "issued a seal certificate from the local CA"
        );
        SealSigner::from_pem_files(&cert_path, &key_path)
    }

    /// Reads a PEM certificate chain (seal certificate first) and its RSA private key
    /// (PKCS#8 or PKCS#1 PEM); refuses a key that does not belong to the first certificate.
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<SealSigner, String> {
        let ders = CertificateDer::pem_file_iter(cert)
            .and_then(|it| it.collect::<Result<Vec<_>, _>>())
            .map_err(|e| format!("{}: cannot read certificates: {e}", cert.display()))?;
        if ders.is_empty() {
            return Err(format!("{}: no certificate found", cert.display()));
        }
        let chain = ders
            .iter()
            .map(|d| x509_cert::Certificate::from_der(d))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("{}: not an X.509 certificate: {e}", cert.display()))?;
        let pem = std::fs::read_to_string(key)
            .map_err(|e| format!("{}: cannot read: {e}", key.display()))?;
        let private = rsa::RsaPrivateKey::from_pkcs8_pem(&pem)
            .or_else(|_| rsa::RsaPrivateKey::from_pkcs1_pem(&pem))
            .map_err(|_| {
                format!(
                    "{}: not an RSA private key in PEM (PKCS#8 or PKCS#1)",
                    key.display()
                )
            })?;
        let public = private
            .to_public_key()
            .to_public_key_der()
            .map_err(|e| format!("{}: {e}", key.display()))?;
        let in_cert = chain[0]
            .tbs_certificate
            .subject_public_key_info
            .to_der()
            .map_err(|e| format!("{}: {e}", cert.display()))?;
        if public.as_bytes() != in_cert.as_slice() {
            return Err(format!(
                "{} does not belong to the certificate in {}",
                key.display(),
                cert.display()
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
        dn.push(DnType::CommonName, "Docket document seal");
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
