//! A table's key distribution: row keys sampled from every region (its start key plus a
//! reservoir sample of its rows, each weighted by the rows it stands for), a histogram of
//! their first bytes, and split points that would spread those rows evenly, for
//! `create ... SPLITS => [...]`.
//!
//! Sampling scans each region's row keys (first cell of each row only) up to
//! [`SCAN_ROWS_MAX`] rows; a region's keys past that are not seen. At most [`KEYS_MAX`]
//! keys are kept in all, shared evenly among the regions. The reservoir's random
//! choices come from a fixed seed, so the same data gives the same suggestion.

use crate::{Connection, Result};
use basalt_types::{FilterSpec, Scan, TableName};
use bytes::Bytes;

/// Rows scanned per region at most.
pub const SCAN_ROWS_MAX: u64 = 1_000_000;
/// Sampled keys kept over the whole table: each region keeps this divided by the region
/// count, at least [`PER_REGION_MIN`].
pub const KEYS_MAX: usize = 200_000;
pub const PER_REGION_MIN: usize = 64;

/// Keys sampled from a table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KeySample {
    /// Each region's start key, in key order (the first region's is empty).
    pub boundaries: Vec<Bytes>,
    /// Sampled keys, sorted, each with the rows it stands for.
    pub keys: Vec<(Bytes, f64)>,
    /// Rows scanned.
    pub rows: u64,
}

/// Samples `table`'s row keys, region by region.
pub fn sample(conn: &dyn Connection, table: &TableName) -> Result<KeySample> {
    let regions = conn.admin().list_regions(table)?;
    let handle = conn.table(table)?;
    let mut out = KeySample::default();
    for (i, region) in regions.iter().enumerate() {
        out.boundaries.push(region.start_key.clone());
        let scan = Scan {
            start_row: region.start_key.clone(),
            stop_row: region.end_key.clone(),
            filter: Some(FilterSpec::FirstKeyOnly),
            limit: Some(SCAN_ROWS_MAX),
            ..Scan::new()
        };
        let per_region = (KEYS_MAX / regions.len().max(1)).max(PER_REGION_MIN);
        let mut reservoir = Reservoir::new(per_region, i as u64 + 1);
        for row in handle.scan(&scan)? {
            if let Some(cell) = row?.cells.first() {
                reservoir.offer(cell.row_bytes());
            }
        }
        out.rows += reservoir.seen;
        let weight = reservoir.seen as f64 / reservoir.keys.len().max(1) as f64;
        out.keys
            .extend(reservoir.keys.into_iter().map(|k| (k, weight)));
    }
    out.boundaries.sort();
    out.keys.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Rows per first byte of the key (estimated from the weights), bytes with none left out.
pub fn histogram(sample: &KeySample) -> Vec<(u8, f64)> {
    let mut counts = [0.0f64; 256];
    for (key, weight) in &sample.keys {
        if let Some(first) = key.first() {
            counts[*first as usize] += weight;
        }
    }
    (0..=255u8)
        .filter(|b| counts[*b as usize] > 0.0)
        .map(|b| (b, counts[b as usize]))
        .collect()
}

/// Up to `regions - 1` split points cutting the sampled rows into `regions` runs of about
/// equal weight; each the shortest prefix of its key still above the sampled key before it.
pub fn suggest_splits(sample: &KeySample, regions: usize) -> Vec<Bytes> {
    let total: f64 = sample.keys.iter().map(|k| k.1).sum();
    if regions < 2 || sample.keys.len() < 2 || total <= 0.0 {
        return Vec::new();
    }
    let mut splits: Vec<Bytes> = Vec::new();
    let mut acc = 0.0;
    let mut next = 1;
    for (i, (key, weight)) in sample.keys.iter().enumerate() {
        if next < regions && acc >= total * next as f64 / regions as f64 && i > 0 {
            let split = shortest_above(&sample.keys[i - 1].0, key);
            if splits.last().is_none_or(|last| *last < split) {
                splits.push(split);
            }
            while next < regions && acc >= total * next as f64 / regions as f64 {
                next += 1;
            }
        }
        acc += weight;
    }
    splits
}

/// The shortest prefix of `key` that sorts above `below` (`below < key`).
fn shortest_above(below: &[u8], key: &Bytes) -> Bytes {
    for len in 1..=key.len() {
        if key[..len] > *below {
            return key.slice(..len);
        }
    }
    key.clone()
}

/// A key as a shell string literal: double-quoted, bytes outside printable ASCII (and `"`,
/// `\`, `#`) as `\xNN`.
pub fn shell_literal(key: &[u8]) -> String {
    let mut out = String::from("\"");
    for &b in key {
        if (0x20..0x7f).contains(&b) && !matches!(b, b'"' | b'\\' | b'#') {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out.push('"');
    out
}

/// Algorithm R over a stream of keys, with a xorshift generator.
struct Reservoir {
    capacity: usize,
    keys: Vec<Bytes>,
    seen: u64,
    state: u64,
}

impl Reservoir {
    fn new(capacity: usize, seed: u64) -> Self {
        Self {
            capacity,
            keys: Vec::with_capacity(capacity),
            seen: 0,
            state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
        }
    }

    fn offer(&mut self, key: Bytes) {
        self.seen += 1;
        if self.keys.len() < self.capacity {
            self.keys.push(key);
            return;
        }
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        let slot = self.state % self.seen;
        if let Some(k) = self.keys.get_mut(slot as usize) {
            *k = key;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_of(keys: &[&str]) -> KeySample {
        KeySample {
            boundaries: vec![Bytes::new()],
            keys: keys
                .iter()
                .map(|k| (Bytes::copy_from_slice(k.as_bytes()), 1.0))
                .collect(),
            rows: keys.len() as u64,
        }
    }

    #[test]
    fn splits_cut_the_sample_into_even_runs() {
        let keys: Vec<String> = (0..100).map(|i| format!("{:04}", i * 7)).collect();
        let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        let splits = suggest_splits(&sample_of(&refs), 4);
        assert_eq!(
            splits,
            vec![Bytes::from("017"), Bytes::from("035"), Bytes::from("052")]
        );
    }

    #[test]
    fn a_reservoir_keeps_a_bounded_sample_and_counts_every_key() {
        let mut r = Reservoir::new(10, 1);
        for i in 0..1000u32 {
            r.offer(Bytes::from(i.to_string()));
        }
        assert_eq!((r.keys.len(), r.seen), (10, 1000));
        assert!(r.keys.iter().any(|k| k.len() == 3), "later keys get in");
    }

    #[test]
    fn histograms_count_first_bytes() {
        let h = histogram(&sample_of(&["a1", "a2", "b"]));
        assert_eq!(h, vec![(b'a', 2.0), (b'b', 1.0)]);
    }

    #[test]
    fn shell_literals_escape_what_the_shell_would_read_otherwise() {
        assert_eq!(shell_literal(b"a\"#\x00"), "\"a\\x22\\x23\\x00\"");
    }
}
