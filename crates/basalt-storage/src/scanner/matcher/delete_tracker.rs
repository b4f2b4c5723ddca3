//! Which puts of the current row the delete markers seen so far mask.
//!
//! Markers sort before the puts they mask (timestamp ↓, then type ↓), so one pass over a
//! row in cell order meets every marker before its victims. The tracker therefore keeps
//! only what the rest of the row can still need:
//!
//! | marker               | kept as                          | masks a put when            |
//! |----------------------|----------------------------------|-----------------------------|
//! | DeleteFamily         | the highest such timestamp       | `put.ts <= family_ts`       |
//! | DeleteFamilyVersion  | a set of exact timestamps        | `put.ts` is in the set      |
//! | DeleteColumn         | the current column's marker      | same qualifier (any ts left) |
//! | Delete               | the current column's marker      | same qualifier, same ts     |
//!
//! A DeleteColumn masks every later put of its column because every later put has a
//! timestamp at or below the marker's. Sequence ids play no part: a marker masks a put at
//! or below its timestamp even when the put was written after it (HBase's default, not
//! `NEW_VERSION_BEHAVIOR`, which [`super::WriteOrderTracker`] serves).
//!
//! One tracker serves one family (one store); call [`DeleteTracker::reset`] per row.

use basalt_types::{Cell, CellType};
use bytes::Bytes;
use std::collections::BTreeSet;

/// Why (or whether) a put is masked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeleteResult {
    NotDeleted,
    /// Masked by a DeleteFamily: so is every older cell of this column.
    FamilyDeleted,
    /// Masked by a DeleteFamilyVersion at exactly this timestamp.
    FamilyVersionDeleted,
    /// Masked by a DeleteColumn: so is every older cell of this column.
    ColumnDeleted,
    /// Masked by a Delete at exactly this timestamp.
    VersionDeleted,
}

#[derive(Debug, Clone)]
struct ColumnMarker {
    qualifier: Bytes,
    /// `Delete` or `DeleteColumn`.
    kind: CellType,
    timestamp: i64,
}

/// The delete markers of the current row that can still mask cells ahead.
#[derive(Debug, Default, Clone)]
pub struct DeleteTracker {
    family_ts: Option<i64>,
    family_versions: BTreeSet<i64>,
    column: Option<ColumnMarker>,
}

impl DeleteTracker {
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets everything: call when a new row starts.
    pub fn reset(&mut self) {
        self.family_ts = None;
        self.family_versions.clear();
        self.column = None;
    }

    /// Whether no marker is being tracked.
    pub fn is_empty(&self) -> bool {
        self.family_ts.is_none() && self.family_versions.is_empty() && self.column.is_none()
    }

    /// Records a delete marker (cells that are not markers are ignored).
    pub fn add(&mut self, marker: &Cell) {
        let ts = marker.timestamp();
        // A marker at or below the family stamp adds nothing: the family marker covers it.
        if self.family_ts.is_some_and(|family_ts| ts <= family_ts) {
            return;
        }
        match marker.cell_type() {
            CellType::DeleteFamily => self.family_ts = Some(ts),
            CellType::DeleteFamilyVersion => {
                self.family_versions.insert(ts);
            }
            kind @ (CellType::Delete | CellType::DeleteColumn) => {
                if let Some(current) = &self.column {
                    // A Delete after a DeleteColumn of the same column is already covered.
                    if current.qualifier == marker.qualifier() && kind < current.kind {
                        return;
                    }
                }
                self.column = Some(ColumnMarker {
                    qualifier: marker.qualifier_bytes(),
                    kind,
                    timestamp: ts,
                });
            }
            CellType::Put | CellType::Minimum | CellType::Maximum => {}
        }
    }

    /// Whether `put` is masked. Must be called in cell order: a version marker that no
    /// longer applies is dropped as the column moves on.
    pub fn is_deleted(&mut self, put: &Cell) -> DeleteResult {
        let ts = put.timestamp();
        if self.family_ts.is_some_and(|family_ts| ts <= family_ts) {
            return DeleteResult::FamilyDeleted;
        }
        if self.family_versions.contains(&ts) {
            return DeleteResult::FamilyVersionDeleted;
        }
        let Some(marker) = &self.column else {
            return DeleteResult::NotDeleted;
        };
        if marker.qualifier != put.qualifier() {
            // A later column: the marker is spent.
            self.column = None;
            return DeleteResult::NotDeleted;
        }
        if marker.kind == CellType::DeleteColumn {
            return DeleteResult::ColumnDeleted;
        }
        if marker.timestamp == ts {
            return DeleteResult::VersionDeleted;
        }
        // An older version than the Delete's: it and everything after are not its business.
        self.column = None;
        DeleteResult::NotDeleted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(q: &'static str, ts: i64) -> Cell {
        Cell::put("r", "cf", q, ts, "v")
    }
    fn marker(q: &'static str, ts: i64, t: CellType) -> Cell {
        Cell::marker("r", "cf", q, ts, t)
    }

    #[test]
    fn delete_family_masks_at_and_below_its_timestamp_in_every_column() {
        let mut d = DeleteTracker::new();
        d.add(&marker("", 10, CellType::DeleteFamily));
        assert_eq!(d.is_deleted(&put("a", 11)), DeleteResult::NotDeleted);
        assert_eq!(d.is_deleted(&put("a", 10)), DeleteResult::FamilyDeleted);
        assert_eq!(d.is_deleted(&put("b", 3)), DeleteResult::FamilyDeleted);
    }

    #[test]
    fn older_markers_under_the_family_stamp_are_ignored() {
        let mut d = DeleteTracker::new();
        d.add(&marker("", 10, CellType::DeleteFamily));
        d.add(&marker("", 5, CellType::DeleteFamilyVersion));
        d.add(&marker("a", 7, CellType::DeleteColumn));
        assert!(d.family_versions.is_empty() && d.column.is_none());
    }

    #[test]
    fn family_version_masks_one_timestamp_in_every_column() {
        let mut d = DeleteTracker::new();
        d.add(&marker("", 10, CellType::DeleteFamilyVersion));
        assert_eq!(
            d.is_deleted(&put("a", 10)),
            DeleteResult::FamilyVersionDeleted
        );
        assert_eq!(d.is_deleted(&put("a", 9)), DeleteResult::NotDeleted);
        assert_eq!(
            d.is_deleted(&put("z", 10)),
            DeleteResult::FamilyVersionDeleted
        );
    }

    #[test]
    fn delete_column_masks_the_rest_of_its_column_only() {
        let mut d = DeleteTracker::new();
        d.add(&marker("a", 11, CellType::DeleteColumn));
        assert_eq!(d.is_deleted(&put("a", 11)), DeleteResult::ColumnDeleted);
        assert_eq!(d.is_deleted(&put("a", 2)), DeleteResult::ColumnDeleted);
        assert_eq!(d.is_deleted(&put("b", 2)), DeleteResult::NotDeleted);
        assert!(d.is_empty());
    }

    #[test]
    fn delete_masks_exactly_one_timestamp_of_any_sequence_id() {
        let mut d = DeleteTracker::new();
        d.add(&marker("a", 12, CellType::Delete).with_seq(5));
        let later_write = put("a", 12).with_seq(9);
        assert_eq!(d.is_deleted(&later_write), DeleteResult::VersionDeleted);
        assert_eq!(d.is_deleted(&put("a", 12)), DeleteResult::VersionDeleted);
        assert_eq!(d.is_deleted(&put("a", 11)), DeleteResult::NotDeleted);
        assert_eq!(d.is_deleted(&put("a", 12)), DeleteResult::NotDeleted);
    }

    #[test]
    fn a_delete_does_not_weaken_a_delete_column_of_the_same_column() {
        let mut d = DeleteTracker::new();
        d.add(&marker("a", 20, CellType::DeleteColumn));
        d.add(&marker("a", 15, CellType::Delete));
        assert_eq!(d.is_deleted(&put("a", 14)), DeleteResult::ColumnDeleted);
    }

    #[test]
    fn reset_forgets_the_row() {
        let mut d = DeleteTracker::new();
        d.add(&marker("", 10, CellType::DeleteFamily));
        d.reset();
        assert!(d.is_empty());
        assert_eq!(d.is_deleted(&put("a", 1)), DeleteResult::NotDeleted);
    }
}
