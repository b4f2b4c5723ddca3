//! Opening a log folder: read every segment, oldest first, and repair a torn tail.
//!
//! | where the file ends          | last segment                   | any other segment |
//! |------------------------------|--------------------------------|-------------------|
//! | after its last record        | fine                           | fine              |
//! | inside a record              | keep the prefix, truncate      | corruption        |
//! | inside the segment header    | nothing logged: file removed   | corruption        |
//! | complete record, bad checksum| corruption                     | corruption        |
//!
//! A crash can only tear the segment being written: a segment is synced completely before
//! the next one is created. Every check runs before anything is changed on disk, so a log
//! that refuses to open is left exactly as it was.

use super::edit::WalEdit;
use super::segment::{self, SegmentEnd};
use crate::error::{Error, Result};
use crate::fs::FileSystem;
use std::collections::HashMap;
use std::path::Path;
use tracing::{info, warn};

/// What a log folder held.
#[derive(Debug)]
pub struct Replayed {
    /// Every edit, in log order.
    pub edits: Vec<WalEdit>,
    /// The segments kept, oldest first, with each one's highest sequence id per region.
    pub segments: Vec<(u64, HashMap<String, u64>)>,
    /// The id for the next segment: above every id ever seen in the folder.
    pub next_id: u64,
}

pub fn replay(fs: &dyn FileSystem, dir: &Path) -> Result<Replayed> {
    fs.create_dir_all(dir)
        .map_err(|e| Error::io(format!("creating log folder {}", dir.display()), e))?;
    let names = fs
        .list(dir)
        .map_err(|e| Error::io(format!("listing log folder {}", dir.display()), e))?;
    let mut ids: Vec<u64> = Vec::new();
    for name in names {
        match segment::parse_file_name(&name) {
            Some(id) => ids.push(id),
            None => {
                warn!(file = %name, dir = %dir.display(), "ignoring a file that is not a log segment")
            }
        }
    }
    ids.sort_unstable();
    let mut replayed = Replayed {
        edits: Vec::new(),
        segments: Vec::new(),
        next_id: ids
            .last()
            .map_or(Some(1), |id| id.checked_add(1))
            .ok_or_else(|| Error::corruption(dir, 0, "log segment ids are exhausted"))?,
    };
    let mut torn_tail = None;
    for (index, &id) in ids.iter().enumerate() {
        let path = dir.join(segment::file_name(id));
        let scanned = segment::scan(fs, &path, id)?;
        let is_last = index + 1 == ids.len();
        match (scanned.end, is_last) {
            (SegmentEnd::Clean, _) => {}
            (SegmentEnd::TornHeader, false) => {
                return Err(Error::corruption(
                    &path,
                    0,
                    "segment header is incomplete but a later segment exists",
                ));
            }
            (SegmentEnd::TornRecord { valid_len }, false) => {
                return Err(Error::corruption(
                    &path,
                    valid_len,
                    "record is incomplete but a later segment exists",
                ));
            }
            (end, true) => torn_tail = Some((path.clone(), end)),
        }
        if scanned.end != SegmentEnd::TornHeader {
            replayed.segments.push((id, scanned.regions));
        }
        replayed.edits.extend(scanned.edits);
    }
    if let Some((path, end)) = torn_tail {
        drop_torn_tail(fs, dir, &path, end)?;
    }
    info!(
        dir = %dir.display(),
        segments = replayed.segments.len(),
        edits = replayed.edits.len(),
        "replayed the write-ahead log"
    );
    Ok(replayed)
}

/// Removes the bytes of an incomplete record (or the whole file, if even its header is
/// incomplete) so that the segment ends cleanly before anything new is logged.
fn drop_torn_tail(fs: &dyn FileSystem, dir: &Path, path: &Path, end: SegmentEnd) -> Result<()> {
    match end {
        SegmentEnd::Clean => Ok(()),
        SegmentEnd::TornHeader => {
            warn!(file = %path.display(), "removing a segment whose header is incomplete");
            fs.remove_file(path)
                .and_then(|()| fs.sync_dir(dir))
                .map_err(|e| Error::io(format!("removing torn segment {}", path.display()), e))
        }
        SegmentEnd::TornRecord { valid_len } => {
            warn!(file = %path.display(), valid_len, "truncating an incomplete record at the end of the log");
            fs.truncate(path, valid_len)
                .map_err(|e| Error::io(format!("truncating torn tail of {}", path.display()), e))
        }
    }
}
