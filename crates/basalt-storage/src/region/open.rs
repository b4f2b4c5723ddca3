//! Opening a region: its manifest, its stores, leftovers set aside, log edits replayed.

use super::manifest::Manifest;
use super::mvcc::Mvcc;
use super::nonces::RecentNonces;
use super::row_locks::RowLocks;
use super::{Region, RegionInfo};
use crate::context::Context;
use crate::store::{family_dir_name, file, Store};
use crate::wal::damage::{first_needed, DamagedSegment};
use crate::wal::WalEdit;
use crate::{Error, FileKind, Result};
use basalt_types::TableDescriptor;
use parking_lot::{Mutex, RwLock};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

impl Region {
    /// Opens (or creates) the region in `dir` and applies the log `edits` that its files do
    /// not already hold. Refuses, before changing anything, if the region needs bytes of a
    /// `damaged` log segment still in the log; for one set aside, logs what may be lost.
    pub fn open(
        ctx: Context,
        info: RegionInfo,
        table: TableDescriptor,
        dir: PathBuf,
        edits: &[WalEdit],
        damaged: &[DamagedSegment],
    ) -> Result<Arc<Region>> {
        table.validate()?;
        let fs = ctx.fs.clone();
        fs.create_dir_all(&dir)
            .map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
        let mut manifest = Manifest::open(fs.as_ref(), &dir)?;
        check_log_damage(&info.name, crate::engine::flushed_seq(&manifest), damaged)?;
        // A family the table no longer has was deleted: its entry goes, or a re-added family
        // of that name would look for the deleted files, and the references it listed
        // would keep a split or merged parent's folder forever.
        let listed = manifest.families.len();
        manifest
            .families
            .retain(|name, _| table.family(name).is_some());
        if manifest.families.len() != listed {
            manifest.store(fs.as_ref(), &dir)?;
        }
        let mut families = table.families.clone();
        families.sort_by(|a, b| a.name.cmp(&b.name));
        let mut stores = Vec::with_capacity(families.len());
        let mut last_seq = 0;
        for family in families {
            let family_dir = dir.join(family_dir_name(&family.name));
            let committed = manifest
                .families
                .entry(family.name.clone())
                .or_default()
                .clone();
            remove_leftovers(&ctx, &family_dir, &committed.own_file_ids())?;
            let store = Store::open(ctx.clone(), family, family_dir, &committed.files)?;
            last_seq = last_seq.max(committed.flushed_seq);
            // A reference counts its source file's ids: a daughter's writes must come after
            // every cell it inherits.
            for f in store.files().iter() {
                last_seq = last_seq.max(f.reader.info().max_seq_id);
            }
            stores.push(Arc::new(store));
        }
        let now_ms = ctx.clock.now_ms();
        let mut memstore_bytes = 0;
        // Flushed or not, an edit in the log was applied: its nonce is remembered, as are
        // those of edits flushed earlier (the region's nonce file).
        let nonces = RecentNonces::load(
            fs.as_ref(),
            &dir,
            ctx.config.nonce_window_ms,
            ctx.config.nonces_per_region_max,
            now_ms,
        );
        for edit in edits.iter().filter(|e| e.region == info.name) {
            last_seq = last_seq.max(edit.seq_id);
            if let Some(nonce) = edit.nonce {
                nonces.record(nonce, edit.seq_id, now_ms);
            }
            for cell in &edit.cells {
                let Some(store) = stores.iter().find(|s| s.family().name == cell.family()) else {
                    continue;
                };
                let flushed = manifest
                    .families
                    .get(cell.family())
                    .map_or(0, |f| f.flushed_seq);
                if edit.seq_id > flushed {
                    memstore_bytes += store.add(cell.clone());
                }
            }
        }
        ctx.budget.add(memstore_bytes);
        if memstore_bytes > 0 {
            tracing::info!(region = %info.name, bytes = memstore_bytes, "replayed log edits");
        }
        let flushed_seq = crate::engine::flushed_seq(&manifest);
        let region = Arc::new(Region {
            info,
            table: Arc::new(table),
            dir,
            ctx,
            stores,
            mvcc: Mvcc::new(last_seq),
            row_locks: RowLocks::default(),
            updates: RwLock::new(()),
            flush_lock: Mutex::new(None),
            compaction_lock: Mutex::new(()),
            manifest: Mutex::new(manifest),
            poisoned: Mutex::new(None),
            skip_wal_seq_max: AtomicU64::new(0),
            writes_stopped: Mutex::new(None),
            closed: AtomicBool::new(false),
            memstore_bytes: AtomicU64::new(memstore_bytes),
            read_requests: AtomicU64::new(0),
            write_requests: AtomicU64::new(0),
            load: Arc::default(),
            last_major_ms: std::sync::atomic::AtomicI64::new(now_ms),
            nonces,
            recovered_unflushed: AtomicU64::new(0),
            on_recovered_flushed: Mutex::new(None),
        });
        // Not serving yet, so no write is under way: a barrier, as at a flush. Edits at or
        // below `flushed_seq` are in files: the log may let their segments go.
        region.ctx.wal.set_retained(
            &region.info.name,
            region.table.wal_retention_secs().is_some(),
        );
        region.log_barrier(last_seq);
        region.ctx.wal.note_flushed(&region.info.name, flushed_seq);
        Ok(region)
    }

    /// Bytes of memstore this region holds, released from the budget when it closes.
    pub(crate) fn release_budget(&self) {
        let bytes = self.memstore_bytes.swap(0, Ordering::AcqRel);
        self.ctx.budget.release(bytes);
    }
}

/// Fails if `region`, flushed up to `flushed_seq`, needs a damaged segment still in the
/// log; warns, per segment, what it may have lost from one set aside.
fn check_log_damage(region: &str, flushed_seq: u64, damaged: &[DamagedSegment]) -> Result<()> {
    for segment in damaged {
        let Some((span, verdict)) = first_needed(segment, region, flushed_seq) else {
            continue;
        };
        let hint = span
            .hint
            .as_ref()
            .map(|h| format!("{} seq {}", h.region, h.seq_id));
        match &segment.set_aside {
            Some(kept) => tracing::warn!(
                region,
                file = %segment.file.display(),
                kept = %kept.display(),
                offset = span.offset,
                bytes = span.len,
                cause = %span.reason,
                record_hint = hint.as_deref().unwrap_or("none"),
                "--skip-corrupt-wal: opened a region that may have lost edits: {verdict}"
            ),
            None => {
                return Err(Error::corruption(
                    FileKind::WalSegment,
                    &segment.file,
                    span.offset,
                    format!(
                        "{} bytes cannot be read ({}) and region {region} needs them: {verdict}; \
                         it cannot open without them (--skip-corrupt-wal opens it and logs \
                         the loss)",
                        span.len, span.reason
                    ),
                ))
            }
        }
    }
    Ok(())
}

/// Sets aside files in a family folder that the manifest does not name: the output of a
/// flush or compaction that crashed before its commit, or a replaced file whose deletion
/// was interrupted — or a file a damaged or rolled-back manifest forgot. Which it is
/// cannot be told from here, so nothing is deleted: each goes to the quarantine
/// (`<root>/quarantine/data/...`), logged, for an operator to purge. Only the staging
/// folder, which holds files the engine itself was writing and never published, is
/// deleted.
fn remove_leftovers(ctx: &Context, family_dir: &Path, committed: &[u64]) -> Result<()> {
    let keep: Vec<String> = committed.iter().map(|id| file::file_name(*id)).collect();
    let names = ctx
        .fs
        .list(family_dir)
        .map_err(|e| Error::io(format!("listing {}", family_dir.display()), e))?;
    for name in names {
        let path = family_dir.join(&name);
        if name == crate::store::STAGING_DIR {
            ctx.fs
                .remove_dir_all(&path)
                .map_err(|e| Error::io(format!("removing {}", path.display()), e))?;
        } else if !keep.contains(&name) {
            let root = data_root(family_dir)?;
            crate::quarantine::move_in(
                ctx.fs.as_ref(),
                root,
                &path,
                "no manifest names this file (an uncommitted flush or compaction output, \
                 a replaced file whose deletion was interrupted, or a file a damaged \
                 manifest lost)",
                ctx.clock.now_ms(),
            )?;
        }
    }
    Ok(())
}

/// The engine's root above `<root>/data/<namespace>/<table>/<region>/<family>`.
fn data_root(family_dir: &Path) -> Result<&Path> {
    let data = family_dir.ancestors().nth(4);
    match (data, data.and_then(Path::parent)) {
        (Some(data), Some(root)) if data.file_name().is_some_and(|n| n == "data") => Ok(root),
        _ => Err(Error::invalid(format!(
            "{} is not a family folder under <root>/data: cannot quarantine its leftovers",
            family_dir.display()
        ))),
    }
}
