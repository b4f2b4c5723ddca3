//! A published store file, as a store lists it: an own HFile with its id, or a reference
//! showing (part of) another region's HFile.

use super::half::RangeSource;
use super::reference::{RefRange, Reference};
use crate::hfile::HFileReader;
use crate::scanner::CellSource;
use basalt_types::{Scan, TimeRange};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The file name of store file `id`.
pub fn file_name(id: u64) -> String {
    format!("{id:020}.hfile")
}

#[derive(Debug)]
pub struct StoreFile {
    /// The id in the region's manifest.
    pub id: u64,
    /// The HFile read: the store's own, or a reference's source file.
    pub path: PathBuf,
    pub reader: Arc<HFileReader>,
    /// `Some` for a reference: the file belongs to another region and is never deleted
    /// by this store.
    pub reference: Option<Reference>,
}

impl StoreFile {
    pub fn new(id: u64, path: &Path, reader: Arc<HFileReader>) -> Self {
        Self {
            id,
            path: path.to_path_buf(),
            reader,
            reference: None,
        }
    }

    /// A reference `id` reading `reference`'s source file through `reader`.
    pub fn referencing(id: u64, reference: Reference, reader: Arc<HFileReader>) -> Self {
        Self {
            id,
            path: reader.path().to_path_buf(),
            reader,
            reference: Some(reference),
        }
    }

    pub fn is_reference(&self) -> bool {
        self.reference.is_some()
    }

    fn range(&self) -> &RefRange {
        self.reference
            .as_ref()
            .map_or(&RefRange::Whole, |r| &r.range)
    }

    /// The bytes this file stands for: a half reference counts half its source file.
    pub fn size_bytes(&self) -> u64 {
        let size = self.reader.info().file_size;
        match self.range() {
            RefRange::Whole => size,
            RefRange::Bottom(_) | RefRange::Top(_) => size / 2,
        }
    }

    /// A cursor over the cells this file shows (unpositioned).
    pub fn source(&self, cache_blocks: bool) -> Box<dyn CellSource> {
        let scanner = self.reader.scanner(cache_blocks);
        match self.range() {
            RefRange::Whole => Box::new(scanner),
            range => Box::new(RangeSource::new(scanner, range.clone())),
        }
    }

    /// Whether this file can hold cells the scan needs: its rows (within a reference's
    /// range) overlap the scan's range and it is not entirely older than the time range.
    /// Files entirely *newer* than the time range are kept: their delete markers can mask
    /// older cells that are in range. A one-row scan also asks the bloom filter (a
    /// reference asks its source file's).
    /// `column`: the one `(family, qualifier)` a single-row read asks for, when it asks for
    /// exactly one; a ROWCOL bloom then answers for that column — or for the empty
    /// qualifier, where the family's delete markers live, which must never be skipped.
    pub fn may_serve(&self, scan: &Scan, single_row: bool, column: Option<(&[u8], &[u8])>) -> bool {
        let info = self.reader.info();
        let (Some(first), Some(last)) = (&info.first_key, &info.last_key) else {
            return false;
        };
        let Some((first, last)) = self.range().clamp_rows(first.row(), last.row()) else {
            return false;
        };
        if !rows_overlap(scan, first, last) {
            return false;
        }
        if !older_cells_matter(&scan.time_range, info.max_timestamp) {
            return false;
        }
        if !single_row {
            return true;
        }
        let row = &scan.start_row;
        if !self.range().contains_row(row) {
            return false;
        }
        match column {
            Some((family, qualifier)) => {
                self.reader.might_contain_column(row, family, qualifier)
                    || self.reader.might_contain_column(row, family, b"")
            }
            None => self.reader.might_contain_row(row),
        }
    }
}

fn older_cells_matter(range: &TimeRange, file_max_timestamp: i64) -> bool {
    range.is_all() || file_max_timestamp >= range.min
}

/// Whether `[first, last]` meets the scan's row range (direction-aware).
fn rows_overlap(scan: &Scan, first: &[u8], last: &[u8]) -> bool {
    let (low, low_inclusive, high, high_inclusive) = if scan.reversed {
        (
            &scan.stop_row,
            scan.stop_inclusive,
            &scan.start_row,
            scan.start_inclusive,
        )
    } else {
        (
            &scan.start_row,
            scan.start_inclusive,
            &scan.stop_row,
            scan.stop_inclusive,
        )
    };
    let below_low = !low.is_empty()
        && if low_inclusive {
            last < low.as_ref()
        } else {
            last <= low.as_ref()
        };
    let above_high = !high.is_empty()
        && if high_inclusive {
            first > high.as_ref()
        } else {
            first >= high.as_ref()
        };
    !below_low && !above_high
}
