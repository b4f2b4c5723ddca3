//! A short cache of verified credentials: a client sending the same `Authorization`
//! header on every call pays for one password derivation per `ttl`, not one per call.
//!
//! Keys are SHA-256 digests of the header (no password is kept in memory beyond the
//! call). Only successes are cached. A password change, a removed user or a revoked token
//! takes effect within `ttl`. Bounded: when full, expired entries go, then everything.

use basalt_api::Principal;
use std::collections::HashMap;
use std::time::{Duration, Instant};

pub const ENTRIES_MAX: usize = 10_000;

#[derive(Debug)]
pub struct CredentialCache {
    ttl: Duration,
    entries: HashMap<String, (Principal, Instant)>,
}

impl CredentialCache {
    pub fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            entries: HashMap::new(),
        }
    }

    pub fn get(&self, digest: &str, now: Instant) -> Option<Principal> {
        match self.entries.get(digest) {
            Some((p, until)) if *until > now => Some(p.clone()),
            _ => None,
        }
    }

    pub fn insert(&mut self, digest: String, principal: Principal, now: Instant) {
        if self.ttl.is_zero() {
            return;
        }
        if self.entries.len() >= ENTRIES_MAX {
            self.entries.retain(|_, (_, until)| *until > now);
            if self.entries.len() >= ENTRIES_MAX {
                self.entries.clear();
            }
        }
        self.entries.insert(digest, (principal, now + self.ttl));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_api::AuthMethod;

    #[test]
    fn entries_live_for_the_ttl_only() {
        let mut c = CredentialCache::new(Duration::from_secs(10));
        let t0 = Instant::now();
        let p = Principal::new("alice", AuthMethod::Password);
        c.insert("d".into(), p.clone(), t0);
        assert_eq!(c.get("d", t0 + Duration::from_secs(9)), Some(p));
        assert_eq!(c.get("d", t0 + Duration::from_secs(10)), None);
        assert_eq!(c.get("other", t0), None);
        let mut off = CredentialCache::new(Duration::ZERO);
        off.insert("d".into(), Principal::new("a", AuthMethod::Token), t0);
        assert_eq!(off.get("d", t0), None);
    }
}
