//! Basalt's region engine: HBase's storage semantics, durable and checksummed.
//!
//! A region holds the rows of one key range of one table. Per column family it keeps a
//! memstore (recent writes, sorted in memory) and immutable sorted files (HFiles); every
//! write goes to the write-ahead log first. Reads merge the memstore and the files and apply
//! HBase's rules (versions, time ranges, TTL, delete markers, filters). The core is
//! synchronous: no async runtime inside.
//!
//! This crate is not the catalog (tables, many regions, splits) nor the server.
//!
//! # Layout
//! - [`engine`]: the regions of one process sharing a log, a cache and background workers.
//! - [`region`]: a key range's stores, write path, reads, flushes and compactions.
//! - [`store`]: one family's memstore and files.
//! - [`memstore`]: recent writes, sorted in memory: a skiplist whose nodes live in chunks
//!   of atomic words.
//! - [`compaction`]: which files to rewrite.
//! - [`fs`]: the file-system boundary ([`fs::FileSystem`]), with fault injection for tests.
//! - [`clock`]: injected time.
//! - [`cell_codec`]: the byte form of a cell, shared by the log and the files.
//! - [`wal`]: the write-ahead log: records, segments, group commit, replay.
//! - [`hfile`]: the immutable sorted file: blocks, index, bloom, trailer.
//! - [`block_cache`]: decoded blocks shared by every store.
//! - [`scanner`]: merging sorted sources; [`scanner::matcher`] decides per cell.
//! - [`quarantine`]: where what is not served but must not be deleted is moved aside.
//! - [`context`]: what regions share; [`config`], [`error`].

pub mod block_cache;
pub mod cell_codec;
pub mod clock;
pub mod compaction;
pub mod config;
pub mod context;
pub mod engine;
pub mod error;
pub mod fs;
pub mod hfile;
pub mod memstore;
pub mod quarantine;
pub mod region;
pub mod scanner;
pub mod store;
pub mod wal;

pub use config::StorageConfig;
pub use engine::Engine;
pub use error::{Error, ErrorKind, FileKind, Result};
pub use region::{Region, RegionInfo};
