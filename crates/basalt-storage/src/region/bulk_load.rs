//! Bulk loads (HBase's `completebulkload`): sorted cells written straight into new store
//! files, then adopted by the region in one step — no write-ahead log, no memstore.
//!
//! | step | durable afterwards | after a crash |
//! |------|--------------------|---------------|
//! | [`Region::begin_bulk_load`] | nothing (a sequence id is taken) | nothing to undo |
//! | [`BulkFileWriter`]s, [`Region::finish_bulk_file`] | `<family>/.tmp/<id>.hfile`, synced | `.tmp` is removed at open |
//! | commit: files renamed into their family folders | files no manifest names | removed at open |
//! | commit: the manifest lists them | the load | the files are the store's |
//! | commit: the stores publish them | — | — |
//!
//! Readers see all of a load or none of it: the stores swap their file lists while the
//! region's update lock is held exclusively, and a scanner takes its sources under it.
//!
//! **Sequence ids.** Every cell of a load carries one sequence id, as HBase assigns one to
//! each bulk-loaded file (`hbase.mapreduce.bulkload.assign.sequenceNumbers`): the load
//! orders after every write committed before it and before every write after it. At equal
//! row, column, timestamp and type the higher id wins:
//!
//! | cell of `r1/cf:q@5`       | seq | read sees |
//! |---------------------------|-----|-----------|
//! | put before the load       | 7   | loaded    |
//! | loaded                    | 9   |           |
//! | put after the commit      | 10  | that put  |
//!
//! The id is taken when the load begins and written into the files. When the region took
//! other writes before the commit, that id no longer orders the load after them, so the
//! commit takes a fresh id and rewrites the files with it: the cost of compacting the
//! loaded files, paid only by regions written to while a load was under way.
//!
//! The log holds none of a load, so `flushed_seq` is left alone: edits in the log below
//! the load's id are still replayed after a crash (HBase flushes before a bulk load for the
//! same reason, HBASE-10958).

use super::manifest::FileEntry;
use super::{Region, RegionInfo};
use crate::hfile::{HFileWriter, WriterOptions};
use crate::scanner::CellSource;
use crate::store::{file::file_name, StoreFile};
use crate::{Error, Result};
use basalt_types::limits::{check_cell_size, check_row};
use basalt_types::{Cell, LATEST_TIMESTAMP};
use bytes::Bytes;
use std::cmp::Ordering as CellOrder;
use std::path::PathBuf;
use std::sync::Arc;

/// HBase's default for `hbase.mapreduce.bulkload.max.hfiles.perRegion.perFamily`.
pub const FILES_PER_FAMILY_DEFAULT_MAX: usize = 32;

/// A bulk file is synced in the background every this many bytes, so that the disk
/// writes while the loader computes and finishing a file waits for its last part only.
const WRITE_BEHIND_BYTES: u64 = 4 << 20;

/// A commit that finds the region written to since its sequence id rewrites the files
/// with a fresh id outside the update lock this many times, then once holding it (writes
/// wait), so that a steady stream of writes cannot keep it from committing.
const UNLOCKED_REWRITES_MAX: u32 = 2;

/// A bulk load into one region in progress: its sequence id and the files finished so
/// far, none of them visible until [`Region::commit_bulk_load`].
#[derive(Debug)]
pub struct BulkLoad {
    region: String,
    seq_id: u64,
    files_per_family_max: usize,
    staged: Vec<StagedFile>,
}

impl BulkLoad {
    /// The sequence id the load's cells carry (a commit may assign a later one).
    pub fn seq_id(&self) -> u64 {
        self.seq_id
    }

    /// Files finished so far.
    pub fn file_count(&self) -> usize {
        self.staged.len()
    }

    fn files_of(&self, family: &[u8]) -> usize {
        self.staged.iter().filter(|f| f.family == family).count()
    }
}

/// A finished file waiting for the commit, in the store's staging folder.
#[derive(Debug)]
struct StagedFile {
    family: Bytes,
    id: u64,
    path: PathBuf,
    cells: u64,
    bytes: u64,
}

/// A file adopted into its family folder and opened, not yet published.
#[derive(Debug)]
struct Adopted {
    family: Bytes,
    file: Arc<StoreFile>,
}

/// What a committed bulk load added to the region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkLoadOutcome {
    /// The sequence id the loaded cells carry.
    pub seq_id: u64,
    pub files: usize,
    pub cells: u64,
    pub bytes: u64,
    /// Whether the region took writes during the load, so the files were rewritten with a
    /// later sequence id.
    pub rewritten: bool,
}

/// Writes one file of a bulk load: cells of one family, in strictly increasing cell order,
/// all inside the region's key range.
#[derive(Debug)]
pub struct BulkFileWriter {
    family: Bytes,
    id: u64,
    path: PathBuf,
    seq_id: u64,
    region: RegionInfo,
    cell_max_bytes: usize,
    writer: HFileWriter,
}

impl BulkFileWriter {
    /// Appends `cell`, which must sort strictly after the previous one. Its sequence id is
    /// replaced by the load's; its timestamp must be resolved (not `LATEST_TIMESTAMP`).
    pub fn append(&mut self, mut cell: Cell) -> Result<()> {
        if !same_bytes(cell.family(), &self.family) && cell.family() != self.family {
            return Err(Error::invalid(format!(
                "bulk load: {} does not belong in a file of family '{}'",
                describe(&cell),
                String::from_utf8_lossy(&self.family)
            )));
        }
        if cell.timestamp() == LATEST_TIMESTAMP {
            return Err(Error::invalid(format!(
                "bulk load: {} has no timestamp; resolve LATEST_TIMESTAMP first",
                describe(&cell)
            )));
        }
        let last = self.writer.last_cell();
        // The cells of one row usually share the row's bytes: its checks are made once.
        let same_row = last.is_some_and(|l| same_bytes(l.row(), cell.row()));
        if !same_row {
            check_row(cell.row())?;
            if !self.region.contains_row(cell.row()) {
                return Err(Error::WrongRegion(format!(
                    "bulk load: row '{}' is outside region {}",
                    String::from_utf8_lossy(cell.row()),
                    self.region.name
                )));
            }
        }
        check_cell_size(&cell, self.cell_max_bytes)?;
        cell.set_seq_id(self.seq_id);
        if let Some(last) = last {
            let order = if same_row {
                compare_in_row(&cell, last)
            } else {
                cell.cmp_key(last)
            };
            match order {
                CellOrder::Greater => {}
                CellOrder::Less => {
                    return Err(Error::invalid(format!(
                        "bulk load input is not sorted: {} after {}",
                        describe(&cell),
                        describe(last)
                    )))
                }
                CellOrder::Equal => {
                    return Err(Error::invalid(format!(
                        "bulk load input holds {} twice",
                        describe(&cell)
                    )))
                }
            }
        }
        self.writer.append_sorted(cell)
    }

    /// Bytes written so far (for rolling to a new file at a size bound).
    pub fn size_bytes(&self) -> u64 {
        self.writer.size_bytes()
    }

    pub fn family(&self) -> &Bytes {
        &self.family
    }

    /// Where the file is being written (its staging folder), for error messages.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }
}

/// Whether two byte strings are the same bytes in memory (so equal without comparing).
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.as_ptr() == b.as_ptr() && a.len() == b.len()
}

/// The cell order of two cells of one row (the sequence ids of a load are all equal).
fn compare_in_row(a: &Cell, b: &Cell) -> CellOrder {
    let family = if same_bytes(a.family(), b.family()) {
        CellOrder::Equal
    } else {
        a.family().cmp(b.family())
    };
    family
        .then_with(|| a.qualifier().cmp(b.qualifier()))
        .then_with(|| b.timestamp().cmp(&a.timestamp()))
        .then_with(|| b.cell_type().code().cmp(&a.cell_type().code()))
}

/// `row 'r' cf:q @ts (Put)`, for error messages.
fn describe(cell: &Cell) -> String {
    format!(
        "row '{}' {}:{} @{} ({})",
        String::from_utf8_lossy(cell.row()),
        String::from_utf8_lossy(cell.family()),
        String::from_utf8_lossy(cell.qualifier()),
        cell.timestamp(),
        cell.cell_type().name()
    )
}

impl Region {
    /// Begins a bulk load: takes the sequence id its cells will carry. At most
    /// `files_per_family_max` files per family (HBase's default:
    /// [`FILES_PER_FAMILY_DEFAULT_MAX`]).
    pub fn begin_bulk_load(&self, files_per_family_max: usize) -> Result<BulkLoad> {
        self.check_bulk_load_allowed()?;
        if files_per_family_max == 0 {
            return Err(Error::invalid(
                "a bulk load needs room for at least one file per family",
            ));
        }
        let seq_id = self.mvcc.begin();
        self.mvcc.complete_and_wait(seq_id);
        tracing::debug!(region = %self.info.name, seq_id, "bulk load begun");
        Ok(BulkLoad {
            region: self.info.name.clone(),
            seq_id,
            files_per_family_max,
            staged: Vec::new(),
        })
    }

    /// Opens a new file of `load` for `family` in the store's staging folder.
    pub fn create_bulk_file(&self, load: &BulkLoad, family: &[u8]) -> Result<BulkFileWriter> {
        self.check_own_load(load)?;
        let store = self.store(family)?;
        if load.files_of(family) >= load.files_per_family_max {
            return Err(self.too_many_files(load, family));
        }
        let id = self.next_file_id();
        let dir = store.staging_dir();
        self.ctx
            .fs
            .create_dir_all(&dir)
            .map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
        let path = dir.join(file_name(id));
        let options = WriterOptions::for_family(store.family(), &self.ctx.config);
        let mut writer = HFileWriter::create(self.ctx.fs.as_ref(), &path, options)?;
        writer.write_behind(WRITE_BEHIND_BYTES);
        Ok(BulkFileWriter {
            family: store.family().name.clone(),
            id,
            path,
            seq_id: load.seq_id,
            region: self.info.clone(),
            cell_max_bytes: self.ctx.config.cell_max_bytes,
            writer,
        })
    }

    /// Finishes (and syncs) a file of `load`; a file without cells is deleted instead.
    pub fn finish_bulk_file(&self, load: &mut BulkLoad, file: BulkFileWriter) -> Result<()> {
        self.check_own_load(load)?;
        if file.seq_id != load.seq_id || file.region.name != self.info.name {
            return Err(Error::invalid("this file belongs to another bulk load"));
        }
        if load.files_of(&file.family) >= load.files_per_family_max {
            let error = self.too_many_files(load, &file.family);
            drop(file.writer);
            self.remove_quietly(&file.path);
            return Err(error);
        }
        let info = match file.writer.finish() {
            Ok(info) => info,
            Err(e) => {
                self.remove_quietly(&file.path);
                return Err(e);
            }
        };
        if info.cell_count == 0 {
            self.remove_quietly(&file.path);
            return Ok(());
        }
        tracing::debug!(region = %self.info.name, file = %file.path.display(),
            cells = info.cell_count, bytes = info.file_size, "bulk load file written");
        load.staged.push(StagedFile {
            family: file.family,
            id: file.id,
            path: file.path,
            cells: info.cell_count,
            bytes: info.file_size,
        });
        Ok(())
    }

    /// Deletes a file of a load that will not be finished.
    pub fn discard_bulk_file(&self, file: BulkFileWriter) {
        drop(file.writer);
        self.remove_quietly(&file.path);
    }

    /// Deletes the files of a load that will not be committed.
    pub fn abort_bulk_load(&self, load: BulkLoad) {
        for file in &load.staged {
            self.remove_quietly(&file.path);
        }
    }

    /// Adopts the load's files into their stores: durable in the manifest, then visible to
    /// readers, all at once. On an error nothing of the load is adopted and its files are
    /// deleted.
    pub fn commit_bulk_load(&self, load: BulkLoad) -> Result<BulkLoadOutcome> {
        self.check_own_load(&load)?;
        let staged = load.staged;
        let outcome = BulkLoadOutcome {
            seq_id: load.seq_id,
            files: staged.len(),
            cells: staged.iter().map(|f| f.cells).sum(),
            bytes: staged.iter().map(|f| f.bytes).sum(),
            rewritten: false,
        };
        let mut adopted = Vec::with_capacity(staged.len());
        let result = self
            .adopt_all(&staged, &mut adopted)
            .and_then(|()| self.publish_bulk_load(&mut adopted, outcome));
        if result.is_err() {
            for file in &staged {
                self.remove_quietly(&file.path);
            }
            for file in &adopted {
                self.remove_quietly(&file.file.path);
            }
        }
        result
    }

    /// Moves the staged files into their family folders and opens them.
    fn adopt_all(&self, staged: &[StagedFile], adopted: &mut Vec<Adopted>) -> Result<()> {
        self.check_bulk_load_allowed()?;
        for file in staged {
            adopted.push(self.adopt(&file.family, file.id, &file.path)?);
        }
        self.sync_family_dirs(adopted)?;
        for file in adopted.iter() {
            self.check_in_range(&file.file)?;
        }
        Ok(())
    }

    /// Commits the adopted files in the manifest and publishes them, once no write of the
    /// region has a sequence id above theirs (rewriting them with a fresh id if needed).
    fn publish_bulk_load(
        &self,
        adopted: &mut Vec<Adopted>,
        mut outcome: BulkLoadOutcome,
    ) -> Result<BulkLoadOutcome> {
        let mut attempt = 0;
        loop {
            let flush = self.flush_lock.lock();
            let updates = self.updates.write();
            // Under the lock: a split or merge stops writes before its flush, which then
            // waits for this lock, so its daughters either see the files or this refuses.
            self.check_bulk_load_allowed()?;
            if self.mvcc.last_seq() == outcome.seq_id {
                let committed = self.commit_manifest(|manifest| {
                    for file in adopted.iter() {
                        let entry = manifest.families.entry(file.family.clone()).or_default();
                        entry.files.push(FileEntry::own(file.file.id));
                    }
                });
                if let Err(e) = committed {
                    // The new manifest may have landed after all: keep the files (a reopen
                    // removes them if it did not) and refuse writes until then, as a
                    // failed flush does.
                    self.poison(format!("committing a bulk load failed: {e}"));
                    adopted.clear();
                    return Err(e);
                }
                for store in &self.stores {
                    let files = adopted
                        .iter()
                        .filter(|f| f.family == store.family().name)
                        .map(|f| f.file.clone())
                        .collect();
                    store.publish_bulk_load(files);
                }
                drop(updates);
                self.after_bulk_load(&outcome);
                return Ok(outcome);
            }
            // No write is under way while `updates` is held: the fresh id is visible at once.
            let fresh = self.mvcc.begin();
            self.mvcc.complete(fresh);
            tracing::info!(region = %self.info.name, old = outcome.seq_id, new = fresh,
                "region written during a bulk load: rewriting its files with a later sequence id");
            // The locks are released here (dropped with the tuple) unless this is the last try.
            let held = (attempt >= UNLOCKED_REWRITES_MAX).then_some((flush, updates));
            let rewritten = self.rewrite_with_seq(adopted, fresh);
            drop(held);
            *adopted = rewritten?;
            outcome.seq_id = fresh;
            outcome.rewritten = true;
            attempt += 1;
        }
    }

    /// Rewrites every adopted file with sequence id `seq_id`, deleting the old ones.
    fn rewrite_with_seq(&self, adopted: &[Adopted], seq_id: u64) -> Result<Vec<Adopted>> {
        let mut rewritten = Vec::with_capacity(adopted.len());
        let result = (|| {
            for old in adopted {
                rewritten.push(self.rewrite_one(old, seq_id)?);
            }
            self.sync_family_dirs(&rewritten)
        })();
        if let Err(e) = result {
            for file in &rewritten {
                self.remove_quietly(&file.file.path);
            }
            return Err(e);
        }
        for old in adopted {
            old.file.reader.evict_from_cache();
            self.remove_quietly(&old.file.path);
        }
        Ok(rewritten)
    }

    fn rewrite_one(&self, old: &Adopted, seq_id: u64) -> Result<Adopted> {
        let store = self.store(&old.family)?;
        let id = self.next_file_id();
        let dir = store.staging_dir();
        let path = dir.join(file_name(id));
        let options = WriterOptions::for_family(store.family(), &self.ctx.config);
        let mut writer = HFileWriter::create(self.ctx.fs.as_ref(), &path, options)?;
        let mut source = old.file.reader.scanner(false);
        source.seek_to_first()?;
        while let Some(cell) = source.peek() {
            writer.append(&cell.clone().with_seq(seq_id))?;
            source.advance()?;
        }
        writer.finish()?;
        self.adopt(&old.family, id, &path)
    }

    /// Renames staged file `id` into its family folder and opens it.
    fn adopt(&self, family: &Bytes, id: u64, staged: &std::path::Path) -> Result<Adopted> {
        let store = self.store(family)?;
        let target = store.dir().join(file_name(id));
        self.ctx
            .fs
            .rename(staged, &target)
            .map_err(|e| Error::io(format!("adopting {}", staged.display()), e))?;
        let file = store.open_own_file(id)?;
        Ok(Adopted {
            family: family.clone(),
            file,
        })
    }

    fn sync_family_dirs(&self, adopted: &[Adopted]) -> Result<()> {
        for store in &self.stores {
            if adopted.iter().any(|f| f.family == store.family().name) {
                self.ctx
                    .fs
                    .sync_dir(store.dir())
                    .map_err(|e| Error::io(format!("syncing {}", store.dir().display()), e))?;
            }
        }
        Ok(())
    }

    /// Refuses a file holding rows outside the region (its first and last keys decide).
    fn check_in_range(&self, file: &StoreFile) -> Result<()> {
        let info = file.reader.info();
        for key in [&info.first_key, &info.last_key].into_iter().flatten() {
            if !self.info.contains_row(key.row()) {
                return Err(Error::WrongRegion(format!(
                    "bulk load: {} holds row '{}', outside region {}",
                    file.path.display(),
                    String::from_utf8_lossy(key.row()),
                    self.info.name
                )));
            }
        }
        Ok(())
    }

    fn after_bulk_load(&self, outcome: &BulkLoadOutcome) {
        tracing::info!(region = %self.info.name, seq_id = outcome.seq_id, files = outcome.files,
            cells = outcome.cells, bytes = outcome.bytes, rewritten = outcome.rewritten,
            "bulk load committed");
        self.request_compaction_if_due();
    }

    fn check_bulk_load_allowed(&self) -> Result<()> {
        self.check_accepts_cells()?;
        self.check_writes_allowed()
    }

    fn check_own_load(&self, load: &BulkLoad) -> Result<()> {
        if load.region != self.info.name {
            return Err(Error::invalid(format!(
                "a bulk load begun on region {} cannot go to region {}",
                load.region, self.info.name
            )));
        }
        Ok(())
    }

    fn too_many_files(&self, load: &BulkLoad, family: &[u8]) -> Error {
        Error::invalid(format!(
            "bulk load into region {} needs more than {} files for family '{}' \
             (hbase.mapreduce.bulkload.max.hfiles.perRegion.perFamily); write larger files",
            self.info.name,
            load.files_per_family_max,
            String::from_utf8_lossy(family)
        ))
    }

    fn remove_quietly(&self, path: &std::path::Path) {
        if let Err(e) = self.ctx.fs.remove_file(path) {
            if e.kind() != std::io::ErrorKind::NotFound {
                tracing::warn!(file = %path.display(), error = %e, "could not delete a bulk load file");
            }
        }
    }
}
