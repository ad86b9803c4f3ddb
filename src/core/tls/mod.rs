//! TLS for `docket serve`: a rustls server config (ring provider) whose certificate comes from
//! the self-issued local CA (`auto`) or from PEM files (`files`), behind a resolver that can swap
//! the certificate while serving (renewal).

pub mod auto;

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use rustls::crypto::ring;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use tokio_rustls::TlsAcceptor;

/// A certificate chain (leaf first) and its private key, as DER.
pub struct Chain {
    pub certs: Vec<CertificateDer<'static>>,
    pub key: PrivateKeyDer<'static>,
}

impl Chain {
    fn certified_key(self) -> Result<CertifiedKey, String> {
        let key = ring::sign::any_supported_type(&self.key)
            .map_err(|e| format!("unsupported private key: {e}"))?;
        Ok(CertifiedKey::new(self.certs, key))
    }

    /// Reads a PEM certificate chain and a PEM private key (PKCS#8, PKCS#1 or SEC1).
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<Chain, String> {
        let certs = CertificateDer::pem_file_iter(cert)
            .and_then(|it| it.collect::<Result<Vec<_>, _>>())
            .map_err(|e| format!("{}: cannot read certificates: {e}", cert.display()))?;
        if certs.is_empty() {
            return Err(format!("{}: no certificate found", cert.display()));
        }
        let key = PrivateKeyDer::from_pem_file(key)
            .map_err(|e| format!("{}: cannot read a private key: {e}", key.display()))?;
        Ok(Chain { certs, key })
    }
}

/// Serves whichever certificate was installed last.
#[derive(Debug)]
pub struct SwappableCert {
    current: RwLock<Arc<CertifiedKey>>,
}

impl SwappableCert {
    fn new(chain: Chain) -> Result<Arc<SwappableCert>, String> {
        Ok(Arc::new(SwappableCert {
            current: RwLock::new(Arc::new(chain.certified_key()?)),
        }))
    }

    /// Installs a new certificate; new handshakes use it at once.
    pub fn replace(&self, chain: Chain) -> Result<(), String> {
        let key = Arc::new(chain.certified_key()?);
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = key;
        Ok(())
    }
}

impl ResolvesServerCert for SwappableCert {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(
            self.current
                .read()
                .unwrap_or_else(|p| p.into_inner())
                .clone(),
        )
    }
}

/// What the server needs to terminate TLS, and what the banner says about it.
pub struct Tls {
    pub acceptor: TlsAcceptor,
    pub certs: Arc<SwappableCert>,
    /// `auto` only: the local CA's path and SHA-256 fingerprint.
    pub ca: Option<(PathBuf, String)>,
}

/// A rustls server config over `certs`, offering HTTP/2 and HTTP/1.1.
pub fn acceptor(certs: Arc<SwappableCert>) -> Result<TlsAcceptor, String> {
    let mut config =
        rustls::ServerConfig::builder_with_provider(Arc::new(ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS configuration: {e}"))?
            .with_no_client_auth()
            .with_cert_resolver(certs);
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// TLS from PEM files (`--tls files`).
pub fn from_files(cert: &Path, key: &Path) -> Result<Tls, String> {
    let certs = SwappableCert::new(Chain::from_pem_files(cert, key)?)?;
    Ok(Tls {
        acceptor: acceptor(certs.clone())?,
        certs,
        ca: None,
    })
}

/// Self-issued TLS (`--tls auto`): the local CA that `source` keeps (made on first use) and a
/// leaf for `names` in `dir`, this node's own, reissued when missing, for other names, or near
/// expiry.
pub fn self_issued(
    source: &crate::core::secrets::Source,
    dir: &Path,
    names: &[String],
) -> Result<Tls, String> {
    let ca = auto::LocalCa::from_source(source)?;
    let chain = auto::ensure_leaf(dir, &ca, names, time::OffsetDateTime::now_utc())?;
    let certs = SwappableCert::new(chain)?;
    Ok(Tls {
        acceptor: acceptor(certs.clone())?,
        certs,
        ca: Some((auto::ca_path(dir), ca.fingerprint())),
    })
}
