//! [`BootInstant`]: time that keeps counting while the machine is suspended, for lease
//! deadlines.
//!
//! `std::time::Instant` (and tokio's) is Linux's `CLOCK_MONOTONIC`, which stops while the
//! machine or VM is suspended. A region server suspended past its lease would wake up
//! believing it still had seconds before its deadline — while the coordinator, whose clock
//! did not stop, expired the lease and the master gave its regions to others. Deadlines are
//! therefore kept on `CLOCK_BOOTTIME`, which counts the suspended time too. Elsewhere than
//! Linux the monotonic clock stands in.

use std::ops::Add;
use std::time::Duration;

/// A moment on the boot clock (the time since boot, suspended time included).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BootInstant(Duration);

impl BootInstant {
    pub fn now() -> Self {
        Self(since_boot())
    }

    /// How long after `earlier` this is (zero when it is not after).
    pub fn saturating_duration_since(self, earlier: BootInstant) -> Duration {
        self.0.saturating_sub(earlier.0)
    }

    /// The time since boot it stands for (for a clock that tests move by hand).
    pub fn from_since_boot(since_boot: Duration) -> Self {
        Self(since_boot)
    }
}

impl Add<Duration> for BootInstant {
    type Output = BootInstant;

    fn add(self, rhs: Duration) -> BootInstant {
        BootInstant(self.0.saturating_add(rhs))
    }
}

#[cfg(target_os = "linux")]
fn since_boot() -> Duration {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::Boottime);
    let secs = u64::try_from(now.tv_sec).unwrap_or(0);
    let nanos = u32::try_from(now.tv_nsec).unwrap_or(0);
    Duration::new(secs, nanos)
}

#[cfg(not(target_os = "linux"))]
fn since_boot() -> Duration {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_moves_forward_with_real_time() {
        let before = BootInstant::now();
        std::thread::sleep(Duration::from_millis(20));
        let after = BootInstant::now();
        let passed = after.saturating_duration_since(before);
        assert!(passed >= Duration::from_millis(20), "{passed:?}");
        assert!(passed < Duration::from_secs(5), "{passed:?}");
        assert_eq!(before.saturating_duration_since(after), Duration::ZERO);
        assert_eq!(before + passed, after);
    }
}
