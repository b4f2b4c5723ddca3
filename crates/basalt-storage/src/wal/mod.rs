//! The write-ahead log: every edit is logged (and, for synced durabilities, made durable)
//! before a region applies it, so a crash loses nothing that was acknowledged.
//!
//! One [`Wal`] serves every region of a server. It is a folder of segment files, written one
//! at a time and rolled by size; each edit is one checksummed record. Opening the folder
//! replays every segment in order (cutting a torn tail off the newest one) and returns the
//! readable edits for the regions to re-apply, and the damaged segments for each region to
//! judge ([`damage`]). Regions report flushes with [`Wal::mark_flushed`]; segments whose
//! edits are all flushed are deleted, or kept (a few) to be reused as new segments, whose
//! appends then change no file size (`recycle`). Damaged bytes are never deleted: they go to
//! `wal/corrupt/`. The byte layout is drawn in `docs/format.md` ("Write-ahead log").
//!
//! A full disk refuses appends with [`Error::NoSpace`](crate::Error::NoSpace) and the log
//! resumes by itself once space returns (see `active`); any other failed write, and every
//! failed sync, poisons it for good.
//!
//! This module is not the region: it does not know memstores, nor which edits a region has
//! already flushed on replay (the caller skips edits at or below its flushed sequence id).
//!
//! # Layout
//! - [`record`]: framing of one record (length, checksums, payload) in version 1 and 2
//!   segments and recovered edits.
//! - [`edit`]: [`WalEdit`] and its payload bytes.
//! - [`segment`]: segment names and header.
//! - `scan`: reading a segment's records back, finding where damage starts and ends.
//! - `replay`: opening a folder: all segments in order, torn-tail repair, damage by mode.
//! - [`damage`]: damaged spans and which regions need them (a pure rule).
//! - [`corrupt`]: the `corrupt/` folder damaged bytes are moved to.
//! - `active`: the segment taking appends; rolling by size, and after a full disk.
//! - `writer`: group commit and poisoning.
//! - `outcome`: which appenders learn that their batch was refused (a full disk).
//! - `gather`: how long a group-commit leader waits for its group.
//! - `syncer`: the ASYNC_WAL background sync thread.
//! - `retention`: which closed segments are still needed (a segment holding a region
//!   whose table retains its logs is archived, [`retained_dir`], rather than deleted).
//! - [`timeline`]: reading retained logs with their time marks, for point-in-time restore.
//! - [`expire`]: removing kept segments past every table's retention, behind a watermark
//!   that point-in-time restores respect.
//! - [`numbered`]: framing of a version 3 record, which names its segment.
//! - `recycle`: flushed segments kept as free files, reused for new segments.
//! - `log`: [`Wal`], tying it together.
//! - [`split`]: a dead server's sealed log split per region, into each region's
//!   [`recovered`] edits.

mod active;
pub mod corrupt;
pub mod damage;
pub mod edit;
pub mod expire;
mod gather;
mod log;
pub mod numbered;
mod outcome;
pub mod record;
pub mod recovered;
mod recycle;
mod replay;
mod retention;
pub(crate) mod scan;
pub mod segment;
pub mod split;
mod syncer;
pub mod timeline;
mod writer;

pub use damage::{DamagedSegment, DamagedSpan, Verdict};
pub use edit::WalEdit;
pub use log::{Recovered, Wal};
pub use replay::RecoveryMode;
pub use replay::{replay, Replayed};

use crate::config::StorageConfig;

/// Where the flushed segments of log folder `log_dir` go when a region in them belongs to
/// a table that retains its logs: `<root>/oldWALs/retained/<server>/` for a server's log
/// `<root>/wal/<server>/` (beside, not inside, `oldWALs/<server>/`, which a whole log
/// moves to after a clean stop or a recovery), and `<root>/oldWALs/retained/local/` for
/// the embedded database's `<root>/wal/`.
pub fn retained_dir(log_dir: &std::path::Path) -> std::path::PathBuf {
    let name = log_dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let (root, server) = match log_dir.parent() {
        Some(parent) if name != "wal" => (parent.parent().unwrap_or(parent), name),
        _ => (log_dir.parent().unwrap_or(log_dir), "local"),
    };
    root.join("oldWALs").join(RETAINED_DIR).join(server)
}

/// The folder under `oldWALs/` holding retained segments, one folder per server inside.
pub const RETAINED_DIR: &str = "retained";
use crate::error::{Error, Result};

/// Settings of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalConfig {
    /// A segment is rolled once it holds at least this many bytes.
    pub segment_size_bytes: u64,
    /// ASYNC_WAL edits are synced within this window; at least 1.
    pub async_sync_interval_ms: u64,
    /// Flushed segments kept for reuse (`recycle`); 0 deletes them.
    pub recycle_segments: usize,
    /// Zeros written ahead of a segment's appends at a time, up to the segment size; 0
    /// for none.
    pub preallocate_step_bytes: u64,
}

impl WalConfig {
    pub fn validate(&self) -> Result<()> {
        if self.segment_size_bytes == 0 {
            return Err(Error::invalid("WAL segment_size_bytes must be above 0"));
        }
        if self.async_sync_interval_ms == 0 {
            return Err(Error::invalid("WAL async_sync_interval_ms must be above 0"));
        }
        Ok(())
    }
}

impl Default for WalConfig {
    fn default() -> Self {
        Self::from(&StorageConfig::default())
    }
}

impl From<&StorageConfig> for WalConfig {
    fn from(config: &StorageConfig) -> Self {
        Self {
            segment_size_bytes: config.wal_segment_size_bytes,
            async_sync_interval_ms: config.wal_async_sync_interval_ms,
            recycle_segments: config.wal_recycle_segments,
            preallocate_step_bytes: config.wal_preallocate_step_bytes,
        }
    }
}
