//! Expiry of kept logs: the segments archived in `oldWALs/retained/<server>/` for tables
//! that retain their logs (`WAL_RETENTION_SECS`) go once the newest time mark in them is
//! older than the longest retention of any table that retains now. Each removal is logged;
//! with no table retaining, nothing is removed (a table whose retention was unset may have
//! it set again, and its snapshots would then need those logs).
//!
//! **The watermark.** Before removing segments, the expiry writes
//! `oldWALs/retained/EXPIRED_BEFORE`: the newest time mark of anything it removes (never
//! lowered). A point-in-time restore of a snapshot taken at or before it is refused
//! ([`expired_before`]), so a restore never silently misses edits a removal took, even
//! for a table whose retention changed in between.
//!
//! Time marks grow with segment ids, so per server the oldest segments expire first and a
//! pass stops at the first one that has not. A segment holding no mark (a flush barrier,
//! edits within one millisecond) was logged before the next segment's first mark, so it
//! takes that mark's time; with no later mark it stays. What marks a segment holds is
//! remembered per file (archived segments never change), so a pass reads a segment once.

use super::scan::scan;
use super::segment::parse_file_name;
use super::RETAINED_DIR;
use crate::fs::{read_all, FileSystem};
use crate::{Error, Result};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use tracing::info;

/// The file holding the expiry's watermark, under `oldWALs/retained/`.
pub const WATERMARK: &str = "EXPIRED_BEFORE";

/// Each archived segment's oldest and newest time marks (`None`: it holds none), once read.
type Marks = Option<(u64, u64)>;
static MARKS: LazyLock<Mutex<HashMap<PathBuf, Marks>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// Whether a segment whose newest time mark is `newest_mark_ms` has expired at `now_ms`
/// when logs are kept `keep_ms`. A segment without a mark never expires by this rule.
pub fn expired(newest_mark_ms: Option<u64>, keep_ms: u64, now_ms: u64) -> bool {
    newest_mark_ms.is_some_and(|t| t.saturating_add(keep_ms) < now_ms)
}

/// Whether `name`, beside the servers' folders in `oldWALs/retained/`, is the watermark
/// file (or its staging copy) rather than a server's folder.
pub fn is_watermark(name: &str) -> bool {
    name.starts_with(WATERMARK)
}

fn retained_root(root: &Path) -> PathBuf {
    root.join("oldWALs").join(RETAINED_DIR)
}

fn io(what: String, e: std::io::Error) -> Error {
    Error::io(what, e)
}

fn list(fs: &dyn FileSystem, dir: &Path) -> Result<Vec<String>> {
    match fs.exists(dir) {
        Ok(false) => Ok(Vec::new()),
        Ok(true) => fs
            .list(dir)
            .map_err(|e| io(format!("listing {}", dir.display()), e)),
        Err(e) => Err(io(format!("listing {}", dir.display()), e)),
    }
}

/// The expiry's watermark under data folder `root`: snapshots taken at or before it can
/// no longer be rolled forward. `None` when nothing has expired.
pub fn expired_before(fs: &dyn FileSystem, root: &Path) -> Result<Option<u64>> {
    let path = retained_root(root).join(WATERMARK);
    match fs.exists(&path) {
        Ok(false) => return Ok(None),
        Ok(true) => {}
        Err(e) => return Err(io(format!("reading {}", path.display()), e)),
    }
    let bytes = read_all(fs, &path).map_err(|e| io(format!("reading {}", path.display()), e))?;
    let text = String::from_utf8_lossy(&bytes);
    text.trim().parse().map(Some).map_err(|_| {
        io(
            format!("reading {}", path.display()),
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("the kept logs' expiry watermark is not a number: {text:?}"),
            ),
        )
    })
}

fn marks(fs: &dyn FileSystem, path: &Path, id: u64) -> Result<Marks> {
    if let Some(known) = MARKS.lock().get(path) {
        return Ok(*known);
    }
    let bytes = read_all(fs, path).map_err(|e| io(format!("reading {}", path.display()), e))?;
    let scanned = scan(&bytes, id)
        .map_err(|reason| Error::corruption(crate::FileKind::WalSegment, path, 0, reason))?;
    let times: Vec<u64> = scanned
        .edits
        .iter()
        .filter_map(|(e, _)| e.mark_ms())
        .collect();
    let marks = times
        .iter()
        .min()
        .zip(times.iter().max())
        .map(|(a, b)| (*a, *b));
    MARKS.lock().insert(path.to_path_buf(), marks);
    Ok(marks)
}

/// One pass over `root`'s kept logs (see the module's story): removes the segments
/// expired at `now_ms` when the longest retention is `keep_ms`; returns them.
pub fn expire_retained(
    fs: &dyn FileSystem,
    root: &Path,
    keep_ms: u64,
    now_ms: u64,
) -> Result<Vec<PathBuf>> {
    let base = retained_root(root);
    let mut doomed: Vec<(PathBuf, u64)> = Vec::new();
    for server in list(fs, &base)? {
        if is_watermark(&server) {
            continue;
        }
        let dir = base.join(&server);
        let mut ids: Vec<(u64, String)> = list(fs, &dir)?
            .into_iter()
            .filter_map(|name| parse_file_name(&name).map(|id| (id, name)))
            .collect();
        ids.sort();
        // Segments without a mark, waiting for the next mark to tell their time.
        let mut unmarked: Vec<PathBuf> = Vec::new();
        for (id, name) in ids {
            let path = dir.join(name);
            let Some((oldest, newest)) = marks(fs, &path, id)? else {
                unmarked.push(path);
                continue;
            };
            if !expired(Some(oldest), keep_ms, now_ms) {
                break;
            }
            doomed.extend(unmarked.drain(..).map(|p| (p, oldest)));
            if !expired(Some(newest), keep_ms, now_ms) {
                break;
            }
            doomed.push((path, newest));
        }
    }
    let Some(watermark) = doomed.iter().map(|(_, t)| *t).max() else {
        return Ok(Vec::new());
    };
    let current = expired_before(fs, root)?.unwrap_or(0);
    if watermark > current {
        let path = base.join(WATERMARK);
        crate::fs::write_atomic(fs, &path, format!("{watermark}\n").as_bytes())
            .map_err(|e| io(format!("writing {}", path.display()), e))?;
    }
    for (path, newest) in &doomed {
        fs.remove_file(path)
            .map_err(|e| io(format!("removing {}", path.display()), e))?;
        MARKS.lock().remove(path);
        info!(file = %path.display(), newest_mark_ms = newest, keep_ms,
            "kept logs: removed a segment past every table's WAL_RETENTION_SECS");
    }
    Ok(doomed.into_iter().map(|(p, _)| p).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_expires_only_past_the_retention_and_only_with_a_mark() {
        let hour = 3_600_000;
        assert!(!expired(Some(1_000), hour, 1_000 + hour));
        assert!(expired(Some(1_000), hour, 1_001 + hour));
        assert!(!expired(Some(5_000), hour, 1_000), "a clock behind");
        assert!(!expired(None, 0, u64::MAX), "no mark: never");
    }
}
