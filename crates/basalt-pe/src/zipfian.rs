//! YCSB's request distributions: zipfian (Gray et al., "Quickly Generating Billion-Record
//! Synthetic Databases", SIGMOD 1994), its scrambled variant, and "latest".
//!
//! A zipfian draw over `n` items picks item `i` (0-based) with probability
//! `1 / ((i + 1)^θ · ζ(n, θ))`, where `ζ(n, θ) = Σ_{k=1..n} 1/k^θ` and θ = 0.99:
//!
//! | n | ζ(n, 0.99) | P(item 0) | P(item 1) |
//! |---|------------|-----------|-----------|
//! | 1,000 | ≈ 7.4 | ≈ 13.5 % | ≈ 6.8 % |
//! | 10^10 | 26.469 | ≈ 3.8 % | ≈ 1.9 % |
//!
//! Plain zipfian makes the lowest item numbers hot. [`ScrambledZipfian`] draws from a fixed
//! 10^10-item zipfian and hashes the draw (FNV-1a 64) into the key space, so the hot items
//! scatter; [`Latest`] makes the most recently inserted items hot (workload D).

use crate::keys::fnv_hash64;
use crate::rng::Rng;

/// YCSB's `ZIPFIAN_CONSTANT`.
pub const ZIPFIAN_CONSTANT: f64 = 0.99;
/// The item count of the zipfian under [`ScrambledZipfian`] (YCSB's `ITEM_COUNT`).
const SCRAMBLED_ITEM_COUNT: u64 = 10_000_000_000;
/// ζ(10^10, 0.99), precomputed as YCSB does (summing 10^10 terms takes minutes).
const SCRAMBLED_ZETAN: f64 = 26.469_028_201_783_02;

/// `ζ` over items `start + 1 ..= end`, added to `partial` (ζ of the first `start` items).
fn zeta(start: u64, end: u64, theta: f64, partial: f64) -> f64 {
    (start..end).fold(partial, |sum, i| sum + 1.0 / ((i + 1) as f64).powf(theta))
}

/// Zipfian over `[0, items)`; the item count may grow between draws (workload D's inserts),
/// and ζ grows with it incrementally.
#[derive(Debug, Clone)]
pub struct Zipfian {
    items: u64,
    theta: f64,
    alpha: f64,
    zeta2theta: f64,
    zetan: f64,
    eta: f64,
}

impl Zipfian {
    /// Zipfian over `items` (at least 1) items; computing ζ costs one pass over them.
    pub fn new(items: u64) -> Self {
        let items = items.max(1);
        Self::with_zetan(items, zeta(0, items, ZIPFIAN_CONSTANT, 0.0))
    }

    fn with_zetan(items: u64, zetan: f64) -> Self {
        let theta = ZIPFIAN_CONSTANT;
        let mut zipfian = Self {
            items,
            theta,
            alpha: 1.0 / (1.0 - theta),
            zeta2theta: zeta(0, 2, theta, 0.0),
            zetan,
            eta: 0.0,
        };
        zipfian.eta = zipfian.eta_for(items);
        zipfian
    }

    fn eta_for(&self, items: u64) -> f64 {
        (1.0 - (2.0 / items as f64).powf(1.0 - self.theta)) / (1.0 - self.zeta2theta / self.zetan)
    }

    /// ζ(items, θ) of the current item count.
    pub fn zetan(&self) -> f64 {
        self.zetan
    }

    /// A draw over the current item count.
    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        self.next_of(rng, self.items)
    }

    /// A draw over `items` items, first growing (or recomputing) ζ to that count.
    pub fn next_of(&mut self, rng: &mut Rng, items: u64) -> u64 {
        let items = items.max(1);
        if items != self.items {
            self.zetan = if items > self.items {
                zeta(self.items, items, self.theta, self.zetan)
            } else {
                zeta(0, items, self.theta, 0.0)
            };
            self.items = items;
            self.eta = self.eta_for(items);
        }
        let u = rng.next_f64();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return 1.min(items - 1);
        }
        let draw = items as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha);
        (draw as u64).min(items - 1)
    }
}

/// Zipfian popularity with the hot items scattered over `[0, items)` (YCSB's
/// `ScrambledZipfianGenerator`): item `fnv(z) mod items` for a draw `z` of a 10^10-item
/// zipfian.
#[derive(Debug, Clone)]
pub struct ScrambledZipfian {
    inner: Zipfian,
    items: u64,
}

impl ScrambledZipfian {
    pub fn new(items: u64) -> Self {
        Self {
            inner: Zipfian::with_zetan(SCRAMBLED_ITEM_COUNT, SCRAMBLED_ZETAN),
            items: items.max(1),
        }
    }

    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        fnv_hash64(self.inner.next(rng)).unsigned_abs() % self.items
    }
}

/// The most recent items are the hottest (YCSB's `SkewedLatestGenerator`): `last - z` for a
/// zipfian draw `z` over the `last + 1` items inserted so far.
#[derive(Debug, Clone)]
pub struct Latest {
    inner: Zipfian,
}

impl Latest {
    pub fn new(items: u64) -> Self {
        Self {
            inner: Zipfian::new(items),
        }
    }

    /// An item in `[0, last]`, skewed towards `last`.
    pub fn next(&mut self, rng: &mut Rng, last: u64) -> u64 {
        last - self.inner.next_of(rng, last.saturating_add(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DRAWS: usize = 200_000;

    fn counts(items: u64, mut draw: impl FnMut() -> u64) -> Vec<usize> {
        let mut counts = vec![0usize; items as usize];
        for _ in 0..DRAWS {
            let v = draw();
            assert!(v < items, "draw {v} outside 0..{items}");
            counts[v as usize] += 1;
        }
        counts
    }

    fn assert_share(count: usize, expected: f64, what: &str) {
        let share = count as f64 / DRAWS as f64;
        assert!(
            (share - expected).abs() < expected * 0.05,
            "{what}: share {share:.4}, expected {expected:.4}"
        );
    }

    #[test]
    fn hottest_items_get_their_zipfian_share() {
        let mut rng = Rng::new(11);
        let mut zipfian = Zipfian::new(1000);
        let zetan = zipfian.zetan();
        assert!((7.0..8.0).contains(&zetan), "ζ(1000, 0.99) = {zetan}");
        let counts = counts(1000, || zipfian.next(&mut rng));
        assert_share(counts[0], 1.0 / zetan, "item 0");
        assert_share(counts[1], 1.0 / (2f64.powf(0.99) * zetan), "item 1");
        // Gray's method is exact for items 0 and 1 and approximates the rest; the head
        // still falls off item by item.
        assert!(counts[1] > counts[2] && counts[2] > counts[5] && counts[5] > counts[50]);
        // The head is hot, the tail cold: the first 10 items take over a third of the draws.
        let head: usize = counts[..10].iter().sum();
        assert!(head as f64 / DRAWS as f64 > 0.35, "head share {head}");
    }

    #[test]
    fn zeta_grows_incrementally_to_the_same_value() {
        let mut rng = Rng::new(1);
        let mut grown = Zipfian::new(100);
        grown.next_of(&mut rng, 5000);
        let direct = Zipfian::new(5000);
        assert!((grown.zetan() - direct.zetan()).abs() < 1e-9);
        grown.next_of(&mut rng, 10);
        assert!((grown.zetan() - Zipfian::new(10).zetan()).abs() < 1e-9);
    }

    #[test]
    fn scrambled_scatters_the_hot_items() {
        let mut rng = Rng::new(5);
        let mut scrambled = ScrambledZipfian::new(1000);
        let counts = counts(1000, || scrambled.next(&mut rng));
        let hottest = (0..1000).max_by_key(|&i| counts[i]).expect("1000 items");
        // The 10^10-item zipfian's item 0 (share 1/26.469) hashes to fnv(0) mod 1000 = 211.
        assert_eq!(hottest, 211);
        assert!(counts[211] as f64 / DRAWS as f64 >= 1.0 / SCRAMBLED_ZETAN * 0.95);
        // Hot items land all over the key space, not in its first tenth.
        let mut by_heat: Vec<usize> = (0..1000).collect();
        by_heat.sort_by_key(|&i| std::cmp::Reverse(counts[i]));
        let low = by_heat[..10].iter().filter(|&&i| i < 100).count();
        assert!(low <= 4, "{low} of the 10 hottest items are below 100");
    }

    #[test]
    fn latest_favours_the_newest_items() {
        let mut rng = Rng::new(9);
        let mut latest = Latest::new(1000);
        let counts = counts(1000, || latest.next(&mut rng, 999));
        let zetan = Zipfian::new(1000).zetan();
        assert_share(counts[999], 1.0 / zetan, "newest item");
        assert!(counts[999] > counts[998] && counts[998] > counts[500]);
        assert_eq!(latest.next(&mut rng, 0), 0, "one item inserted: always it");
    }
}
