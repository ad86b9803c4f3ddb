//! The webhook worker: posts due PENDING deliveries, signed with the endpoint's secret;
//! records each attempt; retries with backoff for 24 hours. State lives in
//! `webhook_deliveries`, so a restart loses nothing.
//!
//! Fairness: up to `--webhook-concurrency` attempts run at once, and each endpoint has at most
//! one attempt in flight, its deliveries going out in the order they were queued
//! (`store::claim`). An endpoint that never answers therefore holds one slot for one attempt
//! (at most `RESOLVE_TIMEOUT` and `TIMEOUT` long) and delays nobody else's deliveries.
//!
//! The target host is resolved here once, every address checked (`address`), and the request
//! connects to those checked addresses only: a second lookup by the HTTP client could answer
//! differently (DNS rebinding). Proxies from the environment are ignored for the same reason.
//! Under `--outbound loopback-only` nothing but `localhost` is resolved and nothing but
//! loopback is reached.

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::address::internal_kind;
use super::store::{self, App, Due};
use crate::core::crypto::SecretBox;
use crate::core::error::AppError;
use crate::core::outbound::Outbound;
use crate::{core::db::Db, core::db::now};
use crate::{core::retry::Backoff, core::retry::Lease, core::retry::Stop, core::retry::Wake};

/// The HTTP request of one attempt, connecting included.
const TIMEOUT: Duration = Duration::from_secs(10);
/// Looking the host up.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(5);
/// The default lease of a claimed delivery: longer than an attempt (lookup and request) and
/// its recording, so only an attempt lost with its process outlives it, and is then retried
/// (with the same `X-Docket-Delivery` id) by whichever node claims it next.
pub const LEASE: Lease = Lease::secs(60);

/// The default schedule: 30 s doubling up to an hour, for 24 hours.
pub fn backoff(base: Duration) -> Backoff {
    Backoff {
        base,
        max: Duration::from_secs(3600),
        give_up_after: Duration::from_secs(24 * 3600),
    }
}

/// `X-Docket-Signature` for `body` sent at unix second `t`:
/// `t=<t>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
pub fn signature(secret: &str, t: i64, body: &str) -> String {
    format!("t={t},v1={}", hmac_hex(secret, &format!("{t}.{body}")))
}

/// Hex HMAC-SHA256 of `message` under `secret`.
fn hmac_hex(secret: &str, message: &str) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any size");
    mac.update(message.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// `X-Cal-Signature-256` for `body`: the hex HMAC-SHA256 of the body under the secret, as
/// receivers written for the scheduling service check booking deliveries.
pub fn cal_signature(secret: &str, body: &str) -> String {
    hmac_hex(secret, body)
}

/// How an attempt ended.
#[derive(Debug)]
enum Outcome {
    Delivered(u16),
    /// Worth retrying: a network error, a timeout, a non-2xx status.
    Failed(Option<u16>, String),
    /// Not worth retrying: a refused address, a broken URL or secret.
    Refused(String),
}

pub struct Worker {
    pub db: Db,
    pub secrets: Arc<SecretBox>,
    pub wake: Wake,
    pub backoff: Backoff,
    pub allow_private: bool,
    /// Attempts in flight at once.
    pub concurrency: usize,
    pub outbound: Outbound,
    /// How long a delivery is claimed for; its attempt is cut off before.
    pub lease: Lease,
}

impl Worker {
    /// Runs until `stop` is raised, finishing the attempts in hand.
    pub async fn run(self, stop: Stop) {
        let (db, wake, width) = (self.db.clone(), self.wake.clone(), self.concurrency);
        let lease = self.lease;
        let this = Arc::new(self);
        let take = |room: usize| {
            let db = db.clone();
            async move {
                db.write(move |tx| {
                    let t = now();
                    store::claim(tx, t, lease.until(t), room as i64)
                })
                .await
            }
        };
        crate::core::retry::drain(&wake, stop, "webhooks", width, take, |item| {
            let this = this.clone();
            async move {
                let done = this.handle(item).await;
                // The endpoint's next delivery may be due now.
                this.wake.wake();
                done
            }
        })
        .await
    }

    async fn handle(&self, d: Due) -> Result<(), AppError> {
        let (outcome, excerpt) = self.attempt(&d).await;
        let (id, attempts) = (d.id, d.attempts + 1);
        let t = now();
        let (delivered, status, error, next) = match outcome {
            Outcome::Delivered(s) => (true, Some(s), None, None),
            Outcome::Failed(s, e) => (
                false,
                s,
                Some(e),
                self.backoff.next_attempt(attempts, d.created_at, t),
            ),
            Outcome::Refused(e) => (false, None, Some(e), None),
        };
        match (&error, delivered) {
            (_, true) => tracing::info!(delivery = id, event = %d.event, "webhook delivered"),
            (Some(e), _) => tracing::warn!(delivery = id, event = %d.event, attempts,
                error = %e, gives_up = next.is_none(), "webhook delivery failed"),
            (None, false) => {}
        }
        let attempt = store::Attempt {
            delivered,
            http_status: status,
            error,
            next,
            excerpt,
        };
        self.db
            .write(move |tx| store::record_attempt(tx, id, &attempt, t))
            .await
    }

    /// One attempt, cut off before the delivery's lease runs out (with a short
    /// `--queue-lease`, sooner than the request's own timeout); with the start of the
    /// receiver's answer when it gave one.
    async fn attempt(&self, d: &Due) -> (Outcome, Option<String>) {
        let limit = self.lease.attempt();
        let attempt = async {
            match self.prepare(d).await {
                Ok(ready) => ready.send(d).await,
                Err(ended) => (ended, None),
            }
        };
        tokio::time::timeout(limit, attempt)
            .await
            .unwrap_or_else(|_| {
                let cut = format!(
                    "cut off after {} s, before the delivery's lease ran out",
                    limit.as_secs()
                );
                (Outcome::Failed(None, cut), None)
            })
    }

    /// Everything before the request: the secret, the URL, its checked addresses and a client
    /// that connects to those only. `Err`: how the attempt ended without sending.
    async fn prepare(&self, d: &Due) -> Result<Ready, Outcome> {
        let secret = self
            .secrets
            .open(&d.sealed_secret)
            .map_err(|e| Outcome::Refused(e.to_string()))?;
        let url = url::Url::parse(&d.url).map_err(|e| Outcome::Refused(format!("bad URL: {e}")))?;
        let (host, port) = match (url.host(), url.port_or_known_default()) {
            (Some(h), Some(p)) => (h.to_owned(), p),
            _ => return Err(Outcome::Refused("the URL has no host".into())),
        };
        let (domain, addrs) = self.resolve(&host, port).await?;
        self.check_addresses(&host, &addrs)?;
        let client = client(domain.as_deref(), &addrs)?;
        let looked_up = match domain {
            Some(_) => addrs,
            None => Vec::new(),
        };
        Ok(Ready {
            client,
            url,
            secret,
            looked_up,
        })
    }

    /// The addresses of `host`, and its name when it is not an IP address.
    async fn resolve(
        &self,
        host: &url::Host<String>,
        port: u16,
    ) -> Result<(Option<String>, Vec<SocketAddr>), Outcome> {
        let name = match host {
            url::Host::Ipv4(ip) => return Ok((None, vec![SocketAddr::new(IpAddr::V4(*ip), port)])),
            url::Host::Ipv6(ip) => return Ok((None, vec![SocketAddr::new(IpAddr::V6(*ip), port)])),
            url::Host::Domain(name) => name,
        };
        match self.outbound.fixed_addresses(name) {
            Err(refusal) => Err(Outcome::Refused(refusal)),
            Ok(Some(ips)) => Ok((
                Some(name.clone()),
                ips.into_iter()
                    .map(|ip| SocketAddr::new(ip, port))
                    .collect(),
            )),
            Ok(None) => {
                let lookup = tokio::net::lookup_host((name.as_str(), port));
                match tokio::time::timeout(RESOLVE_TIMEOUT, lookup).await {
                    Ok(Ok(found)) => Ok((Some(name.clone()), found.collect())),
                    Ok(Err(e)) => Err(Outcome::Failed(None, format!("cannot resolve {name}: {e}"))),
                    Err(_) => Err(Outcome::Failed(None, format!("resolving {name} timed out"))),
                }
            }
        }
    }

    /// Every address of `host` may be reached: none internal (unless allowed), all permitted
    /// by `--outbound`. The refusal the webhook's owner reads never names an address a lookup
    /// gave (that would tell them the internal network's DNS answers); only an address they
    /// wrote in the URL themselves. The operator's log has the whole story.
    fn check_addresses(
        &self,
        host: &url::Host<String>,
        addrs: &[SocketAddr],
    ) -> Result<(), Outcome> {
        if addrs.is_empty() {
            return Err(Outcome::Failed(None, format!("{host} has no address")));
        }
        let named = matches!(host, url::Host::Domain(_));
        if !self.allow_private
            && let Some((ip, kind)) = addrs
                .iter()
                .find_map(|a| internal_kind(a.ip()).map(|k| (a.ip(), k)))
        {
            tracing::warn!(%host, %ip, kind, "webhook target refused: internal address");
            let what = match named {
                true => String::new(),
                false => format!(" ({ip} is a {kind} address)"),
            };
            return Err(Outcome::Refused(format!(
                "refused: internal address{what}; the server delivers to internal addresses only with --allow-private-webhooks"
            )));
        }
        if let Some(a) = addrs.iter().find(|a| !self.outbound.permits(a.ip())) {
            let ip = a.ip();
            tracing::warn!(%host, %ip, "webhook target refused: not a loopback address");
            let what = match named {
                true => String::new(),
                false => format!(" ({ip})"),
            };
            return Err(Outcome::Refused(format!(
                "refused by {}: not a loopback address{what}",
                Outbound::LOOPBACK_ONLY,
            )));
        }
        Ok(())
    }
}

/// An HTTP client that follows no redirects, uses no proxy and connects to `domain` only at
/// `addrs`; TLS with ring and Mozilla's roots (`tls`).
fn client(domain: Option<&str>, addrs: &[SocketAddr]) -> Result<http_client::Client, Outcome> {
    static TLS: LazyLock<Result<rustls::ClientConfig, rustls::Error>> = LazyLock::new(tls);
    let tls = TLS
        .as_ref()
        .map_err(|e| Outcome::Failed(None, format!("HTTP client: TLS: {e}")))?;
    let mut client = http_client::Client::builder()
        .tls_backend_preconfigured(tls.clone())
        .redirect(http_client::redirect::Policy::none())
        .timeout(TIMEOUT)
        .no_proxy()
        .user_agent(concat!("Docket-Webhooks/", env!("CARGO_PKG_VERSION")));
    if let Some(name) = domain {
        client = client.resolve_to_addrs(name, addrs);
    }
    client
        .build()
        .map_err(|e| Outcome::Failed(None, format!("HTTP client: {e}")))
}

/// The TLS side of every delivery (made once): ring (the binary's one crypto provider, installed nowhere
/// globally) and Mozilla's roots (`webpki-roots`), so that HTTPS endpoints are checked the same
/// way on every machine, the static binary included; HTTP/2 or 1.1 by ALPN.
fn tls() -> Result<rustls::ClientConfig, rustls::Error> {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// An attempt ready to send.
struct Ready {
    client: http_client::Client,
    url: url::Url,
    secret: String,
    /// The addresses a lookup gave for the URL's name, kept out of the error texts.
    looked_up: Vec<SocketAddr>,
}

impl Ready {
    /// Posts the delivery, signed now; the outcome and the start of the answer's body.
    async fn send(self, d: &Due) -> (Outcome, Option<String>) {
        let t = now();
        let mut request = self
            .client
            .post(self.url)
            .header("content-type", "application/json")
            .header("x-docket-signature", signature(&self.secret, t, &d.body))
            .header("x-docket-event", &d.event)
            .header("x-docket-delivery", d.id.to_string());
        let booking = super::Event::parse(&d.event).is_some_and(super::Event::is_booking);
        if booking {
            request = request.header("x-cal-signature-256", cal_signature(&self.secret, &d.body));
        } else if d.app == App::Zapier {
            // What the signing service sends for an endpoint made by Zapier, which has no
            // secret to compare; the HMAC above is the check that means something.
            request = request.header("x-documenso-secret", "");
        }
        let sent = request.body(d.body.clone()).send().await;
        let resp = match sent {
            Ok(resp) => resp,
            Err(e) if e.is_timeout() => {
                return (Outcome::Failed(None, "timed out after 10 s".into()), None);
            }
            Err(e) => {
                let why = without_addresses(&describe(&e), &self.looked_up);
                return (Outcome::Failed(None, why), None);
            }
        };
        let s = resp.status();
        let outcome = if s.is_success() {
            Outcome::Delivered(s.as_u16())
        } else {
            let what = if s.is_redirection() {
                " (redirects are not followed)"
            } else {
                ""
            };
            Outcome::Failed(Some(s.as_u16()), format!("HTTP {s}{what}"))
        };
        (outcome, excerpt(resp).await)
    }
}

/// The most of an answer's body the delivery log keeps.
const EXCERPT_BYTES: usize = 512;

/// The start of `resp`'s body (at most `EXCERPT_BYTES`, as text), or `None` when it is empty
/// or cannot be read.
async fn excerpt(mut resp: http_client::Response) -> Option<String> {
    let mut buf = Vec::new();
    while buf.len() < EXCERPT_BYTES {
        match resp.chunk().await {
            Ok(Some(chunk)) => buf.extend_from_slice(&chunk),
            _ => break,
        }
    }
    buf.truncate(EXCERPT_BYTES);
    let text = String::from_utf8_lossy(&buf).trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// `text` with each of `addrs` replaced by `[address]`: the answers of a lookup stay out of
/// what the webhook's owner reads, whatever a transport error below chooses to say.
fn without_addresses(text: &str, addrs: &[SocketAddr]) -> String {
    let mut out = text.to_string();
    for a in addrs {
        out = out
            .replace(&a.to_string(), "[address]")
            .replace(&a.ip().to_string(), "[address]");
    }
    out
}

/// A transport error with its causes, without the URL.
fn describe(e: &http_client::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_is_hmac_of_time_dot_body() {
        // HMAC-SHA256("key", "1700000000.{}"), computed independently with Python's hmac module.
        assert_eq!(
            signature("key", 1_700_000_000, "{}"),
            "t=1700000000,v1=9d713ed406bb7076d4123f0dc2c39d2df5c654ed4b0cd56b52c8b4c940bd63ae"
        );
    }

    #[test]
    fn looked_up_addresses_are_kept_out_of_error_texts() {
        let addrs: Vec<SocketAddr> = vec![
            "10.1.2.3:443".parse().unwrap(),
            "[fd00::7]:443".parse().unwrap(),
        ];
        let text = "tcp connect error: 10.1.2.3:443: refused; also [fd00::7]:443 and fd00::7";
        let clean = without_addresses(text, &addrs);
        assert_eq!(
            clean,
            "tcp connect error: [address]: refused; also [address] and [address]"
        );
        assert_eq!(without_addresses("timed out", &addrs), "timed out");
    }

    #[test]
    fn cal_signature_is_hmac_of_the_body() {
        // HMAC-SHA256("key", "{}"), computed independently with Python's hmac module.
        assert_eq!(
            cal_signature("key", "{}"),
            "a777724d943eb48dc69bca8a4a6d57a04db3f9ec7e1de4e581e860265bdf3032"
        );
    }
}
