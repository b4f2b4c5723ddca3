//! Filters as plain data: what a scan asks for, independent of how it is evaluated.
//!
//! `basalt-filter` turns a [`FilterSpec`] into an evaluator, parses the HBase filter
//! language into one and prints one back; the server protocol carries it as it is.

use bytes::Bytes;

/// A server-side filter.
#[derive(Debug, Clone, PartialEq)]
pub enum FilterSpec {
    /// Rows whose key starts with the prefix.
    Prefix(Bytes),
    /// Only the first cell of each row.
    FirstKeyOnly,
    /// Cells without values (with the value's length as a 4-byte value when asked).
    KeyOnly { length_as_value: bool },
    /// At most this many rows.
    Page(u64),
    /// Every filter passes (`AND`) or any does (`OR`).
    List {
        must_pass_all: bool,
        filters: Vec<FilterSpec>,
    },
}
