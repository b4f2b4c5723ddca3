//! How fast a compaction may write: HBase's pressure-aware throughput control.
//!
//! A compaction rewrites a store's files as fast as the disk and a core allow, which takes
//! both from the reads and writes running beside it: their tails stretch while it runs.
//! So a compaction is paced to a byte rate that rises with the store's *pressure*, how
//! close its file count is to the count at which writers would have to wait:
//!
//! ```text
//! pressure = (files - min_files) / (blocking_files - min_files)        (0 when files ≤ min)
//! limit    = lower + (higher - lower) × pressure                       (pressure ≤ 1)
//!            no limit                                                  (pressure > 1)
//! ```
//!
//! | files | min 3, blocking 16 | limit (lower 50, higher 100 MiB/s) |
//! |-------|--------------------|------------------------------------|
//! | 3     | pressure 0         | 50 MiB/s |
//! | 9     | pressure 0.46      | 73 MiB/s |
//! | 16    | pressure 1         | 100 MiB/s |
//! | 17    | pressure 1.08      | none: the store must shed files now |
//!
//! HBase's defaults are the same bounds (`hbase.hstore.compaction.throughput.lower.bound`,
//! `.higher.bound`); a lower bound of 0 turns pacing off. [`Pace`] turns a limit and the
//! bytes written so far into how long to wait: the decision is pure, the waiting is the
//! caller's (on the engine's stop signal, so a paced compaction never delays a shutdown).

use std::time::Duration;

/// Bytes written between two checks of the pace.
pub const CHECK_EVERY_BYTES: u64 = 1 << 20;

/// The configured bounds, in bytes per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThroughputBounds {
    pub lower: u64,
    pub higher: u64,
}

impl ThroughputBounds {
    /// The rate a compaction of a store holding `files` files may write at, `None` for no
    /// limit (pacing off, or the store at or past its blocking count).
    pub fn limit(&self, files: usize, min_files: usize, blocking_files: usize) -> Option<u64> {
        if self.lower == 0 {
            return None;
        }
        let span = blocking_files.saturating_sub(min_files).max(1) as f64;
        let pressure = files.saturating_sub(min_files) as f64 / span;
        if pressure > 1.0 {
            return None;
        }
        let higher = self.higher.max(self.lower);
        Some(self.lower + ((higher - self.lower) as f64 * pressure) as u64)
    }
}

/// A compaction's progress against its limit.
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    limit: Option<u64>,
    checked_at_bytes: u64,
}

impl Pace {
    pub fn new(limit: Option<u64>) -> Self {
        Self {
            limit,
            checked_at_bytes: 0,
        }
    }

    pub fn limit(&self) -> Option<u64> {
        self.limit
    }

    /// How long to wait, `written` bytes having taken `elapsed`: none until
    /// [`CHECK_EVERY_BYTES`] more were written since the last check, then as long as
    /// writing them at the limit would have taken beyond `elapsed`.
    pub fn wait(&mut self, written: u64, elapsed: Duration) -> Duration {
        let Some(limit) = self.limit else {
            return Duration::ZERO;
        };
        if written < self.checked_at_bytes + CHECK_EVERY_BYTES {
            return Duration::ZERO;
        }
        self.checked_at_bytes = written;
        let due = Duration::from_secs_f64(written as f64 / limit as f64);
        due.saturating_sub(elapsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn the_limit_rises_with_pressure_and_lifts_past_the_blocking_count() {
        let bounds = ThroughputBounds {
            lower: 50 * MIB,
            higher: 100 * MIB,
        };
        let limit = |files| bounds.limit(files, 3, 16).map(|b| b / MIB);
        assert_eq!(limit(0), Some(50));
        assert_eq!(limit(3), Some(50));
        assert_eq!(limit(9), Some(73));
        assert_eq!(limit(16), Some(100));
        assert_eq!(limit(17), None);
        let off = ThroughputBounds {
            lower: 0,
            higher: 100 * MIB,
        };
        assert_eq!(off.limit(3, 3, 16), None);
        // A blocking count at or below the minimum: pressure counts per file past it.
        assert_eq!(bounds.limit(3, 3, 3), Some(50 * MIB));
        assert_eq!(bounds.limit(5, 3, 3), None);
    }

    #[test]
    fn a_pace_waits_for_what_the_limit_says_writing_took() {
        let mut pace = Pace::new(Some(10 * MIB));
        // Below the check interval: no decision yet.
        assert_eq!(pace.wait(MIB / 2, Duration::ZERO), Duration::ZERO);
        // 1 MiB at 10 MiB/s is 100 ms; 40 ms went by: wait 60.
        assert_eq!(
            pace.wait(MIB, Duration::from_millis(40)),
            Duration::from_millis(60)
        );
        // Slower than the limit already: no wait.
        assert_eq!(
            pace.wait(2 * MIB, Duration::from_millis(500)),
            Duration::ZERO
        );
        assert_eq!(
            Pace::new(None).wait(100 * MIB, Duration::ZERO),
            Duration::ZERO
        );
    }
}
