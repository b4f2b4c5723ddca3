//! A region: the rows of one key range, one store per family.
//!
//! # Layout
//! - [`mvcc`]: sequence ids and the read point.
//! - [`row_locks`]: one writer per row.

pub mod mvcc;
pub mod row_locks;
