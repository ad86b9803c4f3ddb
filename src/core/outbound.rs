//! Where the server's own outgoing connections (webhook deliveries, SMTP) may go:
//! `--outbound any` (the default) or `--outbound loopback-only`, which confines them to this
//! machine (tests, staging copies): no name but `localhost` is looked up and nothing but
//! 127.0.0.0/8 and ::1 is reached.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Outbound {
    /// Anywhere (webhooks still refuse internal addresses without --allow-private-webhooks)
    #[default]
    Any,
    /// Only localhost and loopback addresses; other targets fail without a DNS lookup
    LoopbackOnly,
}

impl Outbound {
    /// The flag as given, for messages.
    pub const LOOPBACK_ONLY: &'static str = "--outbound loopback-only";

    /// May a connection go to `ip`?
    pub fn permits(self, ip: IpAddr) -> bool {
        match self {
            Outbound::Any => true,
            // Strictly 127.0.0.0/8 and ::1: no IPv4 inside IPv6.
            Outbound::LoopbackOnly => ip.is_loopback(),
        }
    }

    /// The addresses of host `name` when this policy fixes them without a lookup: under
    /// `loopback-only`, `localhost` is 127.0.0.1 and ::1 (RFC 6761) and any other name is
    /// `Err` (it would need a lookup). `Ok(None)`: resolve it normally.
    pub fn fixed_addresses(self, name: &str) -> Result<Option<Vec<IpAddr>>, String> {
        match self {
            Outbound::Any => Ok(None),
            Outbound::LoopbackOnly if is_localhost(name) => Ok(Some(vec![
                IpAddr::V4(Ipv4Addr::LOCALHOST),
                IpAddr::V6(Ipv6Addr::LOCALHOST),
            ])),
            Outbound::LoopbackOnly => Err(format!(
                "refused by {}: {name} is not looked up; only localhost and loopback addresses are reachable",
                Self::LOOPBACK_ONLY
            )),
        }
    }

    /// Can a client that resolves `host` itself (SMTP) stay within this policy? `host` is a
    /// name or an IP address, IPv6 with or without brackets.
    pub fn permits_host(self, host: &str) -> bool {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        match bare.parse::<IpAddr>() {
            Ok(ip) => self.permits(ip),
            Err(_) => self == Outbound::Any || is_localhost(bare),
        }
    }
}

fn is_localhost(name: &str) -> bool {
    name.strip_suffix('.')
        .unwrap_or(name)
        .eq_ignore_ascii_case("localhost")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_only_reaches_loopback_and_looks_nothing_up() {
        let l = Outbound::LoopbackOnly;
        for ip in ["127.0.0.1", "127.9.9.9", "::1"] {
            assert!(l.permits(ip.parse().unwrap()), "{ip}");
        }
        for ip in [
            "10.0.0.1",
            "8.8.8.8",
            "::ffff:127.0.0.1",
            "::",
            "0.0.0.0",
            "fe80::1",
        ] {
            assert!(!l.permits(ip.parse().unwrap()), "{ip}");
        }
        assert_eq!(l.fixed_addresses("LocalHost.").unwrap().unwrap().len(), 2);
        for name in [
            "example.com",
            "0.com",
            "localhost.example.com",
            "foo.localhost",
        ] {
            let e = l.fixed_addresses(name).unwrap_err();
            assert!(e.contains("--outbound loopback-only"), "{e}");
        }
        assert!(l.permits_host("localhost") && l.permits_host("127.0.0.1"));
        assert!(l.permits_host("[::1]") && l.permits_host("::1"));
        assert!(!l.permits_host("mail.example.com") && !l.permits_host("192.168.1.1"));
    }

    #[test]
    fn any_permits_everything() {
        let a = Outbound::Any;
        assert!(a.permits("8.8.8.8".parse().unwrap()));
        assert_eq!(a.fixed_addresses("example.com"), Ok(None));
        assert!(a.permits_host("mail.example.com"));
    }
}
