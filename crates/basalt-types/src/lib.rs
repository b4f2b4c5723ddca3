//! Basalt's data model, as plain data with no I/O.
//!
//! A Basalt table is HBase's sorted map: row → family → qualifier → timestamp → value.
//! Everything here is bytes in, bytes out; nothing here touches a disk or a socket.
//!
//! # Layout
//! - [`cell`]: the [`Cell`], its [`CellType`] codes and the cell order everything rests on.
//! - [`seq_id`]: [`SeqId`], a region's sequence id, also a scan's MVCC read point.
//! - [`time_range`]: `[min, max)` time ranges and the `LATEST_TIMESTAMP` sentinel.
//! - [`descriptor`]: column-family and table descriptors with HBase's options and defaults.
//! - [`name`]: table and namespace names with HBase's naming rules.
//! - [`limits`]: size limits (row, family, cell) and their checks.
//! - [`operation`]: Get, Scan, Put, Delete, Increment, Append, CheckAndMutate, RowMutations
//!   and batches, as plain data.
//! - [`filter_spec`]: filters as plain data (built into evaluators by `basalt-filter`).
//! - [`split`]: pre-split points (`NUMREGIONS` + `SPLITALGO`) and split-key checks.
//! - [`namespace`]: namespace descriptors.
//! - [`escape`]: bytes as the HBase shell prints them.
//! - [`error`]: the validation error.

pub mod cell;
pub mod descriptor;
pub mod error;
pub mod escape;
pub mod filter_spec;
pub mod limits;
pub mod name;
pub mod namespace;
pub mod operation;
pub mod seq_id;
pub mod split;
pub mod time_range;

pub use cell::{Cell, CellType};
pub use descriptor::{
    BloomType, Compression, DataBlockEncoding, FamilyDescriptor, KeepDeletedCells, TableDescriptor,
};
pub use error::{Error, Result};
pub use filter_spec::FilterSpec;
pub use name::TableName;
pub use namespace::NamespaceDescriptor;
pub use operation::*;
pub use seq_id::SeqId;
pub use split::SplitAlgorithm;
pub use time_range::{TimeRange, LATEST_TIMESTAMP};
