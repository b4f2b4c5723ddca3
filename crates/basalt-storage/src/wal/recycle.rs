//! Segments kept for reuse: a flushed segment's file, instead of being deleted, is renamed
//! `wal-<id>.free` and later renamed to the next segment's name and overwritten from its
//! first byte. Its blocks are allocated already, so appending into it changes no file size
//! and an fdatasync commits data only, not the file system's metadata (see
//! `docs/performance.md`, "Single-writer durable latency"). Records name their segment
//! ([`super::numbered`]), so the old records past the new ones are never read as new.
//!
//! What becomes of a segment whose edits are all flushed ([`fate`]):
//!
//! | a region in it retains its logs | free files kept | can the file system reuse | fate     |
//! |----------------------------------|-----------------|---------------------------|----------|
//! | yes                              | any             | any                       | Archive  |
//! | no                               | below the most  | yes                       | Keep     |
//! | no                               | the most        | any                       | Delete   |
//! | no                               | any             | no                        | Delete   |
//!
//! Retention always wins: a segment to be archived is never reused. Free files are not
//! segments: replay, sealing and splitting pass them by. A log opening adopts the free
//! files it finds (a crash kept them), up to the most it keeps; it removes the others,
//! which are free by their name (written only here), not by inference.

use super::segment;
use crate::fs::FileSystem;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use tracing::{info, warn};

/// What becomes of a fully flushed closed segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// A retained region's edits are in it: moved to the archive.
    Archive,
    /// Renamed to a free file, for the next segment to reuse.
    Keep,
    Delete,
}

/// The fate of a flushed segment (see the table above).
pub fn fate(retained: bool, free_now: usize, free_max: usize, can_reuse: bool) -> Fate {
    if retained {
        Fate::Archive
    } else if can_reuse && free_now < free_max {
        Fate::Keep
    } else {
        Fate::Delete
    }
}

/// The file name of free segment file `id` (the id it had as a segment).
pub fn free_name(id: u64) -> String {
    let name = segment::file_name(id);
    format!("{}.free", name.trim_end_matches(".log"))
}

/// The id of a free file name, or `None` for any other name.
pub fn parse_free_name(name: &str) -> Option<u64> {
    segment::parse_file_name(&format!("{}.log", name.strip_suffix(".free")?))
}

/// The free files of one log folder, oldest first.
#[derive(Debug)]
pub struct FreeSegments {
    max: usize,
    files: Mutex<VecDeque<PathBuf>>,
}

impl FreeSegments {
    /// Adopts the free files in `dir`, up to `max`; removes the others.
    pub fn adopt(fs: &dyn FileSystem, dir: &Path, max: usize) -> std::io::Result<Self> {
        let mut files = VecDeque::new();
        for name in fs.list(dir)? {
            if parse_free_name(&name).is_none() {
                continue;
            }
            let path = dir.join(&name);
            if files.len() < max && fs.can_reuse() {
                files.push_back(path);
            } else {
                fs.remove_file(&path)?;
                info!(file = %path.display(), "removed a free log segment beyond the most kept");
            }
        }
        Ok(Self {
            max,
            files: Mutex::new(files),
        })
    }

    /// How many free files are kept now.
    pub fn count(&self) -> usize {
        self.files.lock().len()
    }

    pub fn max(&self) -> usize {
        self.max
    }

    /// Renames flushed segment `path` (of segment `id`) to a free file and keeps it.
    pub fn keep(&self, fs: &dyn FileSystem, path: &Path, id: u64) -> std::io::Result<()> {
        let to = path.with_file_name(free_name(id));
        fs.rename(path, &to)?;
        info!(from = %path.display(), to = %to.display(), "kept a flushed log segment for reuse");
        self.files.lock().push_back(to);
        Ok(())
    }

    /// The oldest free file, taken out of the list.
    pub fn take(&self) -> Option<PathBuf> {
        self.files.lock().pop_front()
    }

    /// Gives back a file [`Self::take`] returned that could not be reused after all.
    pub fn give_back(&self, path: PathBuf) {
        warn!(file = %path.display(), "a free log segment could not be reused: kept for later");
        self.files.lock().push_front(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fate_follows_the_table() {
        let golden = [
            ((true, 0, 2, true), Fate::Archive),
            ((true, 5, 2, false), Fate::Archive),
            ((false, 0, 2, true), Fate::Keep),
            ((false, 1, 2, true), Fate::Keep),
            ((false, 2, 2, true), Fate::Delete),
            ((false, 0, 0, true), Fate::Delete),
            ((false, 0, 2, false), Fate::Delete),
        ];
        for ((retained, now, max, reuse), expected) in golden {
            assert_eq!(
                fate(retained, now, max, reuse),
                expected,
                "{retained} {now} {max} {reuse}"
            );
        }
    }

    #[test]
    fn free_names_are_not_segment_names_and_parse_back() {
        let name = free_name(7);
        assert_eq!(name, "wal-00000000000000000007.free");
        assert_eq!(segment::parse_file_name(&name), None);
        assert_eq!(parse_free_name(&name), Some(7));
        assert_eq!(parse_free_name(&segment::file_name(7)), None);
        assert_eq!(parse_free_name("wal-7.free"), None);
    }
}
