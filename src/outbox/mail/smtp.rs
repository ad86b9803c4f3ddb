//! `--smtp-url` and talking to the SMTP server (lettre over rustls).
//!
//! - `smtp://[user:pass@]host[:port]`: STARTTLS, required (port 587 by default);
//! - `smtps://[user:pass@]host[:port]`: TLS from the first byte (port 465 by default);
//! - `smtp://host[:port]?tls=none`: no TLS at all (port 25 by default), for a relay on the same
//!   host or network, and for tests.
//!
//! User and password are percent-decoded. A password in the URL shows in the process list when
//! the URL is given on the command line; `--smtp-password-file` keeps it in a file instead
//! (`with_password`).

use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

/// How the connection is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Security {
    StartTls,
    Implicit,
    None,
}

/// A parsed `--smtp-url`. Debug hides the password.
#[derive(Clone, PartialEq, Eq)]
pub struct SmtpUrl {
    pub host: String,
    pub port: u16,
    pub security: Security,
    pub user: Option<String>,
    password: Option<String>,
}

impl std::fmt::Debug for SmtpUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpUrl")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("security", &self.security)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "***"))
            .finish()
    }
}

impl SmtpUrl {
    pub fn parse(raw: &str) -> Result<SmtpUrl, String> {
        let url = url::Url::parse(raw.trim()).map_err(|e| format!("not a URL: {e}"))?;
        let mut tls_param = None;
        for (k, v) in url.query_pairs() {
            match k.as_ref() {
                "tls" => tls_param = Some(v.into_owned()),
                other => return Err(format!("unknown parameter {other:?} (only tls=none)")),
            }
        }
        let security = match (url.scheme(), tls_param.as_deref()) {
            ("smtp", None | Some("starttls")) => Security::StartTls,
            ("smtp", Some("none")) => Security::None,
            ("smtps", None) => Security::Implicit,
            ("smtp", Some(v)) => return Err(format!("tls={v}: use tls=none or tls=starttls")),
            ("smtps", Some(_)) => return Err("smtps:// takes no tls parameter".into()),
            (s, _) => return Err(format!("scheme {s}: use smtp:// or smtps://")),
        };
        let host = url
            .host_str()
            .filter(|h| !h.is_empty())
            .ok_or("no host")?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        if !matches!(url.path(), "" | "/") || url.fragment().is_some() {
            return Err("no path or fragment allowed".into());
        }
        let port = url.port().unwrap_or(match security {
            Security::StartTls => 587,
            Security::Implicit => 465,
            Security::None => 25,
        });
        let decode = |s: &str| {
            url::form_urlencoded::parse(format!("x={}", s.replace('+', "%2B")).as_bytes())
                .next()
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default()
        };
        let user = (!url.username().is_empty()).then(|| decode(url.username()));
        let password = url.password().map(decode);
        if password.is_some() && user.is_none() {
            return Err("a password needs a user".into());
        }
        Ok(SmtpUrl {
            host,
            port,
            security,
            user,
            password,
        })
    }

    /// This URL with `password` (read from `--smtp-password-file`) for its user. The URL must
    /// name a user and carry no password of its own.
    pub fn with_password(mut self, password: String) -> Result<SmtpUrl, String> {
        if self.user.is_none() {
            return Err("a password file needs a user in the URL (smtp://USER@host)".into());
        }
        if self.password.is_some() {
            return Err("the URL has a password too: give it in one place".into());
        }
        if password.is_empty() {
            return Err("the password file is empty".into());
        }
        self.password = Some(password);
        Ok(self)
    }

    /// The transport this URL describes (no connection is made yet).
    pub fn transport(&self) -> Result<AsyncSmtpTransport<Tokio1Executor>, String> {
        let tls = |host: &str| TlsParameters::new(host.to_string()).map_err(|e| e.to_string());
        let tls = match self.security {
            Security::StartTls => Tls::Required(tls(&self.host)?),
            Security::Implicit => Tls::Wrapper(tls(&self.host)?),
            Security::None => Tls::None,
        };
        let mut b = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&self.host)
            .port(self.port)
            .tls(tls)
            .timeout(Some(Duration::from_secs(30)));
        if let Some(user) = &self.user {
            b = b.credentials(Credentials::new(
                user.clone(),
                self.password.clone().unwrap_or_default(),
            ));
        }
        Ok(b.build())
    }
}

/// Why a send failed: `permanent` ones (a bad address, a 5xx reply) are not retried.
#[derive(Debug)]
pub struct SendError {
    pub message: String,
    pub permanent: bool,
}

/// The message as MIME: multipart/alternative (text, HTML), inside multipart/mixed with the
/// attachment when there is one.
pub fn build(
    from: &Mailbox,
    to: &str,
    subject: &str,
    text: String,
    html: String,
    attachment: Option<(String, Vec<u8>)>,
) -> Result<Message, SendError> {
    let to: Mailbox = to.parse().map_err(|e| SendError {
        message: format!("bad recipient address: {e}"),
        permanent: true,
    })?;
    let alternative = MultiPart::alternative_plain_html(text, html);
    let body = match attachment {
        None => alternative,
        Some((name, bytes)) => {
            let kind = ContentType::parse(
                mime_guess::from_path(&name)
                    .first_or_octet_stream()
                    .essence_str(),
            )
            .unwrap_or(ContentType::TEXT_PLAIN);
            MultiPart::mixed()
                .multipart(alternative)
                .singlepart(Attachment::new(name).body(bytes, kind))
        }
    };
    Message::builder()
        .from(from.clone())
        .to(to)
        .subject(subject)
        .multipart(body)
        .map_err(|e| SendError {
            message: format!("cannot build the message: {e}"),
            permanent: true,
        })
}

/// Hands `message` to the SMTP server.
pub async fn send(
    transport: &AsyncSmtpTransport<Tokio1Executor>,
    message: Message,
) -> Result<(), SendError> {
    transport
        .send(message)
        .await
        .map(|_| ())
        .map_err(|e| SendError {
            permanent: e.is_permanent(),
            message: e.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_forms() {
        let u = SmtpUrl::parse("smtp://me%40x.org:p%2Fw+d@mail.example.com").unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.security),
            ("mail.example.com", 587, Security::StartTls)
        );
        assert_eq!(u.user.as_deref(), Some("me@x.org"));
        assert_eq!(u.password.as_deref(), Some("p/w+d"));
        assert!(!format!("{u:?}").contains("p/w"));
        let u = SmtpUrl::parse("smtps://mail.example.com").unwrap();
        assert_eq!((u.port, u.security), (465, Security::Implicit));
        let u = SmtpUrl::parse("smtp://127.0.0.1:2525?tls=none").unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.security, u.user),
            ("127.0.0.1", 2525, Security::None, None)
        );
        let u = SmtpUrl::parse("smtp://[::1]:25?tls=none").unwrap();
        assert_eq!(u.host, "::1");
        assert!(SmtpUrl::parse("smtp://h?tls=starttls").unwrap().security == Security::StartTls);
    }

    #[test]
    fn a_password_from_a_file_joins_a_url_with_a_user_and_no_password() {
        let u = SmtpUrl::parse("smtp://me@h").unwrap();
        let with = u.clone().with_password("p@ss:w/rd %20".into()).unwrap();
        assert_eq!(with.password.as_deref(), Some("p@ss:w/rd %20"));
        assert!(!format!("{with:?}").contains("p@ss"));
        assert!(u.with_password(String::new()).is_err());
        let no_user = SmtpUrl::parse("smtp://h").unwrap();
        assert!(no_user.with_password("pw".into()).is_err());
        let both = SmtpUrl::parse("smtp://me:pw@h").unwrap();
        assert!(both.with_password("pw".into()).is_err());
    }

    #[test]
    fn refuses_bad_urls() {
        for bad in [
            "mail.example.com",
            "http://mail.example.com",
            "smtp://",
            "smtp://h?tls=maybe",
            "smtps://h?tls=none",
            "smtp://h?port=2",
            "smtp://h/path",
            "smtp://:pw@h",
        ] {
            assert!(SmtpUrl::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn builds_multipart_with_attachment() {
        let from: Mailbox = "Docket <docket@d.example>".parse().unwrap();
        let m = build(
            &from,
            "bob@example.com",
            "Hi",
            "text part".into(),
            "<p>html part</p>".into(),
            Some(("signed.pdf".into(), b"%PDF-1.7".to_vec())),
        )
        .unwrap();
        let raw = String::from_utf8(m.formatted()).unwrap();
        assert!(raw.contains("multipart/mixed"));
        assert!(raw.contains("multipart/alternative"));
        assert!(raw.contains("application/pdf"));
        assert!(raw.contains("signed.pdf"));
        assert!(
            build(
                &from,
                "not an address",
                "s",
                String::new(),
                String::new(),
                None
            )
            .is_err_and(|e| e.permanent)
        );
    }
}
