//! A region: the rows of one key range, one store per family.
//!
//! # Layout
//! - [`budget`]: the global memstore limit.
//! - [`manifest`]: which files each store holds, committed atomically.
//! - [`mvcc`]: sequence ids and the read point.
//! - [`row_locks`]: one writer per row.
//! - [`rules`]: what increments, appends and conditions compute.

pub mod budget;
pub mod manifest;
pub mod mvcc;
pub mod row_locks;
pub mod rules;
