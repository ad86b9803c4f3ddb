//! The systemd notification protocol (`sd_notify`), without libsystemd.
//!
//! When systemd starts a `Type=notify` service it sets `NOTIFY_SOCKET` to a unix datagram
//! socket: a path, or an abstract name written with a leading `@`. Each datagram is one or more
//! `KEY=value` lines. Docket sends `READY=1` once the listener is bound and the banner printed,
//! `WATCHDOG=1` every half of `WATCHDOG_USEC` while serving (when the unit sets `WatchdogSec=`,
//! and `WATCHDOG_PID`, if set, is this process), and `STOPPING=1` when it starts to shut down.
//! Without `NOTIFY_SOCKET` every call here does nothing, so `docket serve` behaves the same
//! outside systemd.

use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::{SocketAddr, UnixDatagram};
use std::path::Path;
use std::time::Duration;

use tokio::task::JoinHandle;

/// A socket to tell the service manager about state changes.
#[derive(Debug)]
pub struct Notifier {
    socket: UnixDatagram,
    addr: SocketAddr,
}

impl Notifier {
    /// The notifier named by `$NOTIFY_SOCKET`, if it is set and usable.
    pub fn from_env() -> io::Result<Option<Notifier>> {
        match std::env::var_os("NOTIFY_SOCKET") {
            Some(v) => Notifier::new(&v),
            None => Ok(None),
        }
    }

    /// A notifier for a `NOTIFY_SOCKET` value: an absolute path, or `@name` for an abstract
    /// socket (Linux). An empty value means none; other forms (such as `vsock:`) are refused.
    pub fn new(value: &OsStr) -> io::Result<Option<Notifier>> {
        let bytes = value.as_bytes();
        let addr = match bytes.first() {
            None => return Ok(None),
            Some(b'/') => SocketAddr::from_pathname(Path::new(value))?,
            Some(b'@') => abstract_addr(&bytes[1..])?,
            Some(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("unsupported NOTIFY_SOCKET {value:?}"),
                ));
            }
        };
        let socket = UnixDatagram::unbound()?;
        Ok(Some(Notifier { socket, addr }))
    }

    /// Sends one message, e.g. `"READY=1\nSTATUS=serving"`.
    pub fn notify(&self, state: &str) -> io::Result<()> {
        let sent = self.socket.send_to_addr(state.as_bytes(), &self.addr)?;
        if sent != state.len() {
            return Err(io::Error::new(
                io::ErrorKind::WriteZero,
                "short write to NOTIFY_SOCKET",
            ));
        }
        Ok(())
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn abstract_addr(name: &[u8]) -> io::Result<SocketAddr> {
    #[cfg(target_os = "android")]
    use std::os::android::net::SocketAddrExt;
    #[cfg(target_os = "linux")]
    use std::os::linux::net::SocketAddrExt;
    SocketAddr::from_abstract_name(name)
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn abstract_addr(_name: &[u8]) -> io::Result<SocketAddr> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "abstract unix sockets exist only on Linux",
    ))
}

/// The watchdog ping interval for the environment: half of `WATCHDOG_USEC`, when it is set
/// and `WATCHDOG_PID` is unset or is this process.
pub fn watchdog_interval() -> Option<Duration> {
    let usec = std::env::var("WATCHDOG_USEC").ok();
    let pid = std::env::var("WATCHDOG_PID").ok();
    watchdog_interval_for(usec.as_deref(), pid.as_deref(), std::process::id())
}

/// [`watchdog_interval`] on given values, for tests.
pub fn watchdog_interval_for(usec: Option<&str>, pid: Option<&str>, me: u32) -> Option<Duration> {
    if let Some(pid) = pid
        && pid.trim().parse::<u32>().ok() != Some(me)
    {
        return None;
    }
    let usec: u64 = usec?.trim().parse().ok()?;
    if usec == 0 {
        return None;
    }
    Some(Duration::from_micros(usec / 2).max(Duration::from_millis(1)))
}

/// What `docket serve` keeps while it runs under systemd: the notifier and the watchdog task.
#[derive(Debug, Default)]
pub struct Service {
    notifier: Option<std::sync::Arc<Notifier>>,
    watchdog: Option<JoinHandle<()>>,
}

impl Service {
    /// Reads the environment, sends `READY=1` with a status line, and starts the watchdog
    /// pings. Failures are logged, never fatal: the server serves either way.
    pub fn ready(status: &str) -> Service {
        let notifier = match Notifier::from_env() {
            Ok(n) => n,
            Err(e) => {
                tracing::warn!(error = %e, "NOTIFY_SOCKET is set but unusable; not notifying systemd");
                None
            }
        };
        Service::ready_with(notifier, watchdog_interval(), status)
    }

    /// [`Service::ready`] with a given notifier and watchdog interval.
    pub fn ready_with(
        notifier: Option<Notifier>,
        watchdog: Option<Duration>,
        status: &str,
    ) -> Service {
        let Some(notifier) = notifier.map(std::sync::Arc::new) else {
            return Service::default();
        };
        let status = status.replace('\n', " ");
        let msg = format!("READY=1\nSTATUS={status}\nMAINPID={}", std::process::id());
        match notifier.notify(&msg) {
            Ok(()) => tracing::debug!("told systemd we are ready"),
            Err(e) => tracing::warn!(error = %e, "sending READY=1 to systemd failed"),
        }
        let watchdog = watchdog.map(|every| {
            let n = notifier.clone();
            tracing::debug!(
                interval_ms = every.as_millis() as u64,
                "systemd watchdog on"
            );
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(every);
                tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                loop {
                    tick.tick().await;
                    if let Err(e) = n.notify("WATCHDOG=1") {
                        tracing::warn!(error = %e, "systemd watchdog ping failed");
                    }
                }
            })
        });
        Service {
            notifier: Some(notifier),
            watchdog,
        }
    }

    /// Sends `STOPPING=1` and stops the watchdog pings.
    pub fn stopping(mut self) {
        if let Some(w) = self.watchdog.take() {
            w.abort();
        }
        if let Some(n) = &self.notifier
            && let Err(e) = n.notify("STOPPING=1\nSTATUS=shutting down")
        {
            tracing::warn!(error = %e, "sending STOPPING=1 to systemd failed");
        }
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        if let Some(w) = self.watchdog.take() {
            w.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn receiver() -> (tempfile::TempDir, std::path::PathBuf, UnixDatagram) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notify.sock");
        let sock = UnixDatagram::bind(&path).unwrap();
        sock.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        (dir, path, sock)
    }

    fn recv(sock: &UnixDatagram) -> String {
        let mut buf = [0u8; 4096];
        let n = sock.recv(&mut buf).unwrap();
        String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    #[test]
    fn sends_to_a_path_socket() {
        let (_dir, path, sock) = receiver();
        let n = Notifier::new(path.as_os_str()).unwrap().unwrap();
        n.notify("READY=1").unwrap();
        assert_eq!(recv(&sock), "READY=1");
        n.notify("STOPPING=1").unwrap();
        assert_eq!(recv(&sock), "STOPPING=1");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn sends_to_an_abstract_socket() {
        use std::os::linux::net::SocketAddrExt;
        let name = format!(
            "docket-test-{}-{}",
            std::process::id(),
            rand::random::<u64>()
        );
        let addr = SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
        let sock = UnixDatagram::bind_addr(&addr).unwrap();
        sock.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let n = Notifier::new(OsStr::new(&format!("@{name}")))
            .unwrap()
            .unwrap();
        n.notify("READY=1").unwrap();
        assert_eq!(recv(&sock), "READY=1");
    }

    #[test]
    fn empty_means_none_and_odd_values_are_refused() {
        assert!(Notifier::new(OsStr::new("")).unwrap().is_none());
        assert!(Notifier::new(OsStr::new("relative/path")).is_err());
        assert!(Notifier::new(OsStr::new("vsock:2:1234")).is_err());
    }

    #[test]
    fn a_missing_receiver_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let n = Notifier::new(dir.path().join("absent.sock").as_os_str())
            .unwrap()
            .unwrap();
        assert!(n.notify("READY=1").is_err());
    }

    #[test]
    fn watchdog_interval_is_half_of_usec_for_this_pid() {
        let half = Some(Duration::from_secs(15));
        assert_eq!(watchdog_interval_for(Some("30000000"), None, 7), half);
        assert_eq!(watchdog_interval_for(Some("30000000"), Some("7"), 7), half);
        assert_eq!(watchdog_interval_for(Some("30000000"), Some("8"), 7), None);
        assert_eq!(watchdog_interval_for(None, None, 7), None);
        assert_eq!(watchdog_interval_for(Some("0"), None, 7), None);
        assert_eq!(watchdog_interval_for(Some("soon"), None, 7), None);
    }

    #[tokio::test]
    async fn service_sends_ready_watchdog_pings_and_stopping() {
        let (_dir, path, sock) = receiver();
        let n = Notifier::new(path.as_os_str()).unwrap();
        let svc = Service::ready_with(n, Some(Duration::from_millis(20)), "serving\non x");
        let sock = tokio::task::spawn_blocking(move || {
            let ready = recv(&sock);
            assert!(ready.starts_with("READY=1\n"), "{ready:?}");
            assert!(ready.contains("\nSTATUS=serving on x\n"), "{ready:?}");
            assert!(
                ready.contains(&format!("\nMAINPID={}", std::process::id())),
                "{ready:?}"
            );
            assert_eq!(recv(&sock), "WATCHDOG=1");
            assert_eq!(recv(&sock), "WATCHDOG=1");
            sock
        })
        .await
        .unwrap();
        svc.stopping();
        // Pings already queued may precede it; STOPPING=1 must come, and nothing after it.
        sock.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        loop {
            let m = recv(&sock);
            if m.starts_with("STOPPING=1") {
                break;
            }
            assert_eq!(m, "WATCHDOG=1");
        }
        sock.set_read_timeout(Some(Duration::from_millis(100)))
            .unwrap();
        let mut buf = [0u8; 64];
        assert!(sock.recv(&mut buf).is_err(), "a ping after STOPPING=1");
    }

    #[tokio::test]
    async fn service_without_socket_does_nothing() {
        let svc = Service::ready_with(None, Some(Duration::from_millis(1)), "x");
        assert!(svc.notifier.is_none() && svc.watchdog.is_none());
        svc.stopping();
    }
}
