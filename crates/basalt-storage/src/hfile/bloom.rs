//! The bloom filter: "might this file hold row R (or R / f:q)?" without touching data blocks.
//!
//! ```text
//! bloom block payload:
//! +----------------+--------------+----------------------------+
//! | hash_count u32 | bit_count u64| bits (ceil(bit_count/8) B) |
//! +----------------+--------------+----------------------------+
//! ```
//! Keys are hashed with xxh3-128; the two 64-bit halves drive double hashing (bit `i` of
//! `k` is `(h1 + i·h2) mod bit_count`; bit `b` lives in byte `b / 8`, mask `1 << (b % 8)`).
//! A ROW bloom holds each distinct row. A ROWCOL bloom holds each distinct
//! `row / family:qualifier` **and** each distinct row, so it answers row questions too.
//! Rows and columns are hashed with different seeds so they never collide by construction.
//! Sizing: `bits = -n·ln p / ln²2`, `k = round(bits/n · ln 2)` clamped to 1..=30.

use basalt_types::{BloomType, Cell};
use bytes::{BufMut, Bytes};
use xxhash_rust::xxh3::Xxh3;

const ROW_SEED: u64 = 0x524f_5700;
const COLUMN_SEED: u64 = 0x434f_4c00;
const HASH_COUNT_MAX: u32 = 30;

/// The hash of a row key.
pub(crate) fn row_hash(row: &[u8]) -> u128 {
    xxhash_rust::xxh3::xxh3_128_with_seed(row, ROW_SEED)
}

/// The hash of a column key; lengths keep `(ab, c)` and `(a, bc)` apart.
pub(crate) fn column_hash(row: &[u8], family: &[u8], qualifier: &[u8]) -> u128 {
    let mut h = Xxh3::with_seed(COLUMN_SEED);
    h.update(&(row.len() as u32).to_be_bytes());
    h.update(row);
    h.update(&(family.len() as u32).to_be_bytes());
    h.update(family);
    h.update(qualifier);
    h.digest128()
}

/// Collects the hashes of a file's keys while it is written.
#[derive(Debug)]
pub(crate) struct BloomBuilder {
    bloom_type: BloomType,
    hashes: Vec<u128>,
}

impl BloomBuilder {
    pub fn new(bloom_type: BloomType) -> Self {
        Self {
            bloom_type,
            hashes: Vec::new(),
        }
    }

    /// Adds `cell`'s keys; `prev` is the cell appended before it (duplicates are skipped).
    pub fn add(&mut self, cell: &Cell, prev: Option<&Cell>) {
        if self.bloom_type == BloomType::None {
            return;
        }
        let same_row = prev.is_some_and(|p| p.row() == cell.row());
        if !same_row {
            self.hashes.push(row_hash(cell.row()));
        }
        if self.bloom_type == BloomType::RowCol
            && !(same_row && prev.is_some_and(|p| p.same_column(cell)))
        {
            self.hashes
                .push(column_hash(cell.row(), cell.family(), cell.qualifier()));
        }
    }

    /// The bloom block payload sized for `false_positive_rate`, or `None` when there are no
    /// keys (or no bloom).
    pub fn finish(&self, false_positive_rate: f64) -> Option<Vec<u8>> {
        if self.hashes.is_empty() {
            return None;
        }
        let n = self.hashes.len() as f64;
        let p = false_positive_rate.clamp(1e-9, 0.5);
        let ln2 = std::f64::consts::LN_2;
        let bit_count = ((-n * p.ln() / (ln2 * ln2)).ceil() as u64).max(64);
        let hash_count = ((bit_count as f64 / n * ln2).round() as u32).clamp(1, HASH_COUNT_MAX);
        let mut bits = vec![0u8; bit_count.div_ceil(8) as usize];
        for h in &self.hashes {
            for b in positions(*h, hash_count, bit_count) {
                bits[(b / 8) as usize] |= 1 << (b % 8);
            }
        }
        let mut out = Vec::with_capacity(12 + bits.len());
        out.put_u32(hash_count);
        out.put_u64(bit_count);
        out.put_slice(&bits);
        Some(out)
    }
}

fn positions(h: u128, hash_count: u32, bit_count: u64) -> impl Iterator<Item = u64> {
    let h1 = h as u64;
    let h2 = (h >> 64) as u64 | 1;
    (0..u64::from(hash_count)).map(move |i| h1.wrapping_add(i.wrapping_mul(h2)) % bit_count)
}

/// A loaded bloom filter.
#[derive(Debug)]
pub(crate) struct Bloom {
    hash_count: u32,
    bit_count: u64,
    bits: Bytes,
}

impl Bloom {
    pub fn parse(raw: Bytes) -> Result<Self, String> {
        if raw.len() < 12 {
            return Err(format!("bloom block of {} bytes", raw.len()));
        }
        let hash_count = u32::from_be_bytes(raw[..4].try_into().expect("4 bytes"));
        let bit_count = u64::from_be_bytes(raw[4..12].try_into().expect("8 bytes"));
        if hash_count == 0 || hash_count > HASH_COUNT_MAX {
            return Err(format!("bloom with {hash_count} hash functions"));
        }
        if bit_count == 0 || bit_count.div_ceil(8) != (raw.len() - 12) as u64 {
            return Err(format!(
                "bloom of {bit_count} bits in {} bytes",
                raw.len() - 12
            ));
        }
        Ok(Self {
            hash_count,
            bit_count,
            bits: raw.slice(12..),
        })
    }

    pub fn contains(&self, h: u128) -> bool {
        positions(h, self.hash_count, self.bit_count)
            .all(|b| self.bits[(b / 8) as usize] & (1 << (b % 8)) != 0)
    }
}
