//! `basalt hbck rebuild-meta`: the catalog rebuilt from the store alone, for a cluster
//! whose coordinator lost its data (or was restored from an old backup), as HBase's
//! offline meta repair.
//!
//! # Layout
//! - [`scan`]: reading namespaces, tables, regions and dead logs off the store.
//! - [`plan`]: the pure decisions (retired parents, holes and overlaps, logs to replay).
//! - [`write`]: the checks (no master, no server, no catalog unless forced) and the writing.

pub mod plan;
pub mod scan;
pub mod write;

#[cfg(test)]
mod tests;
