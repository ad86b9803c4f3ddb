//! TLS to PostgreSQL, as libpq reads a URL's `sslmode` and `sslrootcert`: the `postgres`
//! crate knows `disable`, `prefer` and `require` but not the two modes that verify the server
//! (`verify-ca`, `verify-full`) nor where the trusted roots are, so those parameters are taken
//! out of the URL here and the rest goes to `postgres::Config`. rustls with ring does the TLS.
//!
//! - `disable`: plain.
//! - `prefer` and `require`: encrypted (`prefer` falls back to plain when the server, or
//!   anything in the path, declines TLS), the certificate not checked, unless `sslrootcert` is
//!   given: then its chain is, as with `verify-ca`.
//! - No `sslmode`: `prefer` to loopback and Unix sockets, where nothing in the path can answer
//!   for the server; `require` to any other host, so that a downgrade cannot pass unseen
//!   (plain text there only with an explicit `sslmode=disable`). See [`default_mode`].
//!
//! What a connection got is told at start by [`Link`]: a warning when it is not encrypted or
//! the server's certificate is not checked.
//! - `verify-ca`: the certificate must chain to `sslrootcert` (a PEM file), or to Mozilla's
//!   public roots when it is absent or `system`.
//! - `verify-full`: as `verify-ca`, and the certificate must name the host connected to.

use std::path::PathBuf;
use std::sync::Arc;

use percent_encoding::percent_decode_str;
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

/// libpq's `sslmode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    fn parse(value: &str) -> Result<SslMode, String> {
        Ok(match value {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            // libpq's `allow` tries plain first; docket never prefers plain to encrypted.
            other => {
                return Err(format!(
                    "sslmode={other} is not known (give disable, prefer, require, verify-ca or \
                     verify-full)"
                ));
            }
        })
    }

    fn as_str(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }
}

/// Where a URL's hosts are, for the default `sslmode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Every host is a Unix socket directory or a loopback address (or `localhost`): no
    /// network is crossed.
    Local,
    /// At least one host is reached over a network.
    Network,
}

impl Reach {
    /// Of `config`'s hosts (with `hostaddr`, the address connected to decides). No host at
    /// all means the default Unix socket.
    fn of(config: &postgres::Config) -> Reach {
        let addrs = config.get_hostaddrs();
        let local = config
            .get_hosts()
            .iter()
            .enumerate()
            .all(|(i, host)| match host {
                postgres::config::Host::Unix(_) => true,
                postgres::config::Host::Tcp(name) => match addrs.get(i) {
                    Some(addr) => addr.is_loopback(),
                    None => is_loopback_name(name),
                },
            })
            && addrs
                .iter()
                .skip(config.get_hosts().len())
                .all(|a| a.is_loopback());
        if local { Reach::Local } else { Reach::Network }
    }
}

/// `localhost` or a loopback address (127.0.0.0/8, ::1, or IPv4-mapped 127.x).
fn is_loopback_name(name: &str) -> bool {
    let bare = name.trim_start_matches('[').trim_end_matches(']');
    if bare.eq_ignore_ascii_case("localhost") {
        return true;
    }
    match bare.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V6(v6)) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
        Ok(ip) => ip.is_loopback(),
        Err(_) => false,
    }
}

/// The `sslmode` of a URL that gives none: libpq's `prefer` where no network is crossed,
/// `require` elsewhere. `prefer` takes plain text from anything in the path that answers "no
/// TLS here", with nothing to show for it; every query and the sealed shared secrets would
/// then cross in plain text.
pub fn default_mode(reach: Reach) -> SslMode {
    match reach {
        Reach::Local => SslMode::Prefer,
        Reach::Network => SslMode::Require,
    }
}

/// What a connection turned out to be, for the warning at start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Link {
    /// Over a Unix socket: no network, and PostgreSQL has no TLS there.
    Socket,
    /// Plain text over TCP.
    Plain { mode: SslMode, given: bool },
    /// Encrypted, to whoever answered: the certificate is not checked.
    Unverified { mode: SslMode },
    /// Encrypted, the certificate checked (its chain, and with `verify-full` its name).
    Verified,
}

impl Link {
    /// The warning to log at start, if any: every link but a verified or a socket one.
    pub fn warning(&self) -> Option<String> {
        match self {
            Link::Socket | Link::Verified => None,
            Link::Plain {
                mode: SslMode::Disable,
                ..
            } => Some(
                "the connection to PostgreSQL is not encrypted (sslmode=disable): queries and \
                 the sealed shared secrets cross the network in plain text"
                    .into(),
            ),
            Link::Plain { mode, given } => Some(format!(
                "the connection to PostgreSQL is not encrypted: with sslmode={}{} the server, or \
                 something in the path, declined TLS, and queries and the sealed shared secrets \
                 cross in plain text; give sslmode=verify-full and sslrootcert=FILE",
                mode.as_str(),
                if *given {
                    ""
                } else {
                    " (the default on loopback)"
                },
            )),
            Link::Unverified { mode } => Some(format!(
                "the connection to PostgreSQL is encrypted but the server's certificate is not \
                 checked (sslmode={} without sslrootcert): whoever answers in the path can pose \
                 as the server; give sslmode=verify-full and sslrootcert=FILE",
                mode.as_str()
            )),
        }
    }
}

/// The certificates that vouch for the server (`sslrootcert`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Roots {
    /// A PEM file of one or more CA certificates.
    File(PathBuf),
    /// `system`, or no `sslrootcert` with a `verify-` mode: Mozilla's public roots, built in.
    Public,
}

/// What the server's certificate is checked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// Nothing: the connection is encrypted, but to whoever answers.
    Nothing,
    /// That it chains to `Roots`.
    Chain(Roots),
    /// That it chains to `Roots` and names the host.
    ChainAndName(Roots),
}

/// A PostgreSQL URL read: the connection settings and the TLS they ask for.
pub struct PgUrl {
    pub config: postgres::Config,
    /// The same settings for the async client of point reads (`pg_async`).
    pub async_config: tokio_postgres::Config,
    pub check: Check,
    /// The `sslmode` in effect: the URL's, or [`default_mode`] of its hosts.
    pub mode: SslMode,
    /// Whether the URL gave `sslmode`.
    pub mode_given: bool,
}

impl PgUrl {
    /// Reads a `postgres://` URL. Touches no file: an `sslrootcert` is read by `connector`.
    pub fn parse(url: &str) -> Result<PgUrl, String> {
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let mut given = None;
        let mut root_cert = None;
        let mut rest = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = percent_decode_str(value)
                .decode_utf8()
                .map_err(|_| format!("the {key} parameter is not UTF-8"))?;
            match key {
                "sslmode" => given = Some(SslMode::parse(&value)?),
                "sslrootcert" => root_cert = Some(value.into_owned()),
                "sslcert" | "sslkey" | "sslpassword" => {
                    return Err(format!("{key}: client certificates are not supported"));
                }
                _ => rest.push(pair),
            }
        }
        let remaining = if rest.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{}", rest.join("&"))
        };
        let mut async_config: tokio_postgres::Config =
            remaining.parse().map_err(|e| super::pg::describe(&e))?;
        let mode = given.unwrap_or_else(|| {
            default_mode(Reach::of(&postgres::Config::from(async_config.clone())))
        });
        async_config.ssl_mode(match mode {
            SslMode::Disable => postgres::config::SslMode::Disable,
            SslMode::Prefer => postgres::config::SslMode::Prefer,
            _ => postgres::config::SslMode::Require,
        });
        let config = postgres::Config::from(async_config.clone());
        let roots = root_cert.map(|path| match path.as_str() {
            "system" => Roots::Public,
            _ => Roots::File(PathBuf::from(path)),
        });
        let check = match (mode, roots) {
            (SslMode::Disable, _) | (SslMode::Prefer | SslMode::Require, None) => Check::Nothing,
            (SslMode::Prefer | SslMode::Require | SslMode::VerifyCa, roots) => {
                Check::Chain(roots.unwrap_or(Roots::Public))
            }
            (SslMode::VerifyFull, roots) => Check::ChainAndName(roots.unwrap_or(Roots::Public)),
        };
        Ok(PgUrl {
            config,
            async_config,
            check,
            mode,
            mode_given: given.is_some(),
        })
    }

    /// What a connection to this URL is, given whether its TLS handshake ran.
    pub fn link(&self, tls_used: bool) -> Link {
        let sockets_only = !self.config.get_hosts().is_empty()
            && self
                .config
                .get_hosts()
                .iter()
                .all(|h| matches!(h, postgres::config::Host::Unix(_)));
        match (tls_used, &self.check) {
            (false, _) if sockets_only => Link::Socket,
            (false, _) => Link::Plain {
                mode: self.mode,
                given: self.mode_given,
            },
            (true, Check::Nothing) => Link::Unverified { mode: self.mode },
            (true, _) => Link::Verified,
        }
    }

    /// The TLS side of a connection to this URL, its `sslrootcert` read.
    pub fn connector(&self) -> Result<MakeRustlsConnect, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier: Arc<dyn ServerCertVerifier> = match &self.check {
            Check::Nothing => Arc::new(Unchecked(provider.signature_verification_algorithms)),
            Check::Chain(roots) => Arc::new(ChainOnly(webpki(roots, &provider)?)),
            Check::ChainAndName(roots) => webpki(roots, &provider)?,
        };
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS: {e}"))?
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        Ok(MakeRustlsConnect::new(config))
    }
}

/// rustls' own verifier over `roots`: chain and host name.
fn webpki(
    roots: &Roots,
    provider: &Arc<CryptoProvider>,
) -> Result<Arc<WebPkiServerVerifier>, String> {
    let mut store = RootCertStore::empty();
    match roots {
        Roots::Public => store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
        Roots::File(path) => {
            let shown = path.display();
            let certs = CertificateDer::pem_file_iter(path)
                .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
                .map_err(|e| format!("sslrootcert {shown}: {e}"))?;
            let (added, _) = store.add_parsable_certificates(certs);
            if added == 0 {
                return Err(format!("sslrootcert {shown}: no CA certificate in it"));
            }
        }
    }
    WebPkiServerVerifier::builder_with_provider(Arc::new(store), provider.clone())
        .build()
        .map_err(|e| format!("TLS: {e}"))
}

/// `verify-ca`: the chain is checked, the host name is not. rustls checks the name after the
/// chain, so a name error means the chain was good.
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// `prefer` and `require` without `sslrootcert`: any certificate is taken, as libpq does. The
/// handshake's signature is still checked, so the server holds the key of the certificate it
/// shows (which SCRAM's channel binding relies on).
#[derive(Debug)]
struct Unchecked(WebPkiSupportedAlgorithms);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_schemes()
    }
}

#[cfg(test)]
#[path = "pg_tls_tests.rs"]
mod tests;
