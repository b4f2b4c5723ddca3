//! The backend connections of a credential-passing gateway, one per credential: bounded
//! and expiring, over injected time.
//!
//! Keys are SHA-256 digests of the credential (no secret is kept as a key). A lookup
//! refreshes an entry; an entry unused for `idle` is gone; when `entries_max` are held, the
//! least recently used goes first. Worked example (entries_max 2, idle 10 s):
//!
//! | at  | call         | held after (most recent last) | answer |
//! |-----|--------------|-------------------------------|--------|
//! | 0 s | insert a     | a                             |        |
//! | 1 s | insert b     | a b                           |        |
//! | 2 s | get a        | b a                           | a      |
//! | 3 s | insert c     | a c   (b least recent: gone)  |        |
//! | 14 s| get c        | (a and c idle 11 s: gone)     | none   |

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// How many credentials keep a backend connection at once.
pub const ENTRIES_MAX: usize = 64;
/// How long an unused backend connection is kept.
pub const IDLE: Duration = Duration::from_secs(300);

#[derive(Debug)]
pub struct Pool<V> {
    entries_max: usize,
    idle: Duration,
    entries: HashMap<String, (V, Instant)>,
}

impl<V: Clone> Pool<V> {
    pub fn new(entries_max: usize, idle: Duration) -> Self {
        Self {
            entries_max: entries_max.max(1),
            idle,
            entries: HashMap::new(),
        }
    }

    /// The entry under `key` unless idle too long; refreshes it.
    pub fn get(&mut self, key: &str, now: Instant) -> Option<V> {
        let fresh = match self.entries.get_mut(key) {
            Some((value, used)) if now.duration_since(*used) < self.idle => {
                *used = now;
                Some(value.clone())
            }
            Some(_) => None,
            None => return None,
        };
        if fresh.is_none() {
            self.entries.remove(key);
        }
        fresh
    }

    /// Holds `value` under `key`, dropping idle entries, then the least recently used.
    pub fn insert(&mut self, key: String, value: V, now: Instant) {
        let idle = self.idle;
        self.entries
            .retain(|_, (_, used)| now.duration_since(*used) < idle);
        while self.entries.len() >= self.entries_max && !self.entries.contains_key(&key) {
            let oldest = self
                .entries
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => self.entries.remove(&k),
                None => break,
            };
        }
        self.entries.insert(key, (value, now));
    }

    pub fn remove(&mut self, key: &str) {
        self.entries.remove(key);
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table of the module doc, row by row.
    #[test]
    fn the_least_recently_used_and_the_idle_go() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut pool = Pool::new(2, Duration::from_secs(10));
        pool.insert("a".into(), 'a', at(0));
        pool.insert("b".into(), 'b', at(1));
        assert_eq!(pool.get("a", at(2)), Some('a'));
        pool.insert("c".into(), 'c', at(3));
        assert_eq!(pool.get("b", at(3)), None, "b was the least recently used");
        assert_eq!(pool.len(), 2);
        assert_eq!(pool.get("c", at(14)), None, "idle 11 s");
        assert_eq!(pool.get("a", at(14)), None, "idle 12 s");
        assert!(pool.is_empty());
    }

    #[test]
    fn inserting_a_held_key_replaces_it_without_evicting_another() {
        let t0 = Instant::now();
        let mut pool = Pool::new(2, Duration::from_secs(10));
        pool.insert("a".into(), 1, t0);
        pool.insert("b".into(), 2, t0);
        pool.insert("a".into(), 3, t0);
        assert_eq!(pool.get("a", t0), Some(3));
        assert_eq!(pool.get("b", t0), Some(2));
        pool.remove("a");
        assert_eq!(pool.get("a", t0), None);
    }
}
