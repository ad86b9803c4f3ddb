//! Which addresses a webhook may not reach (unless `--allow-private-webhooks`): everything that
//! is not the public internet, so that a webhook cannot be aimed at the appliance itself or at
//! the network behind it (SSRF).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why `ip` is refused, or `None` for a public address.
pub fn internal_kind(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_kind(v4),
        IpAddr::V6(v6) => v6_kind(v6),
    }
}

fn v4_kind(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    Some(if ip.is_unspecified() || a == 0 {
        "unspecified"
    } else if ip.is_loopback() {
        "loopback"
    } else if ip.is_private() {
        "private"
    } else if ip.is_link_local() {
        "link-local"
    } else if a == 100 && (64..128).contains(&b) {
        "shared (CGNAT)"
    } else if ip.is_broadcast() {
        "broadcast"
    } else if ip.is_multicast() {
        "multicast"
    } else if a >= 240 {
        "reserved"
    } else {
        return None;
    })
}

fn v6_kind(ip: Ipv6Addr) -> Option<&'static str> {
    if ip.is_unspecified() {
        return Some("unspecified");
    }
    if ip.is_loopback() {
        return Some("loopback");
    }
    // IPv4 inside IPv6: mapped (::ffff:a.b.c.d), compatible (::a.b.c.d), NAT64 (64:ff9b::/96).
    let seg = ip.segments();
    if let Some(v4) = ip.to_ipv4() {
        return v4_kind(v4);
    }
    if seg[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        let o = ip.octets();
        return v4_kind(Ipv4Addr::new(o[12], o[13], o[14], o[15]));
    }
    Some(if seg[0] & 0xfe00 == 0xfc00 {
        "private (unique local)"
    } else if seg[0] & 0xffc0 == 0xfe80 {
        "link-local"
    } else if seg[0] & 0xff00 == 0xff00 {
        "multicast"
    } else {
        return None;
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(s: &str) -> Option<&'static str> {
        internal_kind(s.parse().unwrap())
    }

    #[test]
    fn refuses_internal_v4() {
        for (ip, k) in [
            ("0.0.0.0", "unspecified"),
            ("0.1.2.3", "unspecified"),
            ("127.0.0.1", "loopback"),
            ("127.255.0.9", "loopback"),
            ("10.1.2.3", "private"),
            ("172.16.0.1", "private"),
            ("172.31.255.255", "private"),
            ("192.168.1.1", "private"),
            ("169.254.169.254", "link-local"),
            ("100.64.0.1", "shared (CGNAT)"),
            ("100.127.255.255", "shared (CGNAT)"),
            ("224.0.0.1", "multicast"),
            ("255.255.255.255", "broadcast"),
            ("240.0.0.1", "reserved"),
        ] {
            assert_eq!(kind(ip), Some(k), "{ip}");
        }
    }

    #[test]
    fn refuses_internal_v6_and_v4_inside_v6() {
        for (ip, k) in [
            ("::", "unspecified"),
            ("::1", "loopback"),
            ("fc00::1", "private (unique local)"),
            ("fdab:cdef::1", "private (unique local)"),
            ("fe80::1", "link-local"),
            ("febf::1", "link-local"),
            ("ff02::1", "multicast"),
            ("::ffff:127.0.0.1", "loopback"),
            ("::ffff:10.0.0.1", "private"),
            ("::ffff:169.254.169.254", "link-local"),
            ("::127.0.0.1", "loopback"),
            ("64:ff9b::a9fe:a9fe", "link-local"),
        ] {
            assert_eq!(kind(ip), Some(k), "{ip}");
        }
    }

    #[test]
    fn allows_public_addresses() {
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "100.63.255.255",
            "100.128.0.0",
            "172.15.0.1",
            "172.32.0.1",
            "192.169.0.1",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
            assert_eq!(kind(ip), None, "{ip}");
        }
    }
}
