//! [`WriteOrderTracker`]: `NEW_VERSION_BEHAVIOR => true` (HBase 2.0+, HBASE-15968), where a
//! row reads as if its writes had been applied one by one in sequence-id order to columns
//! that hold at most VERSIONS timestamps:
//!
//! - a delete marker masks only the puts written *before* it (smaller sequence id): a
//!   delete and a re-put at the same timestamp keep the put;
//! - a put with the timestamp of a newer-written put is replaced by it;
//! - a put is evicted for good once VERSIONS newer timestamps are present in its column at
//!   some moment after it was written — even if those are deleted later, and whatever the
//!   read's time range. So the answer never depends on when compactions ran.
//!
//! HBase's `TestNewVersionBehaviorFromClientSide` is the reference for these rules.
//!
//! Cells come in cell order (timestamp ↓, type ↓, sequence id ↓), so when a put arrives
//! every marker that can mask it and every put of a higher timestamp of its column has
//! been seen. Each put's lifetime `[seq, death)` is kept for the rest of its column: the
//! death of a put is the first of its masking, its replacement and its eviction, and its
//! eviction is the first moment at or after its write at which VERSIONS higher timestamps
//! are alive. The work per put grows with the versions of its column seen so far.
//!
//! One tracker serves one family; call [`WriteOrderTracker::reset`] per row.

use basalt_types::{Cell, CellType};
use bytes::Bytes;

/// Still alive.
const ALIVE: u64 = u64::MAX;

/// What the write order makes of a put.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteOrder {
    Visible,
    /// A marker written after it covers it.
    Masked,
    /// A put of the same timestamp was written after it.
    Replaced,
    /// VERSIONS newer timestamps were alive at some moment after it was written.
    Evicted,
}

#[derive(Debug, Clone, Copy)]
struct Marker {
    ts: i64,
    seq: u64,
    /// Masks only its exact timestamp (`Delete`, `DeleteFamilyVersion`).
    exact: bool,
}

#[derive(Debug, Clone, Copy)]
struct Life {
    ts: i64,
    born: u64,
    death: u64,
}

/// The markers and put lifetimes of the current row that can still matter.
#[derive(Debug, Clone)]
pub struct WriteOrderTracker {
    max_versions: usize,
    family_markers: Vec<Marker>,
    column: Option<Bytes>,
    column_markers: Vec<Marker>,
    lives: Vec<Life>,
}

impl WriteOrderTracker {
    /// A tracker for a family keeping `max_versions` versions.
    pub fn new(max_versions: u32) -> Self {
        Self {
            max_versions: usize::try_from(max_versions.max(1)).unwrap_or(usize::MAX),
            family_markers: Vec::new(),
            column: None,
            column_markers: Vec::new(),
            lives: Vec::new(),
        }
    }

    /// Forgets everything: call when a new row starts.
    pub fn reset(&mut self) {
        self.family_markers.clear();
        self.column = None;
        self.column_markers.clear();
        self.lives.clear();
    }

    fn enter_column(&mut self, qualifier: &Bytes) {
        if self.column.as_ref() != Some(qualifier) {
            self.column = Some(qualifier.clone());
            self.column_markers.clear();
            self.lives.clear();
        }
    }

    /// Records a delete marker (cells that are not markers are ignored).
    pub fn add_marker(&mut self, marker: &Cell) {
        let (ts, seq) = (marker.timestamp(), marker.seq_id());
        match marker.cell_type() {
            CellType::DeleteFamily | CellType::DeleteFamilyVersion => {
                let exact = marker.cell_type() == CellType::DeleteFamilyVersion;
                self.family_markers.push(Marker { ts, seq, exact });
            }
            CellType::Delete | CellType::DeleteColumn => {
                self.enter_column(&marker.qualifier_bytes());
                let exact = marker.cell_type() == CellType::Delete;
                self.column_markers.push(Marker { ts, seq, exact });
            }
            CellType::Put | CellType::Minimum | CellType::Maximum => {}
        }
    }

    /// Decides about `put` and remembers its lifetime for the puts below it.
    pub fn put(&mut self, put: &Cell) -> WriteOrder {
        self.enter_column(&put.qualifier_bytes());
        let (ts, born) = (put.timestamp(), put.seq_id());
        let masked = self
            .family_markers
            .iter()
            .chain(&self.column_markers)
            .filter(|m| m.seq > born && (m.ts == ts || (!m.exact && m.ts > ts)))
            .map(|m| m.seq)
            .min()
            .unwrap_or(ALIVE);
        let replaced = self
            .lives
            .iter()
            .filter(|l| l.ts == ts && l.born > born)
            .map(|l| l.born)
            .min()
            .unwrap_or(ALIVE);
        let evicted = self.eviction(ts, born);
        let death = masked.min(replaced).min(evicted);
        self.lives.push(Life { ts, born, death });
        if death == ALIVE {
            WriteOrder::Visible
        } else if death == masked {
            WriteOrder::Masked
        } else if death == replaced {
            WriteOrder::Replaced
        } else {
            WriteOrder::Evicted
        }
    }

    /// The first moment at or after `born` at which `max_versions` timestamps above `ts`
    /// are alive, if any.
    fn eviction(&self, ts: i64, born: u64) -> u64 {
        // Moments where the count can change: `born` and every birth after it.
        let mut moments: Vec<u64> = self
            .lives
            .iter()
            .filter(|l| l.ts > ts && l.born > born)
            .map(|l| l.born)
            .collect();
        moments.push(born);
        moments.sort_unstable();
        moments.dedup();
        let mut alive: Vec<i64> = Vec::new();
        for at in moments {
            alive.clear();
            alive.extend(
                self.lives
                    .iter()
                    .filter(|l| l.ts > ts && l.born <= at && at < l.death)
                    .map(|l| l.ts),
            );
            alive.sort_unstable();
            alive.dedup();
            if alive.len() >= self.max_versions {
                return at;
            }
        }
        ALIVE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(q: &'static str, ts: i64, seq: u64) -> Cell {
        Cell::put("r", "cf", q, ts, "v").with_seq(seq)
    }
    fn marker(q: &'static str, ts: i64, t: CellType, seq: u64) -> Cell {
        Cell::marker("r", "cf", q, ts, t).with_seq(seq)
    }

    #[test]
    fn a_delete_masks_only_puts_written_before_it() {
        let mut w = WriteOrderTracker::new(3);
        w.add_marker(&marker("a", 10, CellType::Delete, 5));
        assert_eq!(w.put(&put("a", 10, 6)), WriteOrder::Visible);
        assert_eq!(w.put(&put("a", 10, 4)), WriteOrder::Masked);
        let mut w = WriteOrderTracker::new(3);
        assert_eq!(w.put(&put("a", 10, 6)), WriteOrder::Visible);
        assert_eq!(w.put(&put("a", 10, 4)), WriteOrder::Replaced);
        let mut w = WriteOrderTracker::new(3);
        w.add_marker(&marker("a", 10, CellType::Delete, 5));
        assert_eq!(w.put(&put("a", 10, 4)), WriteOrder::Masked);
    }

    #[test]
    fn family_markers_cover_lower_timestamps_and_version_markers_one() {
        let mut w = WriteOrderTracker::new(3);
        w.add_marker(&marker("", 20, CellType::DeleteFamily, 5));
        w.add_marker(&marker("", 15, CellType::DeleteFamilyVersion, 9));
        assert_eq!(w.put(&put("a", 15, 7)), WriteOrder::Masked);
        assert_eq!(w.put(&put("a", 14, 7)), WriteOrder::Visible);
        assert_eq!(w.put(&put("b", 12, 3)), WriteOrder::Masked);
    }

    #[test]
    fn a_put_evicted_by_newer_versions_stays_evicted_after_they_are_deleted() {
        // Puts 1..4 with VERSIONS 3 evict 1; deleting 3 afterwards does not bring it back.
        let mut w = WriteOrderTracker::new(3);
        w.add_marker(&marker("a", 3, CellType::Delete, 5));
        assert_eq!(w.put(&put("a", 4, 4)), WriteOrder::Visible);
        assert_eq!(w.put(&put("a", 3, 3)), WriteOrder::Masked);
        assert_eq!(w.put(&put("a", 2, 2)), WriteOrder::Visible);
        assert_eq!(w.put(&put("a", 1, 1)), WriteOrder::Evicted);
    }

    #[test]
    fn a_put_written_after_the_newer_ones_died_is_not_evicted() {
        let mut w = WriteOrderTracker::new(1);
        w.add_marker(&marker("a", 20, CellType::Delete, 3));
        assert_eq!(w.put(&put("a", 20, 2)), WriteOrder::Masked);
        assert_eq!(w.put(&put("a", 10, 1)), WriteOrder::Evicted);
        assert_eq!(w.put(&put("a", 5, 4)), WriteOrder::Visible);
    }

    #[test]
    fn columns_and_rows_are_separate() {
        let mut w = WriteOrderTracker::new(1);
        assert_eq!(w.put(&put("a", 9, 2)), WriteOrder::Visible);
        assert_eq!(w.put(&put("b", 1, 1)), WriteOrder::Visible);
        w.reset();
        assert_eq!(w.put(&put("b", 1, 1)), WriteOrder::Visible);
    }
}
