//! TLS to PostgreSQL, as libpq reads a URL's `sslmode` and `sslrootcert`: the `postgres`
//! crate knows `disable`, `prefer` and `require` but not the two modes that verify the server
//! (`verify-ca`, `verify-full`) nor where the trusted roots are, so those parameters are taken
//! out of the URL here and the rest goes to `postgres::Config`. rustls with ring does the TLS.
//!
//! - `disable`: plain.
//! - `prefer` (the default) and `require`: encrypted (`prefer` falls back to plain when the
//!   server has no TLS), the certificate not checked, unless `sslrootcert` is given: then its
//!   chain is, as with `verify-ca`.
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
enum SslMode {
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
    pub check: Check,
}

impl PgUrl {
    /// Reads a `postgres://` URL. Touches no file: an `sslrootcert` is read by `connector`.
    pub fn parse(url: &str) -> Result<PgUrl, String> {
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let mut mode = SslMode::Prefer;
        let mut root_cert = None;
        let mut rest = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = percent_decode_str(value)
                .decode_utf8()
                .map_err(|_| format!("the {key} parameter is not UTF-8"))?;
            match key {
                "sslmode" => mode = SslMode::parse(&value)?,
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
        let mut config: postgres::Config =
            remaining.parse().map_err(|e| super::pg::describe(&e))?;
        config.ssl_mode(match mode {
            SslMode::Disable => postgres::config::SslMode::Disable,
            SslMode::Prefer => postgres::config::SslMode::Prefer,
            _ => postgres::config::SslMode::Require,
        });
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
        Ok(PgUrl { config, check })
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
mod tests {
    use super::*;

    fn parse(url: &str) -> PgUrl {
        PgUrl::parse(url).unwrap_or_else(|e| panic!("{url}: {e}"))
    }

    fn pg_mode(url: &PgUrl) -> postgres::config::SslMode {
        url.config.get_ssl_mode()
    }

    #[test]
    fn without_sslmode_tls_is_preferred_and_not_checked() {
        let url = parse("postgres://docket:pw@db.example:5433/docket");
        assert_eq!(url.check, Check::Nothing);
        assert_eq!(pg_mode(&url), postgres::config::SslMode::Prefer);
        assert_eq!(url.config.get_user(), Some("docket"));
        assert_eq!(url.config.get_password(), Some(&b"pw"[..]));
        assert_eq!(url.config.get_dbname(), Some("docket"));
        assert_eq!(url.config.get_ports(), &[5433]);
    }

    #[test]
    fn modes_read_as_libpq_reads_them() {
        let url = parse("postgres://h/d?sslmode=disable");
        assert_eq!(url.check, Check::Nothing);
        assert_eq!(pg_mode(&url), postgres::config::SslMode::Disable);

        let url = parse("postgres://h/d?sslmode=require");
        assert_eq!(url.check, Check::Nothing);
        assert_eq!(pg_mode(&url), postgres::config::SslMode::Require);

        let url = parse("postgres://h/d?sslmode=require&sslrootcert=/etc/ca.pem");
        assert_eq!(url.check, Check::Chain(Roots::File("/etc/ca.pem".into())));

        let url = parse("postgres://h/d?sslmode=verify-ca");
        assert_eq!(url.check, Check::Chain(Roots::Public));
        assert_eq!(pg_mode(&url), postgres::config::SslMode::Require);

        let url = parse("postgres://h/d?sslrootcert=%2Fsrv%2Fmy%20ca.pem&sslmode=verify-full");
        let roots = Roots::File("/srv/my ca.pem".into());
        assert_eq!(url.check, Check::ChainAndName(roots));

        let url = parse("postgres://h/d?sslmode=verify-full&sslrootcert=system");
        assert_eq!(url.check, Check::ChainAndName(Roots::Public));
    }

    #[test]
    fn other_parameters_still_reach_the_postgres_config() {
        let url = parse(
            "postgresql://u@h/d?application_name=docket&sslmode=verify-full&connect_timeout=7",
        );
        assert_eq!(url.config.get_application_name(), Some("docket"));
        assert_eq!(
            url.config.get_connect_timeout(),
            Some(&std::time::Duration::from_secs(7))
        );
        // The last sslmode counts, as in libpq.
        let url = parse("postgres://h/d?sslmode=disable&sslmode=require");
        assert_eq!(pg_mode(&url), postgres::config::SslMode::Require);
    }

    #[test]
    fn unknown_modes_and_client_certificates_are_refused_plainly() {
        let err = PgUrl::parse("postgres://u:s3cret@h/d?sslmode=verify")
            .err()
            .unwrap();
        assert!(err.contains("sslmode=verify is not known"), "{err}");
        assert!(!err.contains("s3cret"), "{err}");
        let err = PgUrl::parse("postgres://h/d?sslmode=allow").err().unwrap();
        assert!(err.contains("sslmode=allow"), "{err}");
        let err = PgUrl::parse("postgres://h/d?sslcert=/c.pem").err().unwrap();
        assert!(err.contains("client certificates"), "{err}");
        let err = PgUrl::parse("postgres://h/d?nonsense=1").err().unwrap();
        assert!(err.contains("nonsense"), "{err}");
    }

    #[test]
    fn a_missing_or_empty_root_file_is_an_error_before_any_connection() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none.pem");
        let url = parse(&format!(
            "postgres://h/d?sslmode=verify-full&sslrootcert={}",
            missing.display()
        ));
        let err = url.connector().err().unwrap();
        assert!(err.starts_with("sslrootcert "), "{err}");
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let url = parse(&format!(
            "postgres://h/d?sslmode=verify-ca&sslrootcert={}",
            empty.display()
        ));
        let err = url.connector().err().unwrap();
        assert!(err.contains("no CA certificate"), "{err}");
        assert!(
            parse("postgres://h/d?sslmode=verify-full")
                .connector()
                .is_ok()
        );
        assert!(parse("postgres://h/d").connector().is_ok());
    }
}
