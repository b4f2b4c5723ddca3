//! Compaction: rewriting a store's files into fewer, applying versions, TTL and deletes.
//!
//! # Layout
//! - [`policy`]: which files a minor compaction picks.
//! - [`throttle`]: how fast a compaction may write (pressure-aware pacing).

pub mod policy;
pub mod throttle;
