//! The self-issued certificates of `--tls auto`: a local CA kept in `<data>/tls/` (`ca.pem`,
//! `ca.key`) and a leaf for the configured names (`server.pem`, `server.key`). The CA lives ten
//! years; leaves live 90 days and are reissued when 30 or fewer remain or the names change.

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, SerialNumber,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use time::{Duration, OffsetDateTime};

use super::Chain;
use crate::core::datadir::write_atomic;
use crate::core::secrets::Source;

/// The local CA's name among the database's shared secrets.
const SHARED_CA: &str = "local-ca";

pub const LEAF_DAYS: i64 = 90;
pub const RENEW_WITHIN_DAYS: i64 = 30;
const CA_YEARS: i64 = 10;

pub fn ca_path(dir: &Path) -> PathBuf {
    dir.join("ca.pem")
}
fn ca_key_path(dir: &Path) -> PathBuf {
    dir.join("ca.key")
}
fn leaf_path(dir: &Path) -> PathBuf {
    dir.join("server.pem")
}
fn leaf_key_path(dir: &Path) -> PathBuf {
    dir.join("server.key")
}

fn io_err(path: &Path, e: impl std::fmt::Display) -> String {
    format!("{}: {e}", path.display())
}

fn serial() -> SerialNumber {
    let mut bytes = crate::core::crypto::random_bytes(16);
    bytes[0] &= 0x7f; // positive
    SerialNumber::from_slice(&bytes)
}

/// The local certificate authority.
pub struct LocalCa {
    pub cert_pem: String,
    der: CertificateDer<'static>,
    key: KeyPair,
}

impl LocalCa {
    /// Loads the CA from `dir`, or makes one (and writes it) when there is none.
    pub fn load_or_create(dir: &Path) -> Result<LocalCa, String> {
        let (cert, key) = (ca_path(dir), ca_key_path(dir));
        if cert.exists() && key.exists() {
            return LocalCa::read(dir);
        }
        let ca = LocalCa::generate()?;
        write_atomic(&key, ca.key.serialize_pem().as_bytes(), true).map_err(|e| io_err(&key, e))?;
        write_atomic(&cert, ca.cert_pem.as_bytes(), false).map_err(|e| io_err(&cert, e))?;
        Ok(ca)
    }

    /// The CA `source` keeps: the files of `<data>/tls/` as `load_or_create` reads and makes
    /// them, or the database's `local-ca` (when there is none yet, the node's own CA files are
    /// adopted, or a new CA is made). In the database case the certificate, which is public,
    /// is also written to `<data>/tls/ca.pem` for clients to trust. Blocking.
    pub fn from_source(source: &Source) -> Result<LocalCa, String> {
        let shared = match source {
            Source::Files(dirs) => return LocalCa::load_or_create(&dirs.tls),
            Source::Database(shared) => shared,
        };
        let dir = shared.dirs().tls.clone();
        let stored = shared.get_or_create(SHARED_CA, || {
            let ca = match (ca_path(&dir).exists() && ca_key_path(&dir).exists())
                .then(|| LocalCa::read(&dir))
            {
                Some(Ok(adopted)) => adopted,
                _ => LocalCa::generate()?,
            };
            Ok(PemPair::of(&ca.cert_pem, &ca.key.serialize_pem()).to_bytes())
        })?;
        let pair = PemPair::parse(&stored).map_err(|e| format!("the shared {SHARED_CA}: {e}"))?;
        let ca = LocalCa::parse(&pair.cert, &pair.key)
            .map_err(|e| format!("the shared {SHARED_CA}: {e}"))?;
        let path = ca_path(&dir);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(ca.cert_pem.as_str()) {
            // A leaf this node kept from another CA (its own, before it joined) would be served
            // with a chain that does not hold: it goes, and `ensure_leaf` issues one from this CA.
            for leaf in [leaf_path(&dir), leaf_key_path(&dir)] {
                match std::fs::remove_file(&leaf) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(io_err(&leaf, e));
                    }
                    _ => {}
                }
            }
            write_atomic(&path, ca.cert_pem.as_bytes(), false).map_err(|e| io_err(&path, e))?;
        }
        Ok(ca)
    }

    /// The files of `dir` that the database's CA replaces, by the value's name: its key (the
    /// certificate, public, stays for clients to trust).
    pub fn files_in_database(dir: &Path) -> Vec<(String, PathBuf)> {
        vec![(SHARED_CA.to_string(), ca_key_path(dir))]
    }

    /// Whether `dir` holds a CA key an earlier single node kept.
    pub fn has_key_file(dir: &Path) -> bool {
        ca_key_path(dir).exists()
    }

    /// The CA in the files of `dir`.
    fn read(dir: &Path) -> Result<LocalCa, String> {
        let (cert, key) = (ca_path(dir), ca_key_path(dir));
        let cert_pem = std::fs::read_to_string(&cert).map_err(|e| io_err(&cert, e))?;
        let key_pem = std::fs::read_to_string(&key).map_err(|e| io_err(&key, e))?;
        let parsed_key = KeyPair::from_pem(&key_pem).map_err(|e| io_err(&key, e))?;
        let der = pem_to_der(&cert_pem).map_err(|e| io_err(&cert, e))?;
        Ok(LocalCa {
            cert_pem,
            der,
            key: parsed_key,
        })
    }

    /// A CA from its certificate and key, as PEM.
    fn parse(cert_pem: &str, key_pem: &str) -> Result<LocalCa, String> {
        Ok(LocalCa {
            der: pem_to_der(cert_pem).map_err(|e| format!("the CA certificate: {e}"))?,
            key: KeyPair::from_pem(key_pem).map_err(|e| format!("the CA key: {e}"))?,
            cert_pem: cert_pem.to_string(),
        })
    }

    /// A new CA (ECDSA P-256, ten years).
    fn generate() -> Result<LocalCa, String> {
        let key_pair = KeyPair::generate().map_err(|e| format!("CA key: {e}"))?;
        let mut params = CertificateParams::default();
        let mut dn = DistinguishedName::new();
        dn.push(DnType::OrganizationName, "Docket");
        dn.push(
            DnType::CommonName,
            format!("Docket local CA {}", hostname()),
        );
        params.distinguished_name = dn;
        params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let now = OffsetDateTime::now_utc();
        params.not_before = now - Duration::hours(1);
        params.not_after = now + Duration::days(365 * CA_YEARS);
        params.serial_number = Some(serial());
        let cert_obj = params
            .self_signed(&key_pair)
            .map_err(|e| format!("CA certificate: {e}"))?;
        Ok(LocalCa {
            cert_pem: cert_obj.pem(),
            der: cert_obj.der().clone(),
            key: key_pair,
        })
    }

    /// The CA certificate as DER.
    pub fn der(&self) -> &[u8] {
        &self.der
    }

    /// SHA-256 of the CA certificate, as colon-separated uppercase hex (what browsers show).
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.der)
    }

    /// Signs `params` (given a fresh serial number) for `key` with this CA.
    pub fn sign_params(
        &self,
        mut params: CertificateParams,
        key: &KeyPair,
    ) -> Result<rcgen::Certificate, String> {
        let issuer = Issuer::from_ca_cert_pem(&self.cert_pem, &self.key)
            .map_err(|e| format!("CA certificate: {e}"))?;
        params.serial_number = Some(serial());
        params
            .signed_by(key, &issuer)
            .map_err(|e| format!("certificate: {e}"))
    }

    /// Issues a leaf certificate for `names`, valid from `now` for `LEAF_DAYS`.
    pub fn issue_leaf(&self, names: &[String], now: OffsetDateTime) -> Result<Chain, String> {
        let issuer = Issuer::from_ca_cert_pem(&self.cert_pem, &self.key)
            .map_err(|e| format!("CA certificate: {e}"))?;
        let mut params =
            CertificateParams::new(names.to_vec()).map_err(|e| format!("--tls-names: {e}"))?;
        let mut dn = DistinguishedName::new();
        dn.push(
            DnType::CommonName,
            names.first().cloned().unwrap_or_default(),
        );
        params.distinguished_name = dn;
        params.is_ca = IsCa::ExplicitNoCa;
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.use_authority_key_identifier_extension = true;
        params.not_before = now - Duration::hours(1);
        params.not_after = now + Duration::days(LEAF_DAYS);
        params.serial_number = Some(serial());
        let key = KeyPair::generate().map_err(|e| format!("leaf key: {e}"))?;
        let cert = params
            .signed_by(&key, &issuer)
            .map_err(|e| format!("leaf certificate: {e}"))?;
        Ok(Chain {
            certs: vec![cert.der().clone(), self.der.clone()],
            key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        })
    }
}

pub fn fingerprint(der: &[u8]) -> String {
    let digest = crate::core::crypto::sha256_hex(der).to_uppercase();
    digest
        .as_bytes()
        .chunks(2)
        .map(|c| std::str::from_utf8(c).unwrap_or("??"))
        .collect::<Vec<_>>()
        .join(":")
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default()
}

fn pem_to_der(pem: &str) -> Result<CertificateDer<'static>, String> {
    use rustls::pki_types::pem::PemObject;
    CertificateDer::from_pem_slice(pem.as_bytes()).map_err(|e| e.to_string())
}

/// What a stored leaf certificate says about itself.
struct LeafInfo {
    not_after: i64,
    names: Vec<String>,
}

fn inspect(der: &[u8]) -> Option<LeafInfo> {
    use x509_parser::prelude::*;
    let (_, cert) = X509Certificate::from_der(der).ok()?;
    let mut names = Vec::new();
    if let Ok(Some(san)) = cert.subject_alternative_name() {
        for n in &san.value.general_names {
            match n {
                GeneralName::DNSName(d) => names.push(d.to_string()),
                GeneralName::IPAddress(b) => match b.len() {
                    4 => names
                        .push(std::net::Ipv4Addr::from(<[u8; 4]>::try_from(*b).ok()?).to_string()),
                    16 => names
                        .push(std::net::Ipv6Addr::from(<[u8; 16]>::try_from(*b).ok()?).to_string()),
                    _ => {}
                },
                _ => {}
            }
        }
    }
    Some(LeafInfo {
        not_after: cert.validity().not_after.timestamp(),
        names,
    })
}

/// Normalises names for comparison (IP addresses in canonical form, DNS names lowercased).
fn canonical_names(names: &[String]) -> Vec<String> {
    let mut out: Vec<String> = names
        .iter()
        .map(|n| match n.parse::<std::net::IpAddr>() {
            Ok(ip) => ip.to_string(),
            Err(_) => n.to_ascii_lowercase(),
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Why the stored leaf must be reissued, or `None` when it can be kept.
fn renewal_reason(dir: &Path, names: &[String], now: OffsetDateTime) -> Option<&'static str> {
    let Ok(pem) = std::fs::read_to_string(leaf_path(dir)) else {
        return Some("no certificate yet");
    };
    if !leaf_key_path(dir).exists() {
        return Some("its key is missing");
    }
    let Some(info) = pem_to_der(&pem).ok().and_then(|d| inspect(&d)) else {
        return Some("the stored certificate is unreadable");
    };
    if canonical_names(&info.names) != canonical_names(names) {
        return Some("the names changed");
    }
    if info.not_after - now.unix_timestamp() <= RENEW_WITHIN_DAYS * 86_400 {
        return Some("it expires soon");
    }
    None
}

/// The leaf chain for `names`: the stored one when still good, else a new one (written to `dir`).
pub fn ensure_leaf(
    dir: &Path,
    ca: &LocalCa,
    names: &[String],
    now: OffsetDateTime,
) -> Result<Chain, String> {
    match renewal_reason(dir, names, now) {
        None => {
            let chain = Chain::from_pem_files(&leaf_path(dir), &leaf_key_path(dir))?;
            Ok(Chain {
                certs: vec![chain.certs[0].clone(), ca.der.clone()],
                key: chain.key,
            })
        }
        Some(reason) => {
            let chain = ca.issue_leaf(names, now)?;
            let cert_pem = pem_encode("CERTIFICATE", &chain.certs[0]);
            let key_pem = pem_encode("PRIVATE KEY", chain.key.secret_der());
            let (kp, cp) = (leaf_key_path(dir), leaf_path(dir));
            write_atomic(&kp, key_pem.as_bytes(), true).map_err(|e| io_err(&kp, e))?;
            write_atomic(&cp, cert_pem.as_bytes(), false).map_err(|e| io_err(&cp, e))?;
            tracing::info!(reason, names = ?names, days = LEAF_DAYS, "issued a TLS certificate from the local CA");
            Ok(chain)
        }
    }
}

/// True when the leaf stored in `dir` is due for renewal at `now`.
pub fn needs_renewal(dir: &Path, names: &[String], now: OffsetDateTime) -> bool {
    renewal_reason(dir, names, now).is_some()
}

/// A certificate and its key as the database stores them: `{"cert": PEM, "key": PEM}`.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct PemPair {
    pub cert: String,
    pub key: String,
}

impl PemPair {
    pub fn of(cert: &str, key: &str) -> PemPair {
        PemPair {
            cert: cert.to_string(),
            key: key.to_string(),
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    pub fn parse(bytes: &[u8]) -> Result<PemPair, String> {
        serde_json::from_slice(bytes).map_err(|e| format!("not a certificate and key: {e}"))
    }
}

fn pem_encode(label: &str, der: &[u8]) -> String {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in b64.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).unwrap_or_default());
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        vec!["localhost".into(), "127.0.0.1".into(), "::1".into()]
    }

    #[test]
    fn ca_is_created_once_and_reused() {
        let tmp = tempfile::tempdir().unwrap();
        let a = LocalCa::load_or_create(tmp.path()).unwrap();
        let b = LocalCa::load_or_create(tmp.path()).unwrap();
        assert_eq!(a.fingerprint(), b.fingerprint());
        assert_eq!(a.fingerprint().len(), 32 * 3 - 1);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(ca_key_path(tmp.path()))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn leaf_is_kept_until_names_change_or_expiry_nears() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let ca = LocalCa::load_or_create(dir).unwrap();
        let now = OffsetDateTime::now_utc();
        let first = ensure_leaf(dir, &ca, &names(), now).unwrap();
        let again = ensure_leaf(dir, &ca, &names(), now).unwrap();
        assert_eq!(first.certs[0], again.certs[0], "kept while valid");
        assert!(!needs_renewal(dir, &names(), now));

        let in_61_days = now + Duration::days(LEAF_DAYS - RENEW_WITHIN_DAYS + 1);
        assert!(needs_renewal(dir, &names(), in_61_days));
        let renewed = ensure_leaf(dir, &ca, &names(), in_61_days).unwrap();
        assert_ne!(renewed.certs[0], first.certs[0]);

        let mut more = names();
        more.push("docket.example.com".into());
        assert!(needs_renewal(dir, &more, in_61_days));
        let info = inspect(&ensure_leaf(dir, &ca, &more, in_61_days).unwrap().certs[0]).unwrap();
        assert_eq!(canonical_names(&info.names), canonical_names(&more));
    }

    #[test]
    fn a_node_joining_a_database_drops_the_leaf_of_its_own_ca() {
        let tmp = tempfile::tempdir().unwrap();
        let (mine, theirs) = (tmp.path().join("mine"), tmp.path().join("theirs"));
        std::fs::create_dir_all(&mine).unwrap();
        std::fs::create_dir_all(&theirs).unwrap();
        let now = OffsetDateTime::now_utc();
        let own = LocalCa::load_or_create(&mine).unwrap();
        ensure_leaf(&mine, &own, &names(), now).unwrap();
        // The database already has another node's CA.
        let db = crate::core::db::Db::open(&tmp.path().join("t.db"), tmp.path(), 2).unwrap();
        let key = crate::core::secrets::NodeKey::parse(&"cd".repeat(32)).unwrap();
        let node = |dir: &Path| {
            let dirs = crate::core::secrets::Dirs {
                secrets: dir.to_path_buf(),
                tls: dir.to_path_buf(),
            };
            Source::Database(crate::core::secrets::Shared::open(db.clone(), &key, dirs).unwrap())
        };
        let shared = LocalCa::from_source(&node(&theirs)).unwrap();
        let joined = LocalCa::from_source(&node(&mine)).unwrap();
        assert_eq!(joined.fingerprint(), shared.fingerprint());
        assert_ne!(joined.fingerprint(), own.fingerprint());
        assert!(needs_renewal(&mine, &names(), now), "the old leaf is gone");
        let chain = ensure_leaf(&mine, &joined, &names(), now).unwrap();
        assert_eq!(chain.certs[1].as_ref(), shared.der());
        // The leaf it issued stays while the CA does.
        LocalCa::from_source(&node(&mine)).unwrap();
        assert!(!needs_renewal(&mine, &names(), now));
    }

    #[test]
    fn ip_names_become_ip_sans() {
        use rcgen::SanType;
        let sans = CertificateParams::new(names()).unwrap().subject_alt_names;
        assert!(matches!(sans[1], SanType::IpAddress(_)));
        assert!(matches!(sans[0], SanType::DnsName(_)));
    }
}
