//! Store files shared by name: a snapshot takes a region's files at one point, and a clone
//! or a restore builds a new region folder whose files are second names (hard links) of
//! them — no byte is copied, and a file stays on disk until its last name is removed.
//!
//! | step | what it guarantees |
//! |------|--------------------|
//! | [`Region::with_files_held`] | the region's own files at one point, none deleted by a compaction of the region until the callback returns (it links them) |
//! | [`write_linked_region`] | a region folder holding links to the given files and a manifest naming them, committed last: a crash before leaves a folder no manifest names (set aside at the next open) |
//!
//! A store holding split or merge references cannot be held: its first compaction
//! rewrites them into files of its own (see [`crate::store::reference`]), which the caller
//! runs first.

use super::manifest::{FamilyFiles, FileEntry, Manifest};
use super::Region;
use crate::fs::FileSystem;
use crate::store::family_dir_name;
use crate::store::file::file_name;
use crate::{Error, Result};
use bytes::Bytes;
use std::path::{Path, PathBuf};

/// One family's files, oldest first, as a snapshot takes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldFamily {
    pub family: Bytes,
    pub files: Vec<HeldFile>,
}

/// An own store file of a region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldFile {
    pub id: u64,
    pub path: PathBuf,
    pub size_bytes: u64,
}

impl Region {
    /// Runs `f` over every family's own files while compactions of this region wait, so
    /// that no file handed to `f` is deleted before it returns. Refused while a store
    /// holds references (compact the region first) or the region is closed.
    pub fn with_files_held<T>(&self, f: impl FnOnce(&[HeldFamily]) -> Result<T>) -> Result<T> {
        let _compaction = self.compaction_lock.lock();
        self.check_open()?;
        if self.has_references() {
            return Err(Error::invalid(format!(
                "region {} still holds references to its parent's files; compact it first",
                self.info.name
            )));
        }
        let families: Vec<HeldFamily> = self
            .stores
            .iter()
            .map(|store| HeldFamily {
                family: store.family().name.clone(),
                files: store
                    .files()
                    .iter()
                    .map(|file| HeldFile {
                        id: file.id,
                        path: file.path.clone(),
                        size_bytes: file.size_bytes(),
                    })
                    .collect(),
            })
            .collect();
        f(&families)
    }
}

/// Writes a new region folder at `dir` whose stores hold `families`' files (oldest first),
/// each a link to the given path, then commits its manifest. A folder an earlier attempt
/// left (no own files committed) is replaced; a live region's folder is refused.
pub fn write_linked_region(
    fs: &dyn FileSystem,
    dir: &Path,
    families: &[(Bytes, Vec<PathBuf>)],
) -> Result<()> {
    let io = |what: &str, path: &Path, e| Error::io(format!("{what} {}", path.display()), e);
    if fs.exists(dir).map_err(|e| io("checking", dir, e))? {
        super::split::check_replaceable(fs, dir)?;
        fs.remove_dir_all(dir).map_err(|e| io("clearing", dir, e))?;
    }
    fs.create_dir_all(dir).map_err(|e| io("creating", dir, e))?;
    if let Some(table_dir) = dir.parent() {
        fs.sync_dir(table_dir)
            .map_err(|e| io("syncing the folder of", dir, e))?;
    }
    let mut manifest = Manifest::default();
    let mut next_id = 1;
    for (family, sources) in families {
        let family_dir = dir.join(family_dir_name(family));
        fs.create_dir_all(&family_dir)
            .map_err(|e| io("creating", &family_dir, e))?;
        let mut entries = Vec::with_capacity(sources.len());
        for source in sources {
            let target = family_dir.join(file_name(next_id));
            fs.hard_link(source, &target).map_err(|e| {
                Error::io(
                    format!("linking {} as {}", source.display(), target.display()),
                    e,
                )
            })?;
            entries.push(FileEntry::own(next_id));
            next_id += 1;
        }
        fs.sync_dir(&family_dir)
            .map_err(|e| io("syncing", &family_dir, e))?;
        manifest.families.insert(
            family.clone(),
            FamilyFiles {
                flushed_seq: 0,
                files: entries,
            },
        );
    }
    manifest.next_file_id = next_id;
    manifest.store(fs, dir)
}
