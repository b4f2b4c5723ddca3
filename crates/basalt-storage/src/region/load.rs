//! What a region counts of its load beyond its request counters, for hot-spot views: the
//! cells and bytes its scanners returned, and a sample of the rows written.
//!
//! Cheap on the hot path: a scanner keeps its counts in plain fields and adds them to the
//! region's once, when dropped; one written row in [`WRITE_SAMPLE_EVERY`] is sampled
//! (decided from the write counter the region already keeps, one per row), and a sampled
//! write that finds the sample busy is skipped rather than waited for. No clock is read.
//!
//! A process-wide switch ([`set_accounting`], on unless turned off) leaves the scanners
//! uncounted and the writes unsampled: the reference the hot-spot benchmark measures the
//! accounting against (`cargo bench -p basalt-web --bench heat`).
//!
//! The sample holds a bounded top-k sketch of rows ([`super::sketch::SpaceSaving`]) and,
//! per key prefix (the key up to its first separator such as `|`), the largest row seen: a
//! sampled row above its prefix's largest counts as *ascending*. Timestamps, sequence
//! numbers and `tenant|ts` keys make nearly every sampled write ascending.
//!
//! It also keeps the last [`RECENT_ROWS_MAX`] sampled rows (the last few hundred writes):
//! their median is the region's *load median*, the key a load-based split cuts at
//! (`basalt_api::load_split`), so each daughter takes about half of the recent writes.

use super::sketch::SpaceSaving;
use bytes::Bytes;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Whether regions count their load (see [`set_accounting`]).
static ACCOUNTING: AtomicBool = AtomicBool::new(true);

/// Turns the load accounting of every region in this process on or off (on by default):
/// off, scanners are not counted and writes not sampled.
pub fn set_accounting(on: bool) {
    ACCOUNTING.store(on, Ordering::Relaxed);
}

/// Whether the load accounting is on.
pub fn accounting() -> bool {
    ACCOUNTING.load(Ordering::Relaxed)
}

/// One write in this many is sampled.
pub const WRITE_SAMPLE_EVERY: u64 = 8;
/// Rows the sketch tracks; the top [`HOT_ROWS_REPORTED`] are reported.
const SKETCH_CAPACITY: usize = 32;
pub const HOT_ROWS_REPORTED: usize = 4;
/// Sampled rows kept for the load median (odd, so the median is one of them).
pub const RECENT_ROWS_MAX: usize = 63;
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
    /// The median of the last [`RECENT_ROWS_MAX`] sampled rows; None before any write
    /// was sampled.
    pub load_median: Option<Bytes>,
}

#[derive(Debug, Default)]
struct WriteSample {
    sketch: SpaceSaving,
    /// (prefix, largest row seen with it), most recently used last.
    prefixes: Vec<(Bytes, Bytes)>,
    /// The last sampled rows, oldest first.
    recent: VecDeque<Bytes>,
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
        if first as usize >= rows.len() || !accounting() {
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
            load_median: median(sample.recent.iter()),
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
        if self.recent.len() == RECENT_ROWS_MAX {
            self.recent.pop_front();
        }
        self.recent.push_back(row.clone());
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

/// The median of `rows` in key order (the lower one of an even count); None when empty.
pub fn median<'a>(rows: impl Iterator<Item = &'a Bytes>) -> Option<Bytes> {
    let mut rows: Vec<&Bytes> = rows.collect();
    if rows.is_empty() {
        return None;
    }
    rows.sort_unstable();
    Some(rows[(rows.len() - 1) / 2].clone())
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
    fn the_load_median_follows_the_recent_writes() {
        let counters = LoadCounters::default();
        assert_eq!(counters.report().load_median, None);
        // Old writes at "a..", then enough at "m.." to push them all out of the window.
        let old = (0..800).map(|i| format!("a{i:04}"));
        let new = (0..800).map(|i| format!("m{:04}", (i * 37) % 800));
        for (i, row) in old.chain(new).enumerate() {
            counters.maybe_sample_writes(i as u64, &[Bytes::from(row)]);
        }
        let median = counters.report().load_median.expect("sampled");
        assert!(median.starts_with(b"m"), "{median:?}");
    }

    #[test]
    fn the_median_of_an_even_count_is_the_lower_one() {
        let rows: Vec<Bytes> = ["d", "a", "c", "b"].into_iter().map(Bytes::from).collect();
        assert_eq!(median(rows.iter()), Some(Bytes::from("b")));
        assert_eq!(median([].iter()), None);
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
