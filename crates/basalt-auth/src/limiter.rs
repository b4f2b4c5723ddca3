//! The failed-attempt limiter: a pure core deciding, per client address, whether the next
//! authentication attempt may be checked now or must wait.
//!
//! The first `free_failures` failures from an address cost nothing more; after that each
//! failure closes the address for a back-off that doubles, up to `backoff_max_ms`. A
//! refused attempt is answered at once *without* hashing anything, so a flood of wrong
//! passwords cannot turn password hashing into a CPU denial of service. A success forgets
//! the address. With `free_failures = 3`, `backoff_base_ms = 200`:
//!
//! | failures so far | next attempt |
//! |---|---|
//! | 0–3 | checked |
//! | 4 | refused for 200 ms, then checked |
//! | 5 | refused for 400 ms |
//! | 6 | refused for 800 ms |
//! | 4 + k | refused for min(200 · 2^k ms, backoff_max_ms) |
//!
//! The table is bounded (`addresses_max`): when full, addresses quiet for the longest are
//! forgotten first.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimiterConfig {
    pub free_failures: u32,
    pub backoff_base_ms: u64,
    pub backoff_max_ms: u64,
    pub addresses_max: usize,
}

impl Default for LimiterConfig {
    fn default() -> Self {
        Self {
            free_failures: 3,
            backoff_base_ms: 200,
            backoff_max_ms: 30_000,
            addresses_max: 10_000,
        }
    }
}

/// Whether an attempt may be checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Check,
    Refuse { retry_after: Duration },
}

#[derive(Debug, Clone, Copy)]
struct State {
    failures: u32,
    closed_until: Instant,
    last_failure: Instant,
}

#[derive(Debug)]
pub struct FailureLimiter {
    config: LimiterConfig,
    addresses: HashMap<IpAddr, State>,
}

impl FailureLimiter {
    pub fn new(config: LimiterConfig) -> Self {
        Self {
            config,
            addresses: HashMap::new(),
        }
    }

    /// May an attempt from `addr` be checked at `now`?
    pub fn verdict(&self, addr: IpAddr, now: Instant) -> Verdict {
        match self.addresses.get(&addr) {
            Some(s) if s.closed_until > now => Verdict::Refuse {
                retry_after: s.closed_until - now,
            },
            _ => Verdict::Check,
        }
    }

    /// The back-off after failure number `failures` (1-based).
    pub fn backoff(&self, failures: u32) -> Duration {
        let over = failures.saturating_sub(self.config.free_failures);
        if over == 0 {
            return Duration::ZERO;
        }
        let factor = 1u64.checked_shl((over - 1).min(32)).unwrap_or(u64::MAX);
        Duration::from_millis(
            self.config
                .backoff_base_ms
                .saturating_mul(factor)
                .min(self.config.backoff_max_ms),
        )
    }

    /// Records a failed attempt from `addr`.
    pub fn failed(&mut self, addr: IpAddr, now: Instant) {
        if !self.addresses.contains_key(&addr) && self.addresses.len() >= self.config.addresses_max
        {
            self.forget_quietest();
        }
        let failures = self.addresses.get(&addr).map_or(0, |s| s.failures) + 1;
        let closed_until = now + self.backoff(failures);
        self.addresses.insert(
            addr,
            State {
                failures,
                closed_until,
                last_failure: now,
            },
        );
    }

    /// Records a success from `addr`: its failures are forgotten.
    pub fn succeeded(&mut self, addr: IpAddr) {
        self.addresses.remove(&addr);
    }

    pub fn failures(&self, addr: IpAddr) -> u32 {
        self.addresses.get(&addr).map_or(0, |s| s.failures)
    }

    fn forget_quietest(&mut self) {
        let quietest = self
            .addresses
            .iter()
            .min_by_key(|(_, s)| s.last_failure)
            .map(|(a, _)| *a);
        if let Some(addr) = quietest {
            self.addresses.remove(&addr);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([10, 0, 0, last])
    }

    /// The table of the module doc, run: (failures recorded, then what the next attempt
    /// at +0 ms and at +backoff ms is told).
    #[test]
    fn backoff_follows_the_table() {
        let mut l = FailureLimiter::new(LimiterConfig::default());
        let t0 = Instant::now();
        let golden = [
            (1, 0),
            (2, 0),
            (3, 0),
            (4, 200),
            (5, 400),
            (6, 800),
            (7, 1600),
        ];
        for (failures, wait_ms) in golden {
            l.failed(ip(1), t0);
            assert_eq!(l.failures(ip(1)), failures);
            let expect = match wait_ms {
                0 => Verdict::Check,
                ms => Verdict::Refuse {
                    retry_after: Duration::from_millis(ms),
                },
            };
            assert_eq!(l.verdict(ip(1), t0), expect, "after {failures} failures");
            assert_eq!(
                l.verdict(ip(1), t0 + Duration::from_millis(wait_ms)),
                Verdict::Check
            );
        }
        assert_eq!(
            l.verdict(ip(2), t0),
            Verdict::Check,
            "other addresses unaffected"
        );
        for _ in 0..100 {
            l.failed(ip(1), t0);
        }
        assert_eq!(
            l.backoff(l.failures(ip(1))),
            Duration::from_secs(30),
            "capped"
        );
        l.succeeded(ip(1));
        assert_eq!(l.verdict(ip(1), t0), Verdict::Check);
    }

    #[test]
    fn the_table_is_bounded_forgetting_the_quietest() {
        let mut l = FailureLimiter::new(LimiterConfig {
            addresses_max: 2,
            ..LimiterConfig::default()
        });
        let t0 = Instant::now();
        l.failed(ip(1), t0);
        l.failed(ip(2), t0 + Duration::from_millis(1));
        l.failed(ip(3), t0 + Duration::from_millis(2));
        assert_eq!(l.failures(ip(1)), 0, "the quietest was forgotten");
        assert_eq!(l.failures(ip(2)), 1);
        assert_eq!(l.failures(ip(3)), 1);
    }
}
