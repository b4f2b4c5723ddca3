//! What a region counts of its load beyond its request counters, for hot-spot views: the
//! cells and bytes its scanners returned, and a sample of the rows written.
//!
//! Cheap on the hot path: a scanner keeps its counts in plain fields and adds them to the
//! region's once, when dropped; one written row in [`WRITE_SAMPLE_EVERY`] is sampled
//! (decided from the write counter the region already keeps, one per row), and a sampled
//! write that finds the sample busy is skipped rather than waited for. No clock is read.
//!
//! The sample holds a bounded top-k sketch of rows ([`super::sketch::SpaceSaving`]) and,
//! per key prefix (the key up to its first separator such as `|`), the largest row seen: a
//! sampled row above its prefix's largest counts as *ascending*. Timestamps, sequence
//! numbers and `tenant|ts` keys make nearly every sampled write ascending.

use super::sketch::SpaceSaving;
use bytes::Bytes;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// One write in this many is sampled.
pub const WRITE_SAMPLE_EVERY: u64 = 8;
/// Rows the sketch tracks; the top [`HOT_ROWS_REPORTED`] are reported.
const SKETCH_CAPACITY: usize = 32;
pub const HOT_ROWS_REPORTED: usize = 4;
/// Key prefixes whose largest row is remembered.
const PREFIXES_MAX: usize = 64;
/// Bytes that end a key prefix.
const SEPARATORS: &[u8] = b"|:#/,;_-";
/// The longest prefix looked for.
const PREFIX_MAX_BYTES: usize = 32;

/// A region's load counters, shared with its scanners.
#[derive(Debug, Default)]
pub struct LoadCounters {
    scanned_cells: AtomicU64,
    scanned_bytes: AtomicU64,
    /// Rows read and dropped by a scan's filter (HBase's filteredReadRequestsCount).
    filtered_rows: AtomicU64,
    sample: Mutex<WriteSample>,
}

/// What [`LoadCounters::report`] gives: counters since the region opened.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadReport {
    pub scanned_cells: u64,
    pub scanned_bytes: u64,
    /// Writes sampled, and how many of them were above their prefix's largest row.
    pub sampled_writes: u64,
    pub ascending_writes: u64,
    /// The most written rows among the sampled writes, with their estimated counts (of
    /// sampled writes), largest first.
    pub hot_rows: Vec<(Bytes, u64)>,
}

#[derive(Debug, Default)]
struct WriteSample {
    sketch: SpaceSaving,
    /// (prefix, largest row seen with it), most recently used last.
    prefixes: Vec<(Bytes, Bytes)>,
    sampled: u64,
    ascending: u64,
}

impl LoadCounters {
    /// Adds what a scanner returned.
    pub fn add_scanned(&self, cells: u64, bytes: u64) {
        if cells > 0 {
            self.scanned_cells.fetch_add(cells, Ordering::Relaxed);
            self.scanned_bytes.fetch_add(bytes, Ordering::Relaxed);
        }
    }

    /// Adds rows a scanner read and its filter dropped (in batches, so the count grows
    /// while a long filtering run goes on).
    pub fn add_filtered(&self, rows: u64) {
        if rows > 0 {
            self.filtered_rows.fetch_add(rows, Ordering::Relaxed);
        }
    }

    /// Rows read and dropped by scan filters since the region opened.
    pub fn filtered_rows(&self) -> u64 {
        self.filtered_rows.load(Ordering::Relaxed)
    }

    /// Called with the region's write count before these rows' writes (one per row):
    /// samples the rows whose number is a multiple of [`WRITE_SAMPLE_EVERY`], skipping the
    /// sample when another writer holds it.
    pub fn maybe_sample_writes(&self, writes_before: u64, rows: &[Bytes]) {
        let first = (WRITE_SAMPLE_EVERY - writes_before % WRITE_SAMPLE_EVERY) % WRITE_SAMPLE_EVERY;
        if first as usize >= rows.len() {
            return;
        }
        if let Some(mut sample) = self.sample.try_lock() {
            for row in rows
                .iter()
                .skip(first as usize)
                .step_by(WRITE_SAMPLE_EVERY as usize)
            {
                sample.record(row);
            }
        }
    }

    pub fn report(&self) -> LoadReport {
        let sample = self.sample.lock();
        LoadReport {
            scanned_cells: self.scanned_cells.load(Ordering::Relaxed),
            scanned_bytes: self.scanned_bytes.load(Ordering::Relaxed),
            sampled_writes: sample.sampled,
            ascending_writes: sample.ascending,
            hot_rows: sample.sketch.top(HOT_ROWS_REPORTED),
        }
    }
}

impl WriteSample {
    fn record(&mut self, row: &Bytes) {
        self.sampled += 1;
        if self.sketch.capacity() == 0 {
            self.sketch = SpaceSaving::new(SKETCH_CAPACITY);
        }
        self.sketch.add(row);
        let prefix = row.slice(..prefix_len(row));
        match self.prefixes.iter().position(|(p, _)| *p == prefix) {
            Some(i) => {
                let (p, largest) = self.prefixes.remove(i);
                let largest = if *row > largest {
                    self.ascending += 1;
                    row.clone()
                } else {
                    largest
                };
                self.prefixes.push((p, largest));
            }
            None => {
                if self.prefixes.len() == PREFIXES_MAX {
                    self.prefixes.remove(0);
                }
                self.prefixes.push((prefix, row.clone()));
            }
        }
    }
}

/// The length of `row`'s prefix: up to and including its first separator within
/// [`PREFIX_MAX_BYTES`], else nothing.
pub fn prefix_len(row: &[u8]) -> usize {
    row.iter()
        .take(PREFIX_MAX_BYTES)
        .position(|b| SEPARATORS.contains(b))
        .map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sampled(rows: impl Iterator<Item = String>) -> LoadReport {
        let counters = LoadCounters::default();
        for (i, row) in rows.enumerate() {
            counters.maybe_sample_writes(i as u64, &[Bytes::from(row)]);
        }
        counters.report()
    }

    #[test]
    fn sequential_rows_are_ascending() {
        let report = sampled((0..800).map(|i| format!("{:013}", 1_700_000_000_000u64 + i)));
        assert_eq!(report.sampled_writes, 100);
        assert_eq!(report.ascending_writes, 99);
    }

    #[test]
    fn tenant_timestamp_rows_are_ascending_per_tenant() {
        let report = sampled((0..1600).map(|i| format!("t{}|{:08}", i % 3, i)));
        assert!(report.ascending_writes * 10 >= report.sampled_writes * 9);
    }

    #[test]
    fn shuffled_rows_are_not_ascending() {
        let report = sampled(
            (0..8000u64).map(|i| format!("{:08}", i.wrapping_mul(2_654_435_761) % 100_000)),
        );
        assert!(report.ascending_writes * 5 < report.sampled_writes);
    }

    #[test]
    fn one_row_written_again_and_again_is_the_hot_row() {
        let report = sampled((0..800).map(|i| {
            if i % 2 == 0 {
                "hot".to_string()
            } else {
                format!("r{i}")
            }
        }));
        assert_eq!(report.hot_rows[0].0, Bytes::from("hot"));
    }

    #[test]
    fn a_batch_samples_one_row_in_eight_of_its_own() {
        let counters = LoadCounters::default();
        let rows: Vec<Bytes> = (0..20).map(|i| Bytes::from(format!("r{i:02}"))).collect();
        counters.maybe_sample_writes(5, &rows);
        // Writes 5..25: numbers 8, 16 and 24 are sampled, rows 3, 11 and 19.
        let report = counters.report();
        assert_eq!(report.sampled_writes, 3);
        let mut sampled: Vec<_> = report.hot_rows.iter().map(|r| r.0.clone()).collect();
        sampled.sort();
        assert_eq!(
            sampled,
            vec![Bytes::from("r03"), Bytes::from("r11"), Bytes::from("r19")]
        );
    }

    #[test]
    fn scans_add_cells_and_bytes() {
        let counters = LoadCounters::default();
        counters.add_scanned(3, 120);
        counters.add_scanned(0, 0);
        let report = counters.report();
        assert_eq!((report.scanned_cells, report.scanned_bytes), (3, 120));
    }

    #[test]
    fn prefixes_end_at_the_first_separator() {
        assert_eq!(prefix_len(b"tenant|123"), 7);
        assert_eq!(prefix_len(b"1700000000000"), 0);
    }
}
