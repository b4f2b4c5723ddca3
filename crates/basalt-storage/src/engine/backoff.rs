//! When to try a region's background job again after it failed for lack of space: a pure
//! schedule, no I/O, no clock of its own (the caller passes `now`).
//!
//! The first retry comes after [`FIRST_DELAY`], each further failure in a row doubles the
//! wait, up to a maximum; a success forgets the region. With a 10 s maximum:
//!
//! | failures in a row | next try after |
//! |-------------------|----------------|
//! | 1                 | 100 ms         |
//! | 2                 | 200 ms         |
//! | 7                 | 6.4 s          |
//! | 8 and more        | 10 s           |

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The wait after the first failure.
pub const FIRST_DELAY: Duration = Duration::from_millis(100);

#[derive(Debug)]
pub struct Backoff {
    max: Duration,
    /// Per region: failures in a row, and when it may be tried again.
    failed: HashMap<String, (u32, Instant)>,
}

impl Backoff {
    pub fn new(max: Duration) -> Self {
        Self {
            max,
            failed: HashMap::new(),
        }
    }

    /// Notes a failure at `now`; returns how long to wait before the next try.
    pub fn failed(&mut self, region: &str, now: Instant) -> Duration {
        let failures = self
            .failed
            .get(region)
            .map_or(1, |(n, _)| n.saturating_add(1));
        let factor = 1u32.checked_shl(failures - 1).unwrap_or(u32::MAX);
        let delay = FIRST_DELAY.saturating_mul(factor).min(self.max);
        self.failed
            .insert(region.to_string(), (failures, now + delay));
        delay
    }

    /// Forgets the region's failures.
    pub fn succeeded(&mut self, region: &str) {
        self.failed.remove(region);
    }

    /// Whether the region must not be tried before a later time.
    pub fn waiting(&self, region: &str, now: Instant) -> bool {
        self.failed.get(region).is_some_and(|(_, at)| *at > now)
    }

    /// Regions whose next try is due at `now`.
    pub fn due(&self, now: Instant) -> Vec<String> {
        self.failed
            .iter()
            .filter(|(_, (_, at))| *at <= now)
            .map(|(region, _)| region.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_schedule_holds() {
        let mut backoff = Backoff::new(Duration::from_secs(10));
        let now = Instant::now();
        let delays: Vec<_> = (0..9).map(|_| backoff.failed("r", now)).collect();
        assert_eq!(delays[0], Duration::from_millis(100));
        assert_eq!(delays[1], Duration::from_millis(200));
        assert_eq!(delays[6], Duration::from_millis(6400));
        assert_eq!(delays[7], Duration::from_secs(10));
        assert_eq!(delays[8], Duration::from_secs(10));
        for _ in 0..100 {
            backoff.failed("r", now);
        }
        assert_eq!(
            backoff.failed("r", now),
            Duration::from_secs(10),
            "no overflow"
        );
    }

    #[test]
    fn a_region_waits_until_due_and_success_forgets_it() {
        let mut backoff = Backoff::new(Duration::from_secs(10));
        let now = Instant::now();
        backoff.failed("a", now);
        assert!(backoff.waiting("a", now));
        assert!(!backoff.waiting("b", now));
        assert!(backoff.due(now).is_empty());
        let later = now + Duration::from_millis(100);
        assert!(!backoff.waiting("a", later));
        assert_eq!(backoff.due(later), vec!["a".to_string()]);
        backoff.succeeded("a");
        assert!(backoff.due(later).is_empty());
        assert_eq!(
            backoff.failed("a", later),
            FIRST_DELAY,
            "counting starts over"
        );
    }
}
