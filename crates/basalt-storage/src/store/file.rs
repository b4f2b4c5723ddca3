//! A published store file: an HFile with its id, as a store lists it.

use crate::hfile::HFileReader;
use basalt_types::{Scan, TimeRange};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The file name of store file `id`.
pub fn file_name(id: u64) -> String {
    format!("{id:020}.hfile")
}

#[derive(Debug)]
pub struct StoreFile {
    pub id: u64,
    pub path: PathBuf,
    pub reader: Arc<HFileReader>,
}

impl StoreFile {
    pub fn new(id: u64, path: &Path, reader: Arc<HFileReader>) -> Self {
        Self {
            id,
            path: path.to_path_buf(),
            reader,
        }
    }

    pub fn size_bytes(&self) -> u64 {
        self.reader.info().file_size
    }

    /// Whether this file can hold cells the scan needs: its rows overlap the scan's range
    /// and it is not entirely older than the time range. Files entirely *newer* than the
    /// time range are kept: their delete markers can mask older cells that are in range.
    /// A one-row scan also asks the bloom filter.
    pub fn may_serve(&self, scan: &Scan, single_row: bool) -> bool {
        let info = self.reader.info();
        let (Some(first), Some(last)) = (&info.first_key, &info.last_key) else {
            return false;
        };
        if !rows_overlap(scan, &first.row, &last.row) {
            return false;
        }
        if !older_cells_matter(&scan.time_range, info.max_timestamp) {
            return false;
        }
        !single_row || self.reader.might_contain_row(&scan.start_row)
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
