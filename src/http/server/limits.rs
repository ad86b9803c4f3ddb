//! How many connections may be open: in all (`--max-connections`) and per client address
//! (`--max-connections-per-ip`), so that one client's many slow connections cannot use up what
//! the others need. Trusted proxies count only toward the total: all their clients share their
//! address.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The connection limits of `docket serve`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Open connections at most, in all.
    pub max_connections: usize,
    /// Open connections at most from one address (IPv6: one /64).
    pub max_per_ip: usize,
    /// A connection with no request in flight and no bytes moving for this long is closed
    /// (a new one that brings no request, or one whose client takes none of a response, after
    /// at most 30 s).
    pub idle: Duration,
    /// A request body that brings no new bytes for this long is answered 408 and the
    /// connection closed.
    pub body: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 1024,
            max_per_ip: 64,
            idle: Duration::from_secs(120),
            body: Duration::from_secs(30),
        }
    }
}

/// Why a connection was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    Full,
    PerAddress,
}

/// The open connections, counted in all and per address.
#[derive(Debug)]
pub struct Slots {
    max: usize,
    per_ip: usize,
    open: Mutex<Open>,
    /// Seconds since `created` of the last warning about the total cap (plus one; 0: never).
    warned: AtomicU64,
    created: Instant,
}

#[derive(Debug, Default)]
struct Open {
    total: usize,
    by_ip: HashMap<IpAddr, usize>,
}

/// One open connection's place; dropping it frees the place.
#[derive(Debug)]
pub struct Slot {
    slots: Arc<Slots>,
    key: Option<IpAddr>,
}

impl Slots {
    pub fn new(limits: &Limits) -> Arc<Slots> {
        Arc::new(Slots {
            max: limits.max_connections,
            per_ip: limits.max_per_ip,
            open: Mutex::new(Open::default()),
            warned: AtomicU64::new(0),
            created: Instant::now(),
        })
    }

    /// A place for a connection from `ip`; `per_address` is false for trusted proxies.
    pub fn take(self: &Arc<Self>, ip: IpAddr, per_address: bool) -> Result<Slot, Refused> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if open.total >= self.max {
            return Err(Refused::Full);
        }
        let key = per_address.then(|| address_key(ip));
        if let Some(k) = key {
            let n = open.by_ip.entry(k).or_insert(0);
            if *n >= self.per_ip {
                return Err(Refused::PerAddress);
            }
            *n += 1;
        }
        open.total += 1;
        Ok(Slot {
            slots: Arc::clone(self),
            key,
        })
    }

    /// True for the first refusal of a minute, so that a flood logs one warning a minute.
    pub fn first_refusal_this_minute(&self) -> bool {
        let now = self.created.elapsed().as_secs() + 1;
        let last = self.warned.load(Ordering::Relaxed);
        (last == 0 || now >= last + 60)
            && self
                .warned
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.open.lock().unwrap_or_else(|p| p.into_inner()).total
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.slots.open.lock().unwrap_or_else(|p| p.into_inner());
        open.total -= 1;
        if let Some(k) = self.key
            && let Some(n) = open.by_ip.get_mut(&k)
        {
            *n -= 1;
            if *n == 0 {
                open.by_ip.remove(&k);
            }
        }
    }
}

/// What counts as one client (`core::client_address`): the same rule as every other
/// per-client limit's.
fn address_key(ip: IpAddr) -> IpAddr {
    crate::core::client_address::client_of(ip)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max: usize, per_ip: usize) -> Limits {
        Limits {
            max_connections: max,
            max_per_ip: per_ip,
            ..Limits::default()
        }
    }

    #[test]
    fn per_address_and_total_caps_hold_and_free_on_drop() {
        let slots = Slots::new(&limits(3, 2));
        let a: IpAddr = "127.0.0.2".parse().unwrap();
        let b: IpAddr = "127.0.0.3".parse().unwrap();
        let a1 = slots.take(a, true).unwrap();
        let _a2 = slots.take(a, true).unwrap();
        assert_eq!(slots.take(a, true).unwrap_err(), Refused::PerAddress);
        let _b1 = slots.take(b, true).unwrap();
        assert_eq!(slots.take(b, true).unwrap_err(), Refused::Full);
        drop(a1);
        assert_eq!(slots.open(), 2);
        let _a3 = slots.take(a, true).unwrap();
        assert_eq!(slots.open(), 3);
    }

    #[test]
    fn proxies_count_only_in_the_total_and_ipv6_by_its_64() {
        let slots = Slots::new(&limits(10, 1));
        let proxy: IpAddr = "10.0.0.1".parse().unwrap();
        let _p: Vec<Slot> = (0..5).map(|_| slots.take(proxy, false).unwrap()).collect();
        let _x = slots.take("2001:db8::1".parse().unwrap(), true).unwrap();
        assert_eq!(
            slots
                .take("2001:db8::ffff".parse().unwrap(), true)
                .unwrap_err(),
            Refused::PerAddress
        );
        slots
            .take("2001:db8:0:1::1".parse().unwrap(), true)
            .unwrap();
        let _y = slots.take("192.0.2.1".parse().unwrap(), true).unwrap();
        assert_eq!(
            slots
                .take("::ffff:192.0.2.1".parse().unwrap(), true)
                .unwrap_err(),
            Refused::PerAddress
        );
    }
}
