//! Flushes and compactions: new files written, then committed in the manifest, then
//! published to readers.
//!
//! A failure before the manifest commit, or a commit that did not land, leaves the new
//! files named by nothing: the job removes them (they are its own output). A flush keeps
//! its snapshot for the next attempt, which writes it first, at the sequence id it was
//! taken at (the memstore's newer cells are not in it). Only a full disk leaves the region
//! writable; other failures poison it. A commit whose outcome is in doubt (the new
//! manifest may be in place) keeps the files and poisons the region: the next open sorts
//! it out from what is on disk.

use super::manifest::{FileEntry, Manifest};
use super::Region;
use crate::compaction::policy::pick_minor;
use crate::store::{Store, StoreFile};
use crate::wal::WalEdit;
use crate::{Error, Result};
use basalt_types::Durability;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// How a manifest commit failed.
#[derive(Debug)]
pub(super) enum CommitError {
    /// The manifest on disk is the old one: files only the new one names can go.
    NotApplied(Error),
    /// The new manifest may be in place (or its state cannot be read).
    InDoubt(Error),
}

impl From<CommitError> for Error {
    fn from(e: CommitError) -> Self {
        match e {
            CommitError::NotApplied(e) => e,
            CommitError::InDoubt(e) => match e {
                // Not a plain full disk any more: whoever gets it must not retry blindly.
                Error::NoSpace { context, source } => Error::Io {
                    context: format!("{context} (the new manifest may be in place)"),
                    source,
                },
                other => other,
            },
        }
    }
}

/// What a compaction of one family did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionOutcome {
    pub family: bytes::Bytes,
    pub inputs: Vec<u64>,
    pub output: Option<u64>,
}

impl Region {
    /// Writes every memstore to a new file. Returns the new file ids per family.
    ///
    /// On a full disk the flush fails without harm (see the module's story) and can be
    /// tried again. Any other failure poisons the region: its memstore stays in the log
    /// and comes back on reopen.
    pub fn flush(&self) -> Result<Vec<(bytes::Bytes, u64)>> {
        self.check_open()?;
        let mut left = self.flush_lock.lock();
        let _running = self.ctx.jobs.flush_running();
        let mut new_files = Vec::new();
        if let Some(seq) = *left {
            // The snapshots are still there: `snapshot` hands them back.
            let snapshots: Vec<_> = self.stores.iter().map(|s| s.snapshot()).collect();
            new_files = self.flush_snapshots(&snapshots, seq)?;
            *left = None;
        }
        let (snapshots, flushed_seq) = {
            let _updates = self.updates.write();
            let seq = self.mvcc.last_seq();
            let snapshots: Vec<_> = self.stores.iter().map(|s| s.snapshot()).collect();
            (snapshots, seq)
        };
        match self.flush_snapshots(&snapshots, flushed_seq) {
            Ok(files) => new_files.extend(files),
            Err(e) => {
                *left = Some(flushed_seq);
                return Err(e);
            }
        }
        self.log_flush_barrier(flushed_seq);
        Ok(new_files)
    }

    /// After a committed flush: if no write has taken an id since, logs a barrier carrying
    /// `flushed_seq`, under the update lock so that none can take one meanwhile. Then every
    /// edit of this region before the barrier is flushed, which is what lets damaged log
    /// bytes before it be judged for a region that writes nothing more (`wal::damage`).
    /// A region written to since needs no barrier: its own flushed edits serve.
    fn log_flush_barrier(&self, flushed_seq: u64) {
        let _updates = self.updates.write();
        if self.mvcc.last_seq() == flushed_seq {
            self.log_barrier(flushed_seq);
        }
    }

    fn flush_snapshots(
        &self,
        snapshots: &[Arc<crate::memstore::Segment>],
        flushed_seq: u64,
    ) -> Result<Vec<(bytes::Bytes, u64)>> {
        let result = self.write_and_commit_flush(snapshots, flushed_seq);
        match &result {
            Err(e) if e.is_no_space() => tracing::warn!(region = %self.info.name, error = %e,
                "flush failed: the disk is full; the memstore is kept (its edits are in the \
                 write-ahead log) and the flush will be tried again"),
            Err(e) => self.poison(format!("flush failed: {e}")),
            Ok(_) => {}
        }
        result
    }

    /// Logs an edit with no cells carrying `seq`, the highest id handed out, while no write
    /// is under way (under the update lock, or before the region serves): every edit of
    /// this region before it in the log has an id at or below `seq`, every edit after it
    /// one above. Replay applies nothing for it. Synced like a SYNC_WAL edit, so that it
    /// is never left waiting in the log's buffer (a full disk refuses it at once). Best
    /// effort: a failure is only logged, and recovery is then only more conservative.
    pub(super) fn log_barrier(&self, seq: u64) {
        let barrier = WalEdit {
            region: self.info.name.clone(),
            seq_id: seq,
            cells: Vec::new(),
            nonce: None,
        };
        if let Err(e) = self.ctx.wal.append(&barrier, Durability::SyncWal) {
            tracing::debug!(region = %self.info.name, error = %e, "could not log a barrier");
        }
    }

    fn write_and_commit_flush(
        &self,
        snapshots: &[Arc<crate::memstore::Segment>],
        flushed_seq: u64,
    ) -> Result<Vec<(bytes::Bytes, u64)>> {
        let mut written: Vec<Option<Arc<StoreFile>>> = Vec::with_capacity(self.stores.len());
        for (store, snapshot) in self.stores.iter().zip(snapshots) {
            let file = if snapshot.is_empty() {
                None
            } else {
                match store.write_snapshot(snapshot, self.next_file_id()) {
                    Ok(file) => file,
                    Err(e) => {
                        self.remove_outputs(written.iter().flatten(), "flush");
                        return Err(e);
                    }
                }
            };
            written.push(file);
        }
        // The nonces of the flushed edits go beside the files before the commit lets the
        // log (which holds them too) go.
        if let Err(e) = self
            .nonces
            .persist(self.ctx.fs.as_ref(), &self.dir, flushed_seq)
        {
            self.remove_outputs(written.iter().flatten(), "flush");
            return Err(Error::io(
                format!("writing the nonces of region {}", self.info.name),
                e,
            ));
        }
        let committed = self.try_commit_manifest(|manifest| {
            for (store, file) in self.stores.iter().zip(&written) {
                let entry = manifest
                    .families
                    .entry(store.family().name.clone())
                    .or_default();
                entry.flushed_seq = entry.flushed_seq.max(flushed_seq);
                if let Some(file) = file {
                    entry.files.push(FileEntry::own(file.id));
                }
            }
        });
        if let Err(e) = committed {
            if let CommitError::NotApplied(_) = e {
                self.remove_outputs(written.iter().flatten(), "flush");
            }
            return Err(e.into());
        }
        let mut new_files = Vec::new();
        for (store, file) in self.stores.iter().zip(written) {
            if let Some(f) = &file {
                new_files.push((store.family().name.clone(), f.id));
            }
            let freed = store.publish_flush(file);
            self.memstore_bytes
                .fetch_sub(freed.min(self.memstore_size_bytes()), Ordering::AcqRel);
            self.ctx.budget.release(freed);
        }
        self.recovered_edits_flushed(flushed_seq);
        // The flush is done: segments that could not be deleted now are at the next one.
        if let Err(e) = self.ctx.wal.mark_flushed(&self.info.name, flushed_seq) {
            tracing::warn!(region = %self.info.name, error = %e,
                "could not delete fully flushed log segments; the next flush tries again");
        }
        self.request_compaction_if_due();
        Ok(new_files)
    }

    /// Removes the files a failed flush or compaction wrote, which no manifest names.
    fn remove_outputs<'f>(&self, files: impl Iterator<Item = &'f Arc<StoreFile>>, job: &str) {
        for file in files {
            file.reader.evict_from_cache();
            match self.ctx.fs.remove_file(&file.path) {
                Ok(()) => tracing::info!(region = %self.info.name, file = %file.path.display(),
                    "removed the output of a failed {job}"),
                Err(e) => tracing::warn!(region = %self.info.name, file = %file.path.display(),
                    error = %e, "could not remove the output of a failed {job} (removed at the next open)"),
            }
        }
    }

    /// Compacts every family: all files when `major`, else the files the exploring policy
    /// picks. Runs even when the table disables compactions: COMPACTION_ENABLED governs
    /// the automatic ones only.
    pub fn compact(&self, major: bool) -> Result<Vec<CompactionOutcome>> {
        self.compact_families(None, major)
    }

    /// Compacts one family's store (HBase's `compact 'region', 'family'`).
    pub fn compact_family(&self, family: &[u8], major: bool) -> Result<Vec<CompactionOutcome>> {
        self.store(family)?;
        self.compact_families(Some(family), major)
    }

    fn compact_families(
        &self,
        family: Option<&[u8]>,
        major: bool,
    ) -> Result<Vec<CompactionOutcome>> {
        let _compaction = self.compaction_lock.lock();
        // Checked under the lock: a compaction queued behind a close must not start.
        self.check_open()?;
        if self.writes_stopped.lock().is_some() {
            // Split or merged away: daughters may reference these files, which a
            // compaction would delete.
            return Ok(Vec::new());
        }
        let _running = self.ctx.jobs.compaction_running();
        let mut outcomes = Vec::new();
        for store in self
            .stores
            .iter()
            .filter(|s| family.is_none_or(|f| s.family().name.as_ref() == f))
        {
            if let Some(outcome) = self.compact_store(store, major)? {
                outcomes.push(outcome);
            }
        }
        if major && family.is_none() {
            self.last_major_ms
                .store(self.ctx.clock.now_ms(), Ordering::Relaxed);
        }
        Ok(outcomes)
    }

    fn compact_store(&self, store: &Store, major: bool) -> Result<Option<CompactionOutcome>> {
        let files = store.files();
        // References are rewritten at the first compaction, whatever it is: it takes every
        // file, so that afterwards the store no longer needs the source region's files.
        let inputs: Vec<Arc<StoreFile>> = if major || store.has_references() {
            files.as_ref().clone()
        } else {
            let sizes: Vec<u64> = files.iter().map(|f| f.size_bytes()).collect();
            let config = &self.ctx.config;
            match pick_minor(
                &sizes,
                config.compaction_min_files,
                config.compaction_max_files,
                config.compaction_ratio,
            ) {
                Some(range) => files[range].to_vec(),
                None => Vec::new(),
            }
        };
        if inputs.is_empty() {
            return Ok(None);
        }
        tracing::info!(region = %self.info.name, family = %String::from_utf8_lossy(&store.family().name),
            files = inputs.len(), major, "compacting");
        let output = store.write_compaction(&inputs, major, self.next_file_id())?;
        let input_ids: Vec<u64> = inputs.iter().map(|f| f.id).collect();
        let committed = self.try_commit_manifest(|manifest| {
            let entry = manifest
                .families
                .entry(store.family().name.clone())
                .or_default();
            let position = entry
                .files
                .iter()
                .position(|f| input_ids.contains(&f.id))
                .unwrap_or(0);
            entry.files.retain(|f| !input_ids.contains(&f.id));
            if let Some(out) = &output {
                entry
                    .files
                    .insert(position.min(entry.files.len()), FileEntry::own(out.id));
            }
        });
        if let Err(e) = committed {
            if let CommitError::NotApplied(_) = e {
                self.remove_outputs(output.iter(), "compaction");
            }
            return Err(e.into());
        }
        let output_id = output.as_ref().map(|f| f.id);
        store.publish_compaction(&inputs, output);
        Ok(Some(CompactionOutcome {
            family: store.family().name.clone(),
            inputs: input_ids,
            output: output_id,
        }))
    }

    /// A fresh file id (committed with the next manifest; an uncommitted id's file is a
    /// leftover removed at open).
    pub(super) fn next_file_id(&self) -> u64 {
        let mut manifest = self.manifest.lock();
        manifest.next_file_id += 1;
        manifest.next_file_id
    }

    /// Edits the manifest and commits it atomically. Fails with [`Error::NoSpace`] only if
    /// the manifest on disk is unchanged.
    pub(super) fn commit_manifest(&self, edit: impl FnOnce(&mut Manifest)) -> Result<()> {
        self.try_commit_manifest(edit).map_err(Error::from)
    }

    /// As [`Region::commit_manifest`], telling whether a failed commit may have landed.
    pub(super) fn try_commit_manifest(
        &self,
        edit: impl FnOnce(&mut Manifest),
    ) -> std::result::Result<(), CommitError> {
        let mut manifest = self.manifest.lock();
        let mut next = manifest.clone();
        edit(&mut next);
        if next == *manifest {
            // Nothing changed (a flush of empty memstores, as closing an idle region does):
            // two fsyncs saved per region, which made disabling a 100-region table take 2 s.
            return Ok(());
        }
        let stored = next.store(self.ctx.fs.as_ref(), &self.dir);
        // Even a failed commit used its generation (a copy may hold it).
        manifest.generation = next.generation;
        if let Err(e) = stored {
            // Reading needs no space: whether the old manifest is still the one on disk (its
            // files; the id counter on disk trails the one in memory, which hands ids out).
            return match Manifest::load(self.ctx.fs.as_ref(), &self.dir) {
                Ok(on_disk) if on_disk != next && on_disk.families == manifest.families => {
                    Err(CommitError::NotApplied(e))
                }
                _ => Err(CommitError::InDoubt(e)),
            };
        }
        *manifest = next;
        Ok(())
    }
}
