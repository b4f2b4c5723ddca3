//! A latency histogram with fixed buckets: lock-free to record, approximate to read.
//!
//! Recording costs four relaxed atomic operations (bucket, sum, min, max); the count is the
//! sum of the buckets. Percentiles are read as the upper bound of the bucket holding them,
//! clamped to the largest latency seen, so they are never below the true value by more
//! than one bucket.
//!
//! | bucket upper bound (µs) | 50 | 100 | 250 | … | 10 000 000 | +Inf |
//! |---|---|---|---|---|---|---|
//! | a 180 µs get lands in   |    |     | ✓   |   |            |      |

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Upper bounds of the buckets in microseconds; one more bucket holds everything above.
pub const BUCKET_BOUNDS_US: [u64; 18] = [
    50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
    1_000_000, 2_500_000, 5_000_000, 10_000_000, 30_000_000,
];

const BUCKETS: usize = BUCKET_BOUNDS_US.len() + 1;

#[derive(Debug)]
pub struct Histogram {
    buckets: [AtomicU64; BUCKETS],
    sum_us: AtomicU64,
    min_us: AtomicU64,
    max_us: AtomicU64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self {
            buckets: std::array::from_fn(|_| AtomicU64::new(0)),
            sum_us: AtomicU64::new(0),
            min_us: AtomicU64::new(u64::MAX),
            max_us: AtomicU64::new(0),
        }
    }
}

impl Histogram {
    pub fn record(&self, latency: Duration) {
        let us = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        let bucket = BUCKET_BOUNDS_US.partition_point(|&bound| bound < us);
        self.buckets[bucket].fetch_add(1, Ordering::Relaxed);
        self.sum_us.fetch_add(us, Ordering::Relaxed);
        self.min_us.fetch_min(us, Ordering::Relaxed);
        self.max_us.fetch_max(us, Ordering::Relaxed);
    }

    /// The counts as they are now (each read is atomic; the whole is not a single instant).
    pub fn snapshot(&self) -> HistogramSnapshot {
        let counts: Vec<u64> = self
            .buckets
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect();
        let count = counts.iter().sum();
        let min = self.min_us.load(Ordering::Relaxed);
        HistogramSnapshot {
            counts,
            count,
            sum_us: self.sum_us.load(Ordering::Relaxed),
            min_us: if count == 0 { 0 } else { min },
            max_us: self.max_us.load(Ordering::Relaxed),
        }
    }
}

/// A histogram's counts at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistogramSnapshot {
    /// Per bucket (not cumulative), in the order of [`BUCKET_BOUNDS_US`], then +Inf.
    pub counts: Vec<u64>,
    pub count: u64,
    pub sum_us: u64,
    pub min_us: u64,
    pub max_us: u64,
}

impl HistogramSnapshot {
    pub fn mean_us(&self) -> u64 {
        self.sum_us.checked_div(self.count).unwrap_or(0)
    }

    /// The latency at quantile `q` (0.0..=1.0), as its bucket's upper bound.
    pub fn percentile_us(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        // The rank of the wanted sample, 1-based; float to int saturates.
        let rank = ((self.count as f64) * q.clamp(0.0, 1.0)).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                let bound = BUCKET_BOUNDS_US.get(i).copied().unwrap_or(self.max_us);
                return bound.min(self.max_us).max(self.min_us);
            }
        }
        self.max_us
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_count_sum_and_extremes() {
        let h = Histogram::default();
        for us in [10, 50, 51, 180, 2_000_000, 99_000_000] {
            h.record(Duration::from_micros(us));
        }
        let s = h.snapshot();
        assert_eq!(s.count, 6);
        assert_eq!(s.sum_us, 10 + 50 + 51 + 180 + 2_000_000 + 99_000_000);
        assert_eq!((s.min_us, s.max_us), (10, 99_000_000));
        assert_eq!(s.counts[0], 2, "10 and 50 are within the 50 µs bound");
        assert_eq!(s.counts[1], 1, "51 goes to the 100 µs bucket");
        assert_eq!(s.counts[2], 1);
        assert_eq!(s.counts[BUCKETS - 1], 1, "above every bound: +Inf");
    }

    #[test]
    fn percentiles_are_bucket_bounds_within_min_and_max() {
        let h = Histogram::default();
        for _ in 0..90 {
            h.record(Duration::from_micros(80));
        }
        for _ in 0..10 {
            h.record(Duration::from_micros(4_000));
        }
        let s = h.snapshot();
        assert_eq!(s.percentile_us(0.5), 100);
        assert_eq!(s.percentile_us(0.9), 100);
        assert_eq!(s.percentile_us(0.95), 4_000, "clamped to the largest seen");
        assert_eq!(s.percentile_us(0.0), 100);
        assert_eq!(Histogram::default().snapshot().percentile_us(0.99), 0);
    }
}
