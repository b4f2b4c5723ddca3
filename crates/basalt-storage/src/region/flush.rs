//! Flushes and compactions: new files written, then committed in the manifest, then
//! published to readers.

use super::manifest::FileEntry;
use super::Region;
use crate::compaction::policy::pick_minor;
use crate::store::{Store, StoreFile};
use crate::Result;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// What a compaction of one family did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionOutcome {
    pub family: bytes::Bytes,
    pub inputs: Vec<u64>,
    pub output: Option<u64>,
}

impl Region {
    /// Writes every memstore to a new file. Returns the new file ids per family. A failure
    /// poisons the region: its memstore stays in the log and comes back on reopen.
    pub fn flush(&self) -> Result<Vec<(bytes::Bytes, u64)>> {
        self.check_open()?;
        let _flush = self.flush_lock.lock();
        let _running = self.ctx.jobs.flush_running();
        let (snapshots, flushed_seq) = {
            let _updates = self.updates.write();
            let seq = self.mvcc.last_seq();
            let snapshots: Vec<_> = self.stores.iter().map(|s| s.snapshot()).collect();
            (snapshots, seq)
        };
        let result = self.write_and_commit_flush(&snapshots, flushed_seq);
        if let Err(e) = &result {
            self.poison(format!("flush failed: {e}"));
        }
        result
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
                store.write_snapshot(snapshot, self.next_file_id())?
            };
            written.push(file);
        }
        self.commit_manifest(|manifest| {
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
        })?;
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
        self.ctx.wal.mark_flushed(&self.info.name, flushed_seq)?;
        self.request_compaction_if_due();
        Ok(new_files)
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
        self.commit_manifest(|manifest| {
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
        })?;
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

    /// Edits the manifest and commits it atomically.
    pub(super) fn commit_manifest(
        &self,
        edit: impl FnOnce(&mut super::manifest::Manifest),
    ) -> Result<()> {
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
        stored?;
        *manifest = next;
        Ok(())
    }
}
