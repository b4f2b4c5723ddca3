//! A log-linear latency histogram in microseconds, mergeable across clients.
//!
//! Values below 128 µs get a bucket each; above, every power of two is cut into 64 equal
//! buckets, so a bucket is at most 1/64 (≈ 1.6 %) of its values wide. Percentiles report
//! the upper edge of the bucket holding the wanted rank (capped at the exact maximum), so
//! they are exact to within that width. A histogram is a fixed ~30 KB whatever it counts.
//!
//! | value (µs) | bucket | range |
//! |------------|--------|-------|
//! | 5 | 5 | 5 |
//! | 127 | 127 | 127 |
//! | 128 | 128 | 128–129 |
//! | 1000 | 317 | 1000–1007 |

/// Sub-buckets per power of two, as a bit count.
const SUB_BITS: u32 = 6;
const SUB_COUNT: u64 = 1 << SUB_BITS;
/// Values below this get a bucket each.
const LINEAR_LIMIT: u64 = SUB_COUNT * 2;
const BUCKETS: usize = (LINEAR_LIMIT + (63 - SUB_BITS as u64) * SUB_COUNT) as usize;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Histogram {
    counts: Vec<u64>,
    count: u64,
    sum_us: u128,
    max_us: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

fn bucket_of(value_us: u64) -> usize {
    if value_us < LINEAR_LIMIT {
        return value_us as usize;
    }
    let shift = (63 - value_us.leading_zeros()) - SUB_BITS;
    let mantissa = value_us >> shift;
    (LINEAR_LIMIT + u64::from(shift - 1) * SUB_COUNT + (mantissa - SUB_COUNT)) as usize
}

/// The largest value that falls in `bucket`.
fn bucket_upper(bucket: usize) -> u64 {
    let bucket = bucket as u64;
    if bucket < LINEAR_LIMIT {
        return bucket;
    }
    let shift = (bucket - LINEAR_LIMIT) / SUB_COUNT + 1;
    let mantissa = (bucket - LINEAR_LIMIT) % SUB_COUNT + SUB_COUNT;
    ((mantissa + 1) << shift).wrapping_sub(1)
}

impl Histogram {
    pub fn new() -> Self {
        Self {
            counts: vec![0; BUCKETS],
            count: 0,
            sum_us: 0,
            max_us: 0,
        }
    }

    pub fn record(&mut self, value_us: u64) {
        self.counts[bucket_of(value_us)] += 1;
        self.count += 1;
        self.sum_us += u128::from(value_us);
        self.max_us = self.max_us.max(value_us);
    }

    /// Adds another client's counts to these.
    pub fn merge(&mut self, other: &Histogram) {
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            *mine += theirs;
        }
        self.count += other.count;
        self.sum_us += other.sum_us;
        self.max_us = self.max_us.max(other.max_us);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn max_us(&self) -> u64 {
        self.max_us
    }

    pub fn mean_us(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        self.sum_us as f64 / self.count as f64
    }

    /// The value at quantile `q` (0..=1): the smallest recorded value such that a share `q`
    /// of all values are at or below it, to within its bucket. 0 when empty.
    pub fn percentile_us(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (bucket, &n) in self.counts.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return bucket_upper(bucket).min(self.max_us);
            }
        }
        self.max_us
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn buckets_cover_every_value_in_order() {
        let mut last = 0;
        for v in (0..5000).chain([u64::MAX / 3, u64::MAX - 1, u64::MAX]) {
            let b = bucket_of(v);
            assert!(b < BUCKETS);
            assert!(b >= last, "bucket order at {v}");
            assert!(bucket_upper(b) >= v, "upper edge of {v}");
            if b > 0 {
                assert!(bucket_upper(b - 1) < v, "{v} belongs in an earlier bucket");
            }
            last = b;
        }
        assert_eq!(bucket_of(127), 127);
        assert_eq!(bucket_upper(bucket_of(128)), 129);
    }

    fn reference(sorted: &[u64], q: f64) -> u64 {
        let rank = ((q * sorted.len() as f64).ceil() as usize).max(1);
        sorted[rank - 1]
    }

    /// Every percentile is within one bucket (1/64) above the exact value of a sorted copy.
    #[test]
    fn percentiles_match_a_sorted_reference_within_bucket_precision() {
        let mut rng = Rng::new(42);
        let mut values: Vec<u64> = (0..20_000)
            .map(|_| {
                // Log-spread latencies from 1 µs to ~16 s, like a real run's long tail.
                let bits = rng.below(24);
                rng.below(1 << bits) + 1
            })
            .collect();
        let mut hist = Histogram::new();
        for &v in &values {
            hist.record(v);
        }
        values.sort_unstable();
        for q in [0.5, 0.95, 0.99, 0.999, 1.0] {
            let exact = reference(&values, q);
            let got = hist.percentile_us(q);
            assert!(got >= exact, "p{q}: {got} below exact {exact}");
            assert!(
                got - exact <= exact / 64 + 1,
                "p{q}: {got} more than a bucket above exact {exact}"
            );
        }
        assert_eq!(hist.max_us(), *values.last().expect("values"));
        assert_eq!(hist.percentile_us(1.0), hist.max_us());
        let mean = values.iter().sum::<u64>() as f64 / values.len() as f64;
        assert!((hist.mean_us() - mean).abs() < 1e-6);
    }

    #[test]
    fn merged_histograms_equal_one_fed_everything() {
        let mut rng = Rng::new(3);
        let (mut a, mut b, mut all) = (Histogram::new(), Histogram::new(), Histogram::new());
        for i in 0..5000 {
            let v = rng.below(100_000);
            if i % 3 == 0 {
                a.record(v)
            } else {
                b.record(v)
            }
            all.record(v);
        }
        a.merge(&b);
        assert_eq!(a, all);
        assert_eq!(a.count(), 5000);
    }

    #[test]
    fn small_exact_values_and_empty() {
        let empty = Histogram::new();
        assert_eq!(empty.percentile_us(0.99), 0);
        assert_eq!(empty.mean_us(), 0.0);
        let mut h = Histogram::new();
        for v in 1..=100 {
            h.record(v);
        }
        assert_eq!(h.percentile_us(0.5), 50);
        assert_eq!(h.percentile_us(0.95), 95);
        assert_eq!(h.percentile_us(0.99), 99);
        assert_eq!(h.percentile_us(0.999), 100);
    }
}
