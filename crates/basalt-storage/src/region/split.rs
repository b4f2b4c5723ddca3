//! Splitting a region: its daughters' folders, whose manifests reference its files.
//!
//! No data is copied. A parent `[s, e)` split at row `k` gets daughters `[s, k)` and
//! `[k, e)`; each daughter family lists a reference per parent file: `Bottom(k)` or
//! `Top(k)`, or `Whole` when the file lies entirely on the daughter's side (and nothing
//! for the other daughter). The daughters' first compaction rewrites the references.
//!
//! The catalog drives a split; this module only writes folders:
//!
//! | step (caller)                           | durable afterwards                               |
//! |-----------------------------------------|--------------------------------------------------|
//! | `split_point()`                         | nothing                                          |
//! | `write_split(k, bottom, top)`           | the parent's memstore in a file; both daughter folders with their MANIFESTs |
//! | close the parent, record the split      | (the catalog's own record)                       |
//! | open the daughters                      | their writes, in the log                         |
//! | janitor: `references_into` is false     | the parent folder may go                         |

use super::manifest::{FamilyFiles, FileEntry, Manifest};
use super::nonces::RecentNonces;
use super::Region;
use crate::fs::FileSystem;
use crate::hfile::HFileReader;
use crate::scanner::heap::row_successor;
use crate::scanner::CellSource;
use crate::store::reference::{valid_region_folder, RefRange, Reference};
use crate::{Error, Result};
use basalt_types::limits::ROW_MAX_BYTES;
use basalt_types::Cell;
use bytes::Bytes;
use std::path::Path;
use std::sync::Arc;

impl Region {
    /// Whether any store still lists a reference to another region's file.
    pub fn has_references(&self) -> bool {
        self.stores.iter().any(|s| s.has_references())
    }

    /// The row to split at: the middle of the largest store's largest file (the first row
    /// of its middle block, as HBase's midkey), strictly inside the region and above the
    /// file's first row. `None` when the region cannot split: no files, one row only, or it
    /// still holds references (HBase refuses those until a compaction removes them).
    pub fn split_point(&self) -> Option<Bytes> {
        if self.has_references() {
            return None;
        }
        let store = self.stores.iter().max_by_key(|s| s.file_size_bytes())?;
        let files = store.files();
        let file = files.iter().max_by_key(|f| f.size_bytes())?;
        let row = match middle_row(&file.reader) {
            Ok(row) => row?,
            Err(e) => {
                tracing::warn!(region = %self.info.name, error = %e, "no split point: reading failed");
                return None;
            }
        };
        let inside =
            row > self.info.start_key && (self.info.end_key.is_empty() || row < self.info.end_key);
        inside.then_some(row)
    }

    /// Stops writes to this region (later writes fail with [`Error::WrongRegion`], so the
    /// caller looks the row up again), flushes, and writes the daughters' folders
    /// `bottom_dir` (rows `< split_key`) and `top_dir` (rows `>= split_key`), whose
    /// manifests reference this region's files. Both must be siblings of this region's
    /// folder (`engine.region_dir(&table, &daughter_name)`). Reads keep working until the
    /// region is closed; compactions of it stop (they would delete referenced files).
    ///
    /// Idempotent: a retry (after an error or a crash and reopen) replaces whatever
    /// daughter folders an earlier attempt left, so the daughters must not have been opened
    /// yet. On an error writes stay stopped: retry, or [`Region::abort_split`].
    pub fn write_split(&self, split_key: &[u8], bottom_dir: &Path, top_dir: &Path) -> Result<()> {
        self.check_open()?;
        self.check_split_key(split_key)?;
        let parent = self.folder_name()?;
        check_new_sibling(&self.dir, bottom_dir)?;
        check_new_sibling(&self.dir, top_dir)?;
        if bottom_dir == top_dir {
            return Err(Error::invalid("the two daughters need different folders"));
        }
        if self.has_references() {
            return Err(Error::invalid(format!(
                "region {} still holds references to another region's files; compact it before splitting",
                self.info.name
            )));
        }
        check_replaceable(self.ctx.fs.as_ref(), bottom_dir)?;
        check_replaceable(self.ctx.fs.as_ref(), top_dir)?;
        self.stop_writes(format!("region {} is splitting", self.info.name));
        let _compaction = self.compaction_lock.lock();
        self.flush()?;
        let split = Bytes::copy_from_slice(split_key);
        let (bottom, top) = self.daughter_manifests(&parent, &split);
        let fs = self.ctx.fs.as_ref();
        write_region_folder(fs, bottom_dir, &bottom)?;
        write_region_folder(fs, top_dir, &top)?;
        // A retry of an operation the parent applied must not apply in a daughter either.
        let nonces = self.nonces.flushed_entries(u64::MAX);
        for dir in [bottom_dir, top_dir] {
            RecentNonces::write_for(fs, dir, &nonces)
                .map_err(|e| Error::io(format!("writing the nonces of {}", dir.display()), e))?;
        }
        tracing::info!(region = %self.info.name, split = %String::from_utf8_lossy(split_key),
            bottom = %bottom_dir.display(), top = %top_dir.display(), "wrote split daughters");
        Ok(())
    }

    /// Lets writes and compactions in again after a split or merge the caller abandoned.
    /// The caller must delete the daughter (or merged) folder first: once this region
    /// compacts, the files it references are gone.
    pub fn abort_split(&self) {
        *self.writes_stopped.lock() = None;
    }

    /// Refuses writes from now on; writes under way finish first (the next flush holds them).
    pub(super) fn stop_writes(&self, why: String) {
        self.writes_stopped.lock().get_or_insert(why);
    }

    pub(super) fn check_writes_allowed(&self) -> Result<()> {
        match self.writes_stopped.lock().as_ref() {
            Some(why) => Err(Error::WrongRegion(why.clone())),
            None => Ok(()),
        }
    }

    /// This region's folder name, as references in sibling folders name it.
    pub(super) fn folder_name(&self) -> Result<String> {
        self.dir
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| valid_region_folder(n))
            .map(str::to_string)
            .ok_or_else(|| {
                Error::invalid(format!(
                    "region folder {} has no plain UTF-8 name",
                    self.dir.display()
                ))
            })
    }

    fn check_split_key(&self, key: &[u8]) -> Result<()> {
        let shown = String::from_utf8_lossy(key);
        if key.is_empty() || key.len() > ROW_MAX_BYTES {
            return Err(Error::invalid(format!(
                "split key must be a row of 1 to {ROW_MAX_BYTES} bytes"
            )));
        }
        if key <= self.info.start_key.as_ref() {
            return Err(Error::invalid(format!(
                "split key '{shown}' is not above the start key of region {}",
                self.info.name
            )));
        }
        if !self.info.contains_row(key) {
            return Err(Error::invalid(format!(
                "split key '{shown}' is outside region {}",
                self.info.name
            )));
        }
        Ok(())
    }

    /// The daughters' manifests: per family, a reference to each parent file for the
    /// daughter(s) whose side it has rows on.
    fn daughter_manifests(&self, parent: &str, split: &Bytes) -> (Manifest, Manifest) {
        let committed = self.manifest.lock().clone();
        let (mut bottom, mut top) = (Manifest::default(), Manifest::default());
        for store in &self.stores {
            let name = store.family().name.clone();
            let flushed_seq = committed.families.get(&name).map_or(0, |f| f.flushed_seq);
            let (mut low, mut high) = (Vec::new(), Vec::new());
            for file in store.files().iter() {
                let info = file.reader.info();
                let (Some(first), Some(last)) = (&info.first_key, &info.last_key) else {
                    continue;
                };
                let reference = |range| Reference {
                    region: parent.to_string(),
                    file_id: file.id,
                    range,
                };
                if last.row() < *split {
                    low.push(reference(RefRange::Whole));
                } else if first.row() >= *split {
                    high.push(reference(RefRange::Whole));
                } else {
                    low.push(reference(RefRange::Bottom(split.clone())));
                    high.push(reference(RefRange::Top(split.clone())));
                }
            }
            add_family(&mut bottom, name.clone(), flushed_seq, low);
            add_family(&mut top, name, flushed_seq, high);
        }
        (bottom, top)
    }
}

/// Adds a family listing `references` (ids from the manifest's counter).
pub(super) fn add_family(
    manifest: &mut Manifest,
    family: Bytes,
    flushed_seq: u64,
    references: Vec<Reference>,
) {
    let mut files = Vec::with_capacity(references.len());
    for reference in references {
        manifest.next_file_id += 1;
        files.push(FileEntry {
            id: manifest.next_file_id,
            reference: Some(reference),
        });
    }
    let entry = manifest.families.entry(family).or_insert(FamilyFiles {
        flushed_seq,
        files: Vec::new(),
    });
    entry.flushed_seq = entry.flushed_seq.max(flushed_seq);
    entry.files.extend(files);
}

/// A new region folder must sit beside `dir` (references name their source by folder
/// name) and be another folder.
pub(super) fn check_new_sibling(dir: &Path, new: &Path) -> Result<()> {
    let plain = new
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(valid_region_folder);
    if !plain || new.parent() != dir.parent() || new == dir {
        return Err(Error::invalid(format!(
            "{} must be another region folder beside {}",
            new.display(),
            dir.display()
        )));
    }
    Ok(())
}

/// Replaces whatever an earlier attempt left at `dir` with a region folder holding only
/// `manifest`, durably. The first manifest copy's atomic rename is the commit: a folder
/// without one is an empty region. A folder whose manifest names files of its own is a live region,
/// never replaced.
pub(super) fn write_region_folder(
    fs: &dyn FileSystem,
    dir: &Path,
    manifest: &Manifest,
) -> Result<()> {
    let io = |what: &str, e| Error::io(format!("{what} {}", dir.display()), e);
    if fs.exists(dir).map_err(|e| io("checking", e))? {
        check_replaceable(fs, dir)?;
        fs.remove_dir_all(dir).map_err(|e| io("clearing", e))?;
    }
    fs.create_dir_all(dir).map_err(|e| io("creating", e))?;
    if let Some(table_dir) = dir.parent() {
        fs.sync_dir(table_dir)
            .map_err(|e| io("syncing the folder of", e))?;
    }
    manifest.clone().store(fs, dir)
}

/// Refuses to replace a folder whose manifest names files of its own: a live region, not
/// the leftover of an earlier attempt (which only holds references).
pub(crate) fn check_replaceable(fs: &dyn FileSystem, dir: &Path) -> Result<()> {
    let existing = Manifest::load(fs, dir)?;
    if existing
        .families
        .values()
        .any(|f| !f.own_file_ids().is_empty())
    {
        return Err(Error::invalid(format!(
            "{} holds a region with files of its own; not replacing it",
            dir.display()
        )));
    }
    Ok(())
}

/// The middle row of a file: the middle block's first row, or for a one-block file the
/// row of its middle cell; moved on to the next row when that is the file's first row (a
/// split must leave rows on both sides). `None` when the file holds one row.
fn middle_row(reader: &Arc<HFileReader>) -> Result<Option<Bytes>> {
    let Some(first) = reader.info().first_key.as_ref().map(|k| k.row_bytes()) else {
        return Ok(None);
    };
    let mut scanner = reader.scanner(false);
    let candidate = match reader.middle_block_row() {
        Some(row) => Bytes::copy_from_slice(row),
        None => {
            scanner.seek_to_first()?;
            for _ in 0..reader.info().cell_count / 2 {
                scanner.advance()?;
            }
            match scanner.peek() {
                Some(cell) => cell.row_bytes(),
                None => return Ok(None),
            }
        }
    };
    if candidate > first {
        return Ok(Some(candidate));
    }
    scanner.seek(&Cell::first_on_row(row_successor(&first)))?;
    Ok(scanner.peek().map(|c| c.row_bytes()))
}
