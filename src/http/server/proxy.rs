//! Trusted reverse proxies (`--trusted-proxies`) and the client address they forward.
//!
//! Only when the direct peer lies in a trusted range is a forwarding header believed; then the
//! client is the rightmost address of the chain that is not itself a trusted proxy (every proxy
//! appends the address it received the request from, so entries left of the first untrusted
//! one may have been written by the client). `X-Forwarded-For` is read when present, the
//! standard `Forwarded` (RFC 7239) otherwise: the common proxies maintain `X-Forwarded-For` and
//! pass a client's `Forwarded` through untouched, so preferring `Forwarded` would let any client
//! pick its own address.

use std::net::{IpAddr, SocketAddr};

use http::HeaderMap;
use ipnet::IpNet;

use crate::core::client_address::canonical;

/// The address ranges whose forwarding headers are believed; empty trusts nobody.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Parses CIDR ranges (`10.0.0.0/8`, `fd00::/8`) or single addresses (`127.0.0.1`, `::1`).
    pub fn parse<'a>(items: impl IntoIterator<Item = &'a str>) -> Result<Self, String> {
        let mut nets = Vec::new();
        for raw in items {
            let item = raw.trim();
            if item.is_empty() {
                continue;
            }
            let net = match item.parse::<IpNet>() {
                Ok(n) => n.trunc(),
                Err(_) => item.parse::<IpAddr>().map(IpNet::from).map_err(|_| {
                    format!("{item:?} is not an address range (e.g. 10.0.0.0/8, ::1/128)")
                })?,
            };
            nets.push(net);
        }
        Ok(TrustedProxies(nets))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        self.0.iter().any(|n| n.contains(&ip))
    }
}

/// The client behind `peer`: the forwarded address when `peer` is a trusted proxy that
/// forwarded one, `peer` itself otherwise. A forwarded address without a port gets port 0.
pub fn client_addr(peer: SocketAddr, headers: &HeaderMap, trusted: &TrustedProxies) -> SocketAddr {
    if trusted.is_empty() || !trusted.contains(peer.ip()) {
        return peer;
    }
    let chain = match joined(headers, "x-forwarded-for") {
        Some(xff) => xff.split(',').map(|e| parse_node(e.trim())).collect(),
        None => match joined(headers, "forwarded") {
            Some(fwd) => forwarded_for(&fwd),
            None => return peer,
        },
    };
    rightmost_untrusted(&chain, trusted).unwrap_or(peer)
}

/// Walks the chain from the right past trusted proxies. An entry that is not an address
/// (`unknown`, an obfuscated name, garbage) ends the walk: nothing left of it can be checked.
fn rightmost_untrusted(
    chain: &[Option<SocketAddr>],
    trusted: &TrustedProxies,
) -> Option<SocketAddr> {
    let mut last_trusted = None;
    for node in chain.iter().rev() {
        let addr = (*node)?;
        if !trusted.contains(addr.ip()) {
            return Some(addr);
        }
        last_trusted = Some(addr);
    }
    // Every hop was a trusted proxy: the furthest one is the best we know.
    last_trusted
}

/// All values of a header joined by commas (a list header may be split over several lines).
fn joined(headers: &HeaderMap, name: &str) -> Option<String> {
    let values: Vec<&str> = headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    (!values.is_empty()).then(|| values.join(","))
}

/// The `for=` node of each element of a `Forwarded` header (RFC 7239 section 4); an element
/// without one, or with one that is not an address, is `None`.
fn forwarded_for(header: &str) -> Vec<Option<SocketAddr>> {
    split_outside_quotes(header, ',')
        .into_iter()
        .map(|element| {
            split_outside_quotes(element, ';')
                .into_iter()
                .find_map(|pair| {
                    let (name, value) = pair.split_once('=')?;
                    name.trim()
                        .eq_ignore_ascii_case("for")
                        .then(|| unquote(value.trim()))
                })
                .and_then(|v| parse_node(&v))
        })
        .collect()
}

/// Splits on `sep` except inside double-quoted strings (which may hold `\"`).
fn split_outside_quotes(s: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
        } else if quoted && c == '\\' {
            escaped = true;
        } else if c == '"' {
            quoted = !quoted;
        } else if c == sep && !quoted {
            parts.push(&s[start..i]);
            start = i + c.len_utf8();
        }
    }
    parts.push(&s[start..]);
    parts
}

fn unquote(v: &str) -> String {
    match v.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        Some(inner) => {
            let mut out = String::with_capacity(inner.len());
            let mut chars = inner.chars();
            while let Some(c) = chars.next() {
                if c == '\\' {
                    out.extend(chars.next());
                } else {
                    out.push(c);
                }
            }
            out
        }
        None => v.to_string(),
    }
}

/// `192.0.2.1`, `192.0.2.1:4711`, `[2001:db8::1]`, `[2001:db8::1]:4711` or `2001:db8::1`.
fn parse_node(node: &str) -> Option<SocketAddr> {
    if let Ok(ip) = node.parse::<IpAddr>() {
        return Some(SocketAddr::new(canonical(ip), 0));
    }
    if let Ok(sa) = node.parse::<SocketAddr>() {
        return Some(SocketAddr::new(canonical(sa.ip()), sa.port()));
    }
    let inner = node.strip_prefix('[')?.strip_suffix(']')?;
    inner
        .parse::<IpAddr>()
        .ok()
        .map(|ip| SocketAddr::new(canonical(ip), 0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn trusted(list: &str) -> TrustedProxies {
        TrustedProxies::parse(list.split(',')).unwrap()
    }

    fn peer(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn ranges_parse_and_bad_ones_are_refused() {
        let t = trusted("10.0.0.0/8, 127.0.0.1 ,fd00::/8,::1,192.168.1.7/24");
        assert!(t.contains("10.200.3.4".parse().unwrap()));
        assert!(t.contains("127.0.0.1".parse().unwrap()));
        assert!(!t.contains("127.0.0.2".parse().unwrap()));
        assert!(t.contains("fd12::1".parse().unwrap()));
        assert!(t.contains("::1".parse().unwrap()));
        assert!(t.contains("192.168.1.200".parse().unwrap()));
        assert!(t.contains("::ffff:10.1.1.1".parse().unwrap()));
        assert!(TrustedProxies::parse(["10.0.0.0/33"]).is_err());
        assert!(TrustedProxies::parse(["proxy.example"]).is_err());
        assert!(TrustedProxies::parse([""]).unwrap().is_empty());
    }

    #[test]
    fn an_untrusted_peer_keeps_its_own_address() {
        let h = headers(&[
            ("x-forwarded-for", "203.0.113.9"),
            ("forwarded", "for=1.2.3.4"),
        ]);
        let p = peer("198.51.100.1:5000");
        assert_eq!(client_addr(p, &h, &TrustedProxies::default()), p);
        assert_eq!(client_addr(p, &h, &trusted("10.0.0.0/8")), p);
    }

    #[test]
    fn x_forwarded_for_gives_the_rightmost_untrusted_address() {
        let t = trusted("10.0.0.0/8");
        let p = peer("10.0.0.2:5000");
        // The client wrote "6.6.6.6" itself; the proxy appended the real one.
        let h = headers(&[("x-forwarded-for", "6.6.6.6, 203.0.113.9, 10.1.1.1")]);
        assert_eq!(client_addr(p, &h, &t), peer("203.0.113.9:0"));
        // Split over two header lines.
        let h = headers(&[
            ("x-forwarded-for", "6.6.6.6"),
            ("x-forwarded-for", "203.0.113.7"),
        ]);
        assert_eq!(client_addr(p, &h, &t), peer("203.0.113.7:0"));
        // Garbage at the right end: the proxy itself.
        let h = headers(&[("x-forwarded-for", "203.0.113.9, nonsense")]);
        assert_eq!(client_addr(p, &h, &t), p);
        // Only trusted hops: the furthest.
        let h = headers(&[("x-forwarded-for", "10.9.9.9, 10.1.1.1")]);
        assert_eq!(client_addr(p, &h, &t), peer("10.9.9.9:0"));
        // No header: the proxy.
        assert_eq!(client_addr(p, &HeaderMap::new(), &t), p);
        let h = headers(&[("x-forwarded-for", "2001:db8::5, [2001:db8::6]:443")]);
        assert_eq!(client_addr(p, &h, &t), peer("[2001:db8::6]:443"));
    }

    #[test]
    fn forwarded_is_read_with_quotes_ports_and_ipv6() {
        let t = trusted("127.0.0.0/8,::1");
        let p = peer("127.0.0.1:5000");
        let h = headers(&[(
            "forwarded",
            r#"for=6.6.6.6;proto=https, For="[2001:db8:cafe::17]:4711";by=127.0.0.1"#,
        )]);
        assert_eq!(client_addr(p, &h, &t), peer("[2001:db8:cafe::17]:4711"));
        let h = headers(&[(
            "forwarded",
            r#"for="198.51.100.17:80";host="a,b", for=127.0.0.1"#,
        )]);
        assert_eq!(client_addr(p, &h, &t), peer("198.51.100.17:80"));
        let h = headers(&[("forwarded", "for=unknown")]);
        assert_eq!(client_addr(p, &h, &t), p);
        let h = headers(&[("forwarded", "for=_hidden, for=198.51.100.3")]);
        assert_eq!(client_addr(p, &h, &t), peer("198.51.100.3:0"));
        // X-Forwarded-For wins when both are present.
        let h = headers(&[("forwarded", "for=1.2.3.4"), ("x-forwarded-for", "5.6.7.8")]);
        assert_eq!(client_addr(p, &h, &t), peer("5.6.7.8:0"));
    }
}
