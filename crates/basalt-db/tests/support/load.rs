//! A write load for concurrency tests: writer threads put distinct, well spread rows and
//! publish how far they got, so that a concurrent scan can be checked exactly: rows in
//! order, each once, only rows a writer started, and every row acknowledged before the
//! scan began (within the scan's range).

use basalt_api::Table;
use basalt_types::{Put, Scan};
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A bijection on u64: distinct row numbers give distinct, uniformly spread keys.
pub fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x
}

pub struct Load {
    pub writers: usize,
    pub rows_per_writer: usize,
    pub value_bytes: usize,
    owner: HashMap<Vec<u8>, (usize, usize)>,
    started: Vec<AtomicUsize>,
    acked: Vec<AtomicUsize>,
}

/// A key range `[low, high)`; `None` is the whole table.
pub type Range = Option<(Vec<u8>, Vec<u8>)>;

/// The `n`th scan's range: every third scan covers the whole table, the others a slice.
pub fn scan_range(n: u64) -> Range {
    if n.is_multiple_of(3) {
        return None;
    }
    let (a, b) = (mix(n) >> 16, mix(n + 7_777) >> 16);
    let key = |x: u64| format!("{x:012x}").into_bytes();
    Some((key(a.min(b)), key(a.max(b))))
}

impl Load {
    pub fn new(writers: usize, rows_per_writer: usize, value_bytes: usize) -> Self {
        let owner = (0..writers)
            .flat_map(|w| (0..rows_per_writer).map(move |i| (w, i)))
            .map(|(w, i)| (Self::key_of(rows_per_writer, w, i), (w, i)))
            .collect();
        Self {
            writers,
            rows_per_writer,
            value_bytes,
            owner,
            started: (0..writers).map(|_| AtomicUsize::new(0)).collect(),
            acked: (0..writers).map(|_| AtomicUsize::new(0)).collect(),
        }
    }

    fn key_of(rows_per_writer: usize, w: usize, i: usize) -> Vec<u8> {
        format!("{:016x}", mix((w * rows_per_writer + i) as u64)).into_bytes()
    }

    pub fn key(&self, w: usize, i: usize) -> Vec<u8> {
        Self::key_of(self.rows_per_writer, w, i)
    }

    pub fn value(&self, key: &[u8]) -> Vec<u8> {
        key.iter().copied().cycle().take(self.value_bytes).collect()
    }

    /// Every key the load writes, sorted.
    pub fn all_keys(&self) -> BTreeSet<Vec<u8>> {
        self.owner.keys().cloned().collect()
    }

    /// Writer `w`'s whole share of the load.
    pub fn write(&self, table: &dyn Table, w: usize) {
        for i in 0..self.rows_per_writer {
            let k = self.key(w, i);
            self.started[w].store(i + 1, Ordering::SeqCst);
            let put = Put::new(k.clone()).add("f", "q", self.value(&k));
            table
                .put(&put)
                .unwrap_or_else(|e| panic!("put {w}/{i}: {e}"));
            self.acked[w].store(i + 1, Ordering::SeqCst);
        }
    }

    fn counts(counts: &[AtomicUsize]) -> Vec<usize> {
        counts.iter().map(|c| c.load(Ordering::SeqCst)).collect()
    }

    /// Scans `range` (whole table if `None`) in one direction and checks the rows
    /// against what the writers had done; returns how many rows it saw.
    pub fn scan_and_check(
        &self,
        table: &dyn Table,
        reversed: bool,
        range: &Range,
    ) -> Result<usize, String> {
        let scan = match range {
            None => Scan::new(),
            Some((low, high)) if reversed => {
                // Reversed scans start at the high end; make `[low, high)` of it.
                let mut scan = Scan::new().start(high.clone()).stop(low.clone());
                scan.start_inclusive = false;
                scan.stop_inclusive = true;
                scan
            }
            Some((low, high)) => Scan::new().start(low.clone()).stop(high.clone()),
        }
        .reversed(reversed);
        let acked_before = Self::counts(&self.acked);
        let mut rows = Vec::new();
        for row in table.scan(&scan).map_err(|e| format!("open scan: {e}"))? {
            let row = row.map_err(|e| format!("scan after {} rows: {e}", rows.len()))?;
            let key = row.row().expect("a scanned row has cells").to_vec();
            if row.value(b"f", b"q").map(|v| v.to_vec()) != Some(self.value(&key)) {
                return Err(format!(
                    "row {:?} has a wrong value",
                    String::from_utf8_lossy(&key)
                ));
            }
            rows.push(key);
            if rows.len() > self.owner.len() {
                return Err(format!(
                    "the scan returned more than the {} rows written",
                    self.owner.len()
                ));
            }
        }
        let started_after = Self::counts(&self.started);
        self.check(&rows, reversed, range, &acked_before, &started_after)?;
        Ok(rows.len())
    }

    fn check(
        &self,
        rows: &[Vec<u8>],
        reversed: bool,
        range: &Range,
        acked_before: &[usize],
        started_after: &[usize],
    ) -> Result<(), String> {
        let shown = |k: &[u8]| String::from_utf8_lossy(k).into_owned();
        let what = format!(
            "reversed={reversed} range={:?}",
            range.as_ref().map(|(l, h)| (shown(l), shown(h)))
        );
        if let Some(pair) = rows
            .windows(2)
            .find(|p| if reversed { p[0] <= p[1] } else { p[0] >= p[1] })
        {
            return Err(format!(
                "{what}: {} then {} (out of order or repeated)",
                shown(&pair[0]),
                shown(&pair[1])
            ));
        }
        let inside = |k: &[u8]| {
            range
                .as_ref()
                .is_none_or(|(l, h)| k >= l.as_slice() && k < h.as_slice())
        };
        let mut seen = vec![BTreeSet::new(); self.writers];
        for row in rows {
            let Some(&(w, i)) = self.owner.get(row) else {
                return Err(format!("{what}: unknown row {}", shown(row)));
            };
            if i >= started_after[w] || !inside(row) {
                return Err(format!(
                    "{what}: row {w}/{i} was never written or is out of range"
                ));
            }
            seen[w].insert(i);
        }
        for (w, &acked) in acked_before.iter().enumerate() {
            let lost = (0..acked).find(|&i| !seen[w].contains(&i) && inside(&self.key(w, i)));
            if let Some(i) = lost {
                return Err(format!("{what}: row {w}/{i} ({}), acknowledged before the scan, is missing ({} rows seen)", shown(&self.key(w, i)), rows.len()));
            }
        }
        Ok(())
    }
}
