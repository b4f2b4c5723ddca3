//! A region's identity and key range.

use bytes::Bytes;

/// The rows `[start_key, end_key)` of one table; empty keys mean unbounded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionInfo {
    /// Unique among the engine's regions; names the region in the write-ahead log.
    pub name: String,
    pub start_key: Bytes,
    pub end_key: Bytes,
}

impl RegionInfo {
    /// A region holding every row.
    pub fn whole(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            start_key: Bytes::new(),
            end_key: Bytes::new(),
        }
    }

    pub fn contains_row(&self, row: &[u8]) -> bool {
        // Open bounds are checked first: most tables have a region without one.
        (self.start_key.is_empty() || row >= self.start_key.as_ref())
            && (self.end_key.is_empty() || row < self.end_key.as_ref())
    }
}
