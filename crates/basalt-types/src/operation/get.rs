//! Get: read one row (reference §1.2).

use super::ColumnSelection;
use crate::{FilterSpec, TimeRange};
use bytes::Bytes;

/// A read of one row.
#[derive(Debug, Clone, PartialEq)]
pub struct Get {
    pub row: Bytes,
    pub columns: ColumnSelection,
    /// Versions per column to return (default 1).
    pub max_versions: u32,
    pub time_range: TimeRange,
    pub filter: Option<FilterSpec>,
    /// At most this many cells per family (HBase's `setMaxResultsPerColumnFamily`).
    pub max_results_per_family: Option<u32>,
    /// Skip this many cells per family first (HBase's `setRowOffsetPerColumnFamily`).
    pub row_offset_per_family: u32,
    /// Answer only whether the row has any matching cell.
    pub check_existence_only: bool,
}

impl Get {
    pub fn new(row: impl Into<Bytes>) -> Self {
        Self {
            row: row.into(),
            columns: ColumnSelection::default(),
            max_versions: 1,
            time_range: TimeRange::ALL,
            filter: None,
            max_results_per_family: None,
            row_offset_per_family: 0,
            check_existence_only: false,
        }
    }

    pub fn family(mut self, family: impl Into<Bytes>) -> Self {
        self.columns.add_family(family);
        self
    }

    pub fn column(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Self {
        self.columns.add_column(family, qualifier);
        self
    }

    pub fn versions(mut self, max_versions: u32) -> Self {
        self.max_versions = max_versions;
        self
    }

    pub fn time_range(mut self, time_range: TimeRange) -> Self {
        self.time_range = time_range;
        self
    }

    pub fn filter(mut self, filter: FilterSpec) -> Self {
        self.filter = Some(filter);
        self
    }
}
