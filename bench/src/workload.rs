//! YCSB's record shape and request streams: keys `user<fnv64(i)>`, 10 fields of 100
//! bytes, a scrambled zipfian chooser, and the mixes of workloads A, B, C, E and F.

/// Fields per record and bytes per field, as YCSB's CoreWorkload.
pub const FIELDS: usize = 10;
pub const FIELD_BYTES: usize = 100;

/// FNV-1a 64 of the record number's 8 little-endian bytes, as YCSB's `Utils.FNVhash64`
/// over the long (YCSB hashes the value byte by byte, low byte first).
pub fn fnv64(mut value: u64) -> u64 {
    let mut hash: u64 = 0xCBF2_9CE4_8422_2325;
    for _ in 0..8 {
        let octet = value & 0xff;
        value >>= 8;
        hash ^= octet;
        hash = hash.wrapping_mul(0x0000_0100_0000_01B3);
    }
    hash
}

/// The key of record `i`, hashed so that load order is not key order.
pub fn key(i: u64) -> Vec<u8> {
    format!("user{}", fnv64(i)).into_bytes()
}

/// The key of record `i` in sorted (bulk-load) order.
pub fn sorted_key(i: u64) -> Vec<u8> {
    format!("user{i:012}").into_bytes()
}

/// A field value: deterministic bytes from the record and field numbers.
pub fn value(record: u64, field: usize, salt: u64) -> Vec<u8> {
    let mut state = record.wrapping_mul(31).wrapping_add(field as u64) ^ salt;
    (0..FIELD_BYTES)
        .map(|_| {
            state = splitmix(state);
            b'a' + (state % 26) as u8
        })
        .collect()
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A small seeded generator (SplitMix64).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        splitmix(self.0)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// YCSB's zipfian over [0, items) with constant 0.99 (Gray et al., "Quickly generating
/// billion-record synthetic databases"), scrambled by hashing so hot items spread out.
pub struct ScrambledZipfian {
    items: u64,
    theta: f64,
    alpha: f64,
    zetan: f64,
    eta: f64,
}

impl ScrambledZipfian {
    pub fn new(items: u64) -> Self {
        let theta = 0.99;
        let zetan = zeta(items, theta);
        let zeta2 = zeta(2, theta);
        let alpha = 1.0 / (1.0 - theta);
        let eta = (1.0 - (2.0 / items as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
        Self {
            items,
            theta,
            alpha,
            zetan,
            eta,
        }
    }

    pub fn next(&self, rng: &mut Rng) -> u64 {
        let u = rng.next_f64();
        let uz = u * self.zetan;
        let rank = if uz < 1.0 {
            0
        } else if uz < 1.0 + 0.5f64.powf(self.theta) {
            1
        } else {
            (self.items as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64
        };
        fnv64(rank.min(self.items - 1)) % self.items
    }
}

fn zeta(n: u64, theta: f64) -> f64 {
    (1..=n).map(|i| 1.0 / (i as f64).powf(theta)).sum()
}

/// One request of a YCSB mix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Read,
    Update,
    Insert,
    Scan(usize),
    ReadModifyWrite,
}

/// YCSB's core workloads that the bench runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mix {
    /// 50% read, 50% update.
    A,
    /// 95% read, 5% update.
    B,
    /// 100% read.
    C,
    /// 95% scan of 1..=100 rows, 5% insert.
    E,
    /// 50% read, 50% read-modify-write.
    F,
}

impl Mix {
    pub fn name(self) -> &'static str {
        match self {
            Mix::A => "ycsb A (50% read, 50% update)",
            Mix::B => "ycsb B (95% read, 5% update)",
            Mix::C => "ycsb C (100% read)",
            Mix::E => "ycsb E (95% scan 1-100, 5% insert)",
            Mix::F => "ycsb F (50% read, 50% read-modify-write)",
        }
    }

    pub fn next(self, rng: &mut Rng) -> Op {
        let p = rng.below(100);
        match self {
            Mix::A if p < 50 => Op::Read,
            Mix::A => Op::Update,
            Mix::B if p < 95 => Op::Read,
            Mix::B => Op::Update,
            Mix::C => Op::Read,
            Mix::E if p < 95 => Op::Scan(1 + rng.below(100) as usize),
            Mix::E => Op::Insert,
            Mix::F if p < 50 => Op::Read,
            Mix::F => Op::ReadModifyWrite,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zipfian_is_skewed_and_in_range() {
        let z = ScrambledZipfian::new(10_000);
        let mut rng = Rng::new(7);
        let mut counts = std::collections::HashMap::new();
        for _ in 0..100_000 {
            let item = z.next(&mut rng);
            assert!(item < 10_000);
            *counts.entry(item).or_insert(0u32) += 1;
        }
        let hottest = counts.values().max().copied().unwrap_or(0);
        assert!(hottest > 3_000, "the hottest item gets a large share: {hottest}");
    }
}
