//! Reading kept logs back with the time each edit was logged, for point-in-time restore.
//!
//! A log holds no clock of its own; a table that retains its logs (`WAL_RETENTION_SECS`)
//! has a time mark ([`WalEdit::time_mark`]) logged before its first edit of each new
//! millisecond, under the log's append lock. So an edit's time is the newest mark before
//! it in the same server's log: it was logged in that millisecond (or later, but before
//! the next mark's). Worked example, one server's log:
//!
//! | record          | time given      |
//! |-----------------|-----------------|
//! | mark 1000       |                 |
//! | a: seq 7        | 1000            |
//! | a: seq 8        | 1000            |
//! | mark 1004       |                 |
//! | a: seq 9        | 1004            |
//! | (segment 3 gone: held no retained edit) |   |
//! | a: seq 10       | unknown         |
//!
//! A missing segment between a mark and an edit makes the edit's time unknown (a later
//! mark in the log was maybe in it); the caller refuses rather than guesses.
//!
//! The embedded database's one log is `wal/` itself (its segments archived to
//! `oldWALs/retained/local/`). One server's segments can sit in three folders: `wal/<server>/` (its live or dead
//! log), `oldWALs/<server>/` (the whole log, archived after a clean stop or a recovery) and
//! `oldWALs/retained/<server>/` (single segments archived as they were flushed). Segment
//! ids are unique per server, so the three merge by id.

use super::scan::scan;
use super::segment::parse_file_name;
use super::{WalEdit, RETAINED_DIR};
use crate::fs::{read_all, FileSystem};
use crate::{Error, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The name the embedded database's log (`wal/` itself) goes by.
const LOCAL: &str = "local";

/// One edit and when it was logged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimedEdit {
    /// The millisecond of the newest time mark before it; `None` when unknown.
    pub time_ms: Option<u64>,
    /// The server whose log held it.
    pub server: String,
    pub edit: WalEdit,
}

/// Every segment of every server's log under data folder `root`: server → segment id →
/// its file (the first folder found wins for an id seen twice: the same bytes).
pub fn segments(
    fs: &dyn FileSystem,
    root: &Path,
) -> Result<BTreeMap<String, BTreeMap<u64, PathBuf>>> {
    let mut out: BTreeMap<String, BTreeMap<u64, PathBuf>> = BTreeMap::new();
    // The embedded database's log: segments right in `wal/` (archived as "local").
    let wal = root.join("wal");
    for name in list(fs, &wal)? {
        if let Some(id) = parse_file_name(&name) {
            out.entry(LOCAL.to_string())
                .or_default()
                .insert(id, wal.join(&name));
        }
    }
    let old = root.join("oldWALs");
    let parents = [root.join("wal"), old.clone(), old.join(RETAINED_DIR)];
    for parent in &parents {
        for server in list(fs, parent)? {
            if parent == &old && server == RETAINED_DIR {
                continue;
            }
            if super::expire::is_watermark(&server) {
                continue;
            }
            if parse_file_name(&server).is_some() || server == "corrupt" {
                continue;
            }
            let dir = parent.join(&server);
            let ids = out.entry(server).or_default();
            for name in list(fs, &dir)? {
                if let Some(id) = parse_file_name(&name) {
                    ids.entry(id).or_insert_with(|| dir.join(&name));
                }
            }
        }
    }
    Ok(out)
}

fn list(fs: &dyn FileSystem, dir: &Path) -> Result<Vec<String>> {
    match fs.exists(dir) {
        Ok(false) => Ok(Vec::new()),
        Ok(true) => fs.list(dir).map_err(|e| io(dir, e)),
        Err(e) => Err(io(dir, e)),
    }
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::io(format!("reading log folder {}", path.display()), e)
}

/// Reads server `server`'s `segments` (by id) in order and returns the edits `keep`
/// selects, each with its time. A torn end of a segment (a live log's last write, or a
/// crash's) ends that segment; any other damage is an error naming the segment, since an
/// edit in it could be one the caller needs.
pub fn read_server(
    fs: &dyn FileSystem,
    server: &str,
    segments: &BTreeMap<u64, PathBuf>,
    keep: &dyn Fn(&WalEdit) -> bool,
) -> Result<Vec<TimedEdit>> {
    let mut out = Vec::new();
    let mut mark: Option<u64> = None;
    let mut previous: Option<u64> = None;
    for (&id, path) in segments {
        if previous.is_some_and(|p| p + 1 != id) {
            mark = None;
        }
        previous = Some(id);
        let bytes = read_all(fs, path).map_err(|e| io(path, e))?;
        let scanned = scan(&bytes, id)
            .map_err(|reason| Error::corruption(crate::FileKind::WalSegment, path, 0, reason))?;
        if let Some(stretch) = scanned.stretches.iter().find(|s| !s.tail) {
            return Err(Error::corruption(
                crate::FileKind::WalSegment,
                path,
                stretch.offset as u64,
                format!("damaged log segment: {}", stretch.reason),
            ));
        }
        for (edit, _) in scanned.edits {
            if let Some(ms) = edit.mark_ms() {
                mark = Some(ms);
            } else if keep(&edit) {
                out.push(TimedEdit {
                    time_ms: mark,
                    server: server.to_string(),
                    edit,
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
