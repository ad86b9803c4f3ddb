//! Which addresses a webhook may not reach (unless `--allow-private-webhooks`): everything that
//! is not the public internet, so that a webhook cannot be aimed at the appliance itself or at
//! the network behind it (SSRF).
//!
//! The tables follow IANA's IPv4 and IPv6 Special-Purpose Address Registries: every block that
//! is not globally reachable is refused, and so is every IPv6 address outside 2000::/3 (global
//! unicast) but the NAT64 prefix, whose embedded IPv4 address is judged instead (DNS64 networks
//! hand out such addresses for public hosts). Tunnels and translations that carry an IPv4
//! address (6to4, Teredo, mapped, compatible, SIIT) are refused whatever they carry.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why `ip` is refused, or `None` for a public address.
pub fn internal_kind(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_kind(v4),
        IpAddr::V6(v6) => v6_kind(v6),
    }
}

/// IPv4 blocks that are not globally reachable, first match wins.
const V4: &[(Ipv4Addr, u8, &str)] = &[
    (Ipv4Addr::new(0, 0, 0, 0), 8, "unspecified"),
    (Ipv4Addr::new(10, 0, 0, 0), 8, "private"),
    (Ipv4Addr::new(100, 64, 0, 0), 10, "shared (CGNAT)"),
    (Ipv4Addr::new(127, 0, 0, 0), 8, "loopback"),
    (Ipv4Addr::new(169, 254, 0, 0), 16, "link-local"),
    (Ipv4Addr::new(172, 16, 0, 0), 12, "private"),
    // Includes the few anycast services inside it (PCP, TURN): no webhook receiver there.
    (Ipv4Addr::new(192, 0, 0, 0), 24, "IETF protocol assignment"),
    (Ipv4Addr::new(192, 0, 2, 0), 24, "documentation"),
    (Ipv4Addr::new(192, 88, 99, 0), 24, "6to4 relay anycast"),
    (Ipv4Addr::new(192, 168, 0, 0), 16, "private"),
    (Ipv4Addr::new(198, 18, 0, 0), 15, "benchmarking"),
    (Ipv4Addr::new(198, 51, 100, 0), 24, "documentation"),
    (Ipv4Addr::new(203, 0, 113, 0), 24, "documentation"),
    (Ipv4Addr::new(224, 0, 0, 0), 4, "multicast"),
    (Ipv4Addr::new(255, 255, 255, 255), 32, "broadcast"),
    (Ipv4Addr::new(240, 0, 0, 0), 4, "reserved"),
];

/// IPv6 blocks that are refused, first match wins; after them, anything outside 2000::/3.
const V6: &[(Ipv6Addr, u8, &str)] = &[
    (Ipv6Addr::UNSPECIFIED, 128, "unspecified"),
    (Ipv6Addr::LOCALHOST, 128, "loopback"),
    (
        Ipv6Addr::new(0, 0, 0, 0, 0, 0xffff, 0, 0),
        96,
        "IPv4-mapped",
    ),
    (
        Ipv6Addr::new(0, 0, 0, 0, 0xffff, 0, 0, 0),
        96,
        "IPv4-translated (SIIT)",
    ),
    (Ipv6Addr::new(0, 0, 0, 0, 0, 0, 0, 0), 96, "IPv4-compatible"),
    (
        Ipv6Addr::new(0x64, 0xff9b, 1, 0, 0, 0, 0, 0),
        48,
        "NAT64 local-use",
    ),
    (
        Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0),
        64,
        "discard-only",
    ),
    (
        Ipv6Addr::new(0x100, 0, 0, 1, 0, 0, 0, 0),
        64,
        "dummy prefix",
    ),
    (Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0), 32, "Teredo"),
    (
        Ipv6Addr::new(0x2001, 2, 0, 0, 0, 0, 0, 0),
        48,
        "benchmarking",
    ),
    (
        Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0),
        32,
        "documentation",
    ),
    // ORCHID, AMT, AS112 and anycast services: none of them a webhook receiver.
    (
        Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0),
        23,
        "IETF protocol assignment",
    ),
    (Ipv6Addr::new(0x2002, 0, 0, 0, 0, 0, 0, 0), 16, "6to4"),
    (
        Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0),
        20,
        "documentation",
    ),
    (
        Ipv6Addr::new(0x5f00, 0, 0, 0, 0, 0, 0, 0),
        16,
        "SRv6 segment identifier",
    ),
    (
        Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0),
        7,
        "private (unique local)",
    ),
    (Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10, "link-local"),
    (Ipv6Addr::new(0xfec0, 0, 0, 0, 0, 0, 0, 0), 10, "site-local"),
    (Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0), 8, "multicast"),
];

/// 64:ff9b::/96, the NAT64 well-known prefix: the last 32 bits are an IPv4 address.
const NAT64: (Ipv6Addr, u8) = (Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96);

fn in_v4(ip: Ipv4Addr, net: Ipv4Addr, len: u8) -> bool {
    let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
    u32::from(ip) & mask == u32::from(net) & mask
}

fn in_v6(ip: Ipv6Addr, net: Ipv6Addr, len: u8) -> bool {
    let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
    u128::from(ip) & mask == u128::from(net) & mask
}

fn v4_kind(ip: Ipv4Addr) -> Option<&'static str> {
    V4.iter()
        .find(|(net, len, _)| in_v4(ip, *net, *len))
        .map(|(_, _, kind)| *kind)
}

fn v6_kind(ip: Ipv6Addr) -> Option<&'static str> {
    if in_v6(ip, NAT64.0, NAT64.1) {
        let [.., a, b, c, d] = ip.octets();
        return v4_kind(Ipv4Addr::new(a, b, c, d));
    }
    if let Some((_, _, kind)) = V6.iter().find(|(net, len, _)| in_v6(ip, *net, *len)) {
        return Some(kind);
    }
    let global_unicast = Ipv6Addr::new(0x2000, 0, 0, 0, 0, 0, 0, 0);
    (!in_v6(ip, global_unicast, 3)).then_some("reserved")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(s: &str) -> Option<&'static str> {
        internal_kind(s.parse().unwrap())
    }

    fn refused(cases: &[(&str, &str)]) {
        for (ip, k) in cases {
            assert_eq!(kind(ip), Some(*k), "{ip}");
        }
    }

    #[test]
    fn refuses_internal_v4() {
        refused(&[
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
            ("239.255.255.255", "multicast"),
            ("255.255.255.255", "broadcast"),
            ("240.0.0.1", "reserved"),
            ("255.255.255.254", "reserved"),
        ]);
    }

    #[test]
    fn refuses_the_v4_special_purpose_blocks() {
        refused(&[
            ("192.0.0.0", "IETF protocol assignment"),
            ("192.0.0.8", "IETF protocol assignment"),
            ("192.0.0.170", "IETF protocol assignment"),
            ("192.0.0.255", "IETF protocol assignment"),
            ("192.0.2.1", "documentation"),
            ("198.51.100.7", "documentation"),
            ("203.0.113.255", "documentation"),
            ("198.18.0.1", "benchmarking"),
            ("198.19.255.255", "benchmarking"),
            ("192.88.99.1", "6to4 relay anycast"),
        ]);
    }

    #[test]
    fn refuses_internal_v6() {
        refused(&[
            ("::", "unspecified"),
            ("::1", "loopback"),
            ("fc00::1", "private (unique local)"),
            ("fdab:cdef::1", "private (unique local)"),
            ("fe80::1", "link-local"),
            ("febf::1", "link-local"),
            ("fec0::1", "site-local"),
            ("feff:ffff::1", "site-local"),
            ("ff02::1", "multicast"),
            ("ff0e::1", "multicast"),
        ]);
    }

    #[test]
    fn refuses_every_form_that_carries_ipv4() {
        refused(&[
            // Mapped, SIIT-translated and compatible: refused whatever they carry.
            ("::ffff:127.0.0.1", "IPv4-mapped"),
            ("::ffff:10.0.0.1", "IPv4-mapped"),
            ("::ffff:8.8.8.8", "IPv4-mapped"),
            ("::ffff:0:7f00:1", "IPv4-translated (SIIT)"),
            ("::ffff:0:808:808", "IPv4-translated (SIIT)"),
            ("::127.0.0.1", "IPv4-compatible"),
            ("::8.8.8.8", "IPv4-compatible"),
            ("::2", "IPv4-compatible"),
            // 6to4 and Teredo: tunnels to an IPv4 address, refused whatever they carry.
            ("2002:7f00:1::", "6to4"),
            ("2002:c0a8:101::1", "6to4"),
            ("2002:a00:1::1", "6to4"),
            ("2002:808:808::1", "6to4"),
            ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"),
            ("2001::1", "Teredo"),
            // NAT64: the well-known prefix is judged by what it embeds; local-use is refused.
            ("64:ff9b::a9fe:a9fe", "link-local"),
            ("64:ff9b::7f00:1", "loopback"),
            ("64:ff9b::a00:1", "private"),
            ("64:ff9b::c612:1", "benchmarking"),
            ("64:ff9b:1::808:808", "NAT64 local-use"),
            ("64:ff9b:1:ffff::1", "NAT64 local-use"),
        ]);
    }

    #[test]
    fn refuses_the_v6_special_purpose_blocks() {
        refused(&[
            ("100::1", "discard-only"),
            ("100::ffff:ffff:ffff:ffff", "discard-only"),
            ("100:0:0:1::1", "dummy prefix"),
            ("2001:2::1", "benchmarking"),
            ("2001:db8::1", "documentation"),
            ("2001:db8:ffff::1", "documentation"),
            ("3fff::1", "documentation"),
            ("3fff:fff::1", "documentation"),
            ("2001:1::1", "IETF protocol assignment"),
            ("2001:10::1", "IETF protocol assignment"),
            ("2001:20::1", "IETF protocol assignment"),
            ("2001:1ff::1", "IETF protocol assignment"),
            ("5f00::1", "SRv6 segment identifier"),
            // Not allocated for global unicast.
            ("400::1", "reserved"),
            ("1::1", "reserved"),
            ("4000::1", "reserved"),
            ("e000::1", "reserved"),
        ]);
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
            "192.0.1.1",
            "192.169.0.1",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.255",
            "2606:4700:4700::1111",
            "2001:200::1",
            "2003::1",
            "3ffe::1",
            "3fff:1000::1",
            "64:ff9b::808:808",
        ] {
            assert_eq!(kind(ip), None, "{ip}");
        }
    }
}
