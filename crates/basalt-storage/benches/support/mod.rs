//! The pieces of the engine benchmark (see `benches/engine.rs` for how to read it).
//!
//! # Layout
//! - [`options`]: the command line and the list of workloads.
//! - [`limits`]: the machine's limits, measured in the same run.
//! - [`data`]: keys, values and the table.
//! - [`writes`], [`reads`]: the workloads.
//! - [`put_phase`]: random puts, synced ones interleaved with the fsync limit.
//! - [`memory`]: the memstore's bytes per cell, counted and resident.
//! - [`report`]: timing, latency percentiles, CPU time, the results table, progress.
//! - [`tails`]: get and put tails while a major compaction runs.
//! - [`xorshift`]: the seeded generator.

pub mod data;
pub mod limits;
pub mod memory;
pub mod options;
pub mod put_phase;
pub mod reads;
pub mod report;
pub mod tails;
pub mod writes;
pub mod xorshift;

/// Errors of the engine and of the file system, as one type that threads can return.
pub type BenchResult<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;
