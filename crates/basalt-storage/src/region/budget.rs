//! The global memstore budget: writers wait while all memstores together are over the limit.
//!
//! Writers add what they wrote; flushes give it back. A writer arriving while the total is
//! over the limit asks for a flush and waits (up to a timeout, then fails "busy") instead of
//! letting memory grow without bound.

use parking_lot::{Condvar, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug)]
pub struct MemstoreBudget {
    limit_bytes: u64,
    used: Mutex<u64>,
    freed: Condvar,
}

/// What a writer should do before writing.
#[derive(Debug, PartialEq, Eq)]
pub enum Admission {
    /// Under the limit: go ahead.
    Admitted,
    /// Waited this long for flushes to bring the total under the limit.
    AdmittedAfterWaiting(Duration),
    /// Still over the limit after the timeout.
    TimedOut,
}

impl MemstoreBudget {
    pub fn new(limit_bytes: u64) -> Self {
        Self {
            limit_bytes,
            used: Mutex::new(0),
            freed: Condvar::new(),
        }
    }

    pub fn used_bytes(&self) -> u64 {
        *self.used.lock()
    }

    pub fn limit_bytes(&self) -> u64 {
        self.limit_bytes
    }

    pub fn is_over(&self) -> bool {
        *self.used.lock() >= self.limit_bytes
    }

    /// Waits while over the limit, calling `request_flush` once before waiting.
    pub fn admit(&self, timeout: Duration, request_flush: impl FnOnce()) -> Admission {
        let mut used = self.used.lock();
        if *used < self.limit_bytes {
            return Admission::Admitted;
        }
        drop(used);
        request_flush();
        let start = Instant::now();
        used = self.used.lock();
        while *used >= self.limit_bytes {
            let left = timeout.saturating_sub(start.elapsed());
            if left.is_zero()
                || self.freed.wait_for(&mut used, left).timed_out() && *used >= self.limit_bytes
            {
                return Admission::TimedOut;
            }
        }
        Admission::AdmittedAfterWaiting(start.elapsed())
    }

    pub fn add(&self, bytes: u64) {
        *self.used.lock() += bytes;
    }

    pub fn release(&self, bytes: u64) {
        let mut used = self.used.lock();
        *used = used.saturating_sub(bytes);
        self.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn under_the_limit_admits_at_once() {
        let budget = MemstoreBudget::new(100);
        budget.add(50);
        assert_eq!(
            budget.admit(Duration::ZERO, || panic!("no flush needed")),
            Admission::Admitted
        );
    }

    #[test]
    fn over_the_limit_waits_for_a_release() {
        let budget = Arc::new(MemstoreBudget::new(100));
        budget.add(150);
        let releaser = budget.clone();
        let admission = budget.admit(Duration::from_secs(30), move || {
            std::thread::spawn(move || releaser.release(100));
        });
        assert!(matches!(admission, Admission::AdmittedAfterWaiting(_)));
        assert_eq!(budget.used_bytes(), 50);
    }

    #[test]
    fn times_out_when_nothing_is_freed() {
        let budget = MemstoreBudget::new(10);
        budget.add(10);
        assert_eq!(
            budget.admit(Duration::from_millis(1), || {}),
            Admission::TimedOut
        );
    }
}
