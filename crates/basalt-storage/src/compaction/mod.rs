//! Compaction: rewriting a store's files into fewer, applying versions, TTL and deletes.
//!
//! # Layout
//! - [`policy`]: which files a minor compaction picks.

pub mod policy;
