//! What counts as one client for every per-client limit: open connections, failed logins,
//! forgotten-password requests and direct-link visits. An IPv4 address is one client; an IPv6
//! address counts as the /64 it lies in, since one host or home line usually holds a whole /64
//! and can take a fresh address from it for every request. IPv4 addresses that arrive as
//! IPv4-mapped IPv6 (a socket bound to `[::]`) count as the IPv4 address.

use std::net::{IpAddr, Ipv6Addr};

/// `ip` with an IPv4-mapped IPv6 address written as plain IPv4.
pub fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map(IpAddr::V4)
            .unwrap_or(IpAddr::V6(v6)),
        v4 => v4,
    }
}

/// The client `ip` belongs to: the IPv4 address itself, or the IPv6 address's /64.
pub fn client_of(ip: IpAddr) -> IpAddr {
    match canonical(ip) {
        IpAddr::V6(v6) => {
            let s = v6.segments();
            IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
        }
        v4 => v4,
    }
}

/// The text a per-client limit counts under for `address`, as a client address is passed
/// around (the audit trail's text form). An address that does not parse counts as itself; no
/// address at all counts as one unknown client.
pub fn client_key(address: Option<&str>) -> String {
    match address {
        Some(text) => match text.trim().parse::<IpAddr>() {
            Ok(ip) => client_of(ip).to_string(),
            Err(_) => text.to_string(),
        },
        None => String::new(),
    }
}

/// As [`client_key`], for a parsed address.
pub fn client_key_of(address: Option<IpAddr>) -> String {
    address
        .map(|ip| client_of(ip).to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_slash_64_is_one_client_and_ipv4_addresses_are_their_own() {
        let a = client_key(Some("2001:db8:1:2:aaaa::1"));
        let b = client_key(Some("2001:db8:1:2:ffff:1:2:3"));
        assert_eq!(a, b);
        assert_eq!(a, "2001:db8:1:2::");
        assert_ne!(
            a,
            client_key(Some("2001:db8:1:3::1")),
            "the next /64 is another client"
        );
        assert_eq!(client_key(Some("192.0.2.7")), "192.0.2.7");
        assert_ne!(client_key(Some("192.0.2.7")), client_key(Some("192.0.2.8")));
        assert_eq!(client_key(Some("::ffff:192.0.2.7")), "192.0.2.7");
        assert_eq!(
            client_key_of(Some("2001:db8:1:2::9".parse().unwrap())),
            "2001:db8:1:2::"
        );
        assert_eq!(client_key(None), "");
        assert_eq!(client_key(Some("not an address")), "not an address");
    }
}
