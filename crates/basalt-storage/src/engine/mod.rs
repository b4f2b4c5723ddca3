//! The engine: one write-ahead log, one block cache and one memstore budget shared by the
//! regions it hosts, with background threads that flush and compact them.
//!
//! ```text
//! <root>/VERSION                                   the folder's layout version
//! <root>/wal/                                      the log, shared by every region
//! <root>/wal/corrupt/                              damaged log bytes, kept for an operator
//! <root>/data/<namespace>/<table>/<region>/        a region: MANIFEST (twice) and a folder per family
//! ```
//!
//! Damage in the log costs only the regions that need the damaged bytes: they fail to open
//! (see `wal_damage`), the others open with every readable edit.
//!
//! # Layout
//! - [`folder_version`]: `<root>/VERSION`, checked before anything else is read.
//! - [`jobs`]: the queue of flushes and compactions regions ask for.
//! - [`workers`]: the threads that carry them out.
//! - `backoff`: when to try a job again after a full disk.
//! - `wal_damage`: damaged log segments, from replay to each region's open.

mod backoff;
pub mod folder_version;
pub mod jobs;
mod wal_damage;
mod workers;

pub(crate) use wal_damage::flushed_seq;

use crate::block_cache::BlockCache;
use crate::clock::Clock;
use crate::context::Context;
use crate::fs::FileSystem;
use crate::region::budget::MemstoreBudget;
use crate::region::{Region, RegionInfo};
use crate::wal::{DamagedSegment, RecoveryMode, Wal, WalConfig, WalEdit};
use crate::{Error, Result, StorageConfig};
use basalt_types::TableDescriptor;
use jobs::Jobs;
use parking_lot::{Mutex, RwLock};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;

pub(crate) type Registry = Arc<RwLock<HashMap<String, Arc<Region>>>>;

#[derive(Debug)]
pub struct Engine {
    root: PathBuf,
    ctx: Context,
    regions: Registry,
    /// Replayed log edits of regions not opened yet.
    pending_edits: Mutex<HashMap<String, Vec<WalEdit>>>,
    /// Damaged log segments region opens judge.
    wal_damage: Mutex<wal_damage::WalDamage>,
    /// Other servers' logs read already, by folder name ([`Engine::adopt_log`] reads
    /// each once).
    adopted: Mutex<std::collections::HashSet<PathBuf>>,
    /// `(log, region)`: edits taken from the region's recovered edits of that log
    /// ([`Engine::adopt_recovered`]), so reading the whole log later skips them.
    recovered: Mutex<std::collections::HashSet<(PathBuf, String)>>,
    /// Regions with pending edits from another server's log: flushed as they open, before
    /// they serve, since this engine's own log does not hold those edits.
    foreign: Mutex<std::collections::HashSet<String>>,
    /// Regions opened with such edits that a full disk kept from being flushed: they serve
    /// from memory, and the other server's log is still needed for them.
    foreign_unflushed: Mutex<std::collections::HashSet<String>>,
    workers: Mutex<Vec<JoinHandle<()>>>,
    /// Set when a close left some region's edits only in the log (a full disk).
    left_in_log: std::sync::atomic::AtomicBool,
}

impl Engine {
    /// Opens the engine's folder: checks its version, replays the log and starts the
    /// background workers.
    pub fn open(
        fs: Arc<dyn FileSystem>,
        root: &Path,
        config: StorageConfig,
        clock: Arc<dyn Clock>,
    ) -> Result<Arc<Engine>> {
        Self::open_with_log(fs, root, &root.join("wal"), config, clock)
    }

    /// As [`Engine::open`], with the log in `wal_dir` instead of `<root>/wal`: a region
    /// server of a cluster keeps its own log beside the shared data
    /// (`<root>/wal/<server name>`), while regions live in `<root>/data` for any server.
    pub fn open_with_log(
        fs: Arc<dyn FileSystem>,
        root: &Path,
        wal_dir: &Path,
        config: StorageConfig,
        clock: Arc<dyn Clock>,
    ) -> Result<Arc<Engine>> {
        fs.create_dir_all(root)
            .map_err(|e| Error::io(format!("creating {}", root.display()), e))?;
        folder_version::check_or_create(fs.as_ref(), root)?;
        let wal_config = WalConfig::from(&config);
        let mode = match config.wal_skip_corrupt {
            true => RecoveryMode::SkipCorrupt,
            false => RecoveryMode::FailNeedingRegions,
        };
        let (wal, recovered) = Wal::recover(fs.clone(), wal_dir.to_path_buf(), wal_config, mode)?;
        let wal_damage = wal_damage::settle(fs.as_ref(), root, wal.dir(), recovered.damaged)?;
        let edits = recovered.edits;
        let mut pending_edits: HashMap<String, Vec<WalEdit>> = HashMap::new();
        for edit in edits {
            pending_edits
                .entry(edit.region.clone())
                .or_default()
                .push(edit);
        }
        let ctx = Context {
            fs,
            wal,
            cache: Arc::new(BlockCache::new(config.block_cache_bytes)),
            clock,
            budget: Arc::new(MemstoreBudget::new(config.global_memstore_limit_bytes)),
            jobs: Arc::new(Jobs::default()),
            config,
        };
        let regions: Registry = Arc::default();
        let workers = workers::spawn(&ctx, &regions)?;
        Ok(Arc::new(Engine {
            root: root.to_path_buf(),
            ctx,
            regions,
            pending_edits: Mutex::new(pending_edits),
            wal_damage: Mutex::new(wal_damage),
            adopted: Mutex::default(),
            recovered: Mutex::default(),
            foreign: Mutex::default(),
            foreign_unflushed: Mutex::default(),
            workers: Mutex::new(workers),
            left_in_log: std::sync::atomic::AtomicBool::new(false),
        }))
    }

    /// Takes over another server's log (a dead incarnation's `wal/<server>` folder): its
    /// edits wait, like this engine's own log's, for the regions opened here afterwards,
    /// each applying those above its flushed sequence ids (so reading a log twice changes
    /// nothing). Call it before those regions open. Damage is judged as in this engine's
    /// own log: a torn tail is cut (its bytes kept), a damaged segment no region needs is
    /// moved to that folder's `corrupt/`, and one a region needs fails that region's open,
    /// naming the segment (or, with `wal_skip_corrupt`, is set aside and the region logs
    /// what it may have lost). Returns how many edits it held.
    ///
    /// A log is read once per engine, known by its folder's name (the server's): asking
    /// again (every region of a dead server that opens here names its log), from `wal/`
    /// or from the archive, returns 0 at once.
    pub fn adopt_log(&self, dir: &Path) -> Result<usize> {
        // A log is known by its folder's name (its server's): the same log read from
        // `wal/` and, once archived, from `oldWALs/` is read once.
        let name = dir
            .file_name()
            .map_or_else(|| dir.to_path_buf(), PathBuf::from);
        let mut adopted = self.adopted.lock();
        if adopted.contains(&name) {
            return Ok(0);
        }
        let count = self.read_log(dir)?;
        adopted.insert(name);
        Ok(count)
    }

    /// Takes the edits that the split of dead server `server`'s log wrote for region
    /// `region` (folder `region_dir`), instead of reading the whole log. False when there
    /// are none to take: no split wrote them, or this engine read the whole log already
    /// (it holds them then). A damaged file is an error; the log is still there to read.
    pub fn adopt_recovered(&self, region_dir: &Path, region: &str, server: &str) -> Result<bool> {
        let key = (PathBuf::from(server), region.to_string());
        let taken = |engine: &Self| {
            let adopted = engine.adopted.lock().contains(Path::new(server));
            (adopted, engine.recovered.lock().contains(&key))
        };
        match taken(self) {
            (true, _) => return Ok(false),
            (false, true) => return Ok(true),
            (false, false) => {}
        }
        // Read outside the locks: a dead server's regions open here in parallel.
        let Some(edits) = crate::wal::recovered::read(self.ctx.fs.as_ref(), region_dir, server)?
        else {
            return Ok(false);
        };
        // Under `adopted`, as `adopt_log`: the whole log was read meanwhile, or not at all.
        let adopted = self.adopted.lock();
        if adopted.contains(Path::new(server)) {
            return Ok(false);
        }
        if !self.recovered.lock().insert(key) {
            return Ok(true);
        }
        let edits: Vec<WalEdit> = edits.into_iter().filter(|e| e.region == region).collect();
        if !edits.is_empty() {
            self.foreign.lock().insert(region.to_string());
            self.pending_edits
                .lock()
                .entry(region.to_string())
                .or_default()
                .extend(edits);
        }
        drop(adopted);
        Ok(true)
    }

    fn read_log(&self, dir: &Path) -> Result<usize> {
        let mode = match self.ctx.config.wal_skip_corrupt {
            true => crate::wal::RecoveryMode::SkipCorrupt,
            false => crate::wal::RecoveryMode::FailNeedingRegions,
        };
        let fs = self.ctx.fs.as_ref();
        let replayed = crate::wal::replay(fs, dir, mode)?;
        let damage = wal_damage::settle(fs, &self.root, dir, replayed.damaged)?;
        self.wal_damage.lock().absorb(damage);
        let count = replayed.edits.len();
        let log = dir.file_name().map(PathBuf::from).unwrap_or_default();
        let recovered = self.recovered.lock();
        let taken: std::collections::HashSet<&str> = recovered
            .iter()
            .filter(|(from, _)| *from == log)
            .map(|(_, region)| region.as_str())
            .collect();
        let mut pending = self.pending_edits.lock();
        let mut foreign = self.foreign.lock();
        for edit in replayed.edits {
            if taken.contains(edit.region.as_str()) {
                // Taken from the region's recovered edits already.
                continue;
            }
            if !foreign.contains(&edit.region) {
                foreign.insert(edit.region.clone());
            }
            pending.entry(edit.region.clone()).or_default().push(edit);
        }
        Ok(count)
    }

    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The folder of a region of `table`.
    pub fn region_dir(&self, table: &TableDescriptor, region: &str) -> PathBuf {
        self.root
            .join("data")
            .join(table.name.namespace())
            .join(table.name.qualifier())
            .join(region)
    }

    /// Opens a region (creating it when new), replaying its log edits. Fails, naming the
    /// log segment, offset and cause, if the region needs edits from damaged log bytes;
    /// its replayed edits are then kept for a later attempt. Edits replayed from another
    /// server's log ([`Engine::adopt_log`]) are not in this engine's log: by default the
    /// region serves them from memory at once, the flusher writes them out next, and
    /// [`Engine::take_unflushed_foreign`] says that other log is still needed meanwhile
    /// ([`Region::holds_recovered_edits`] says when it no longer is). With
    /// `flush_recovered_before_serving` the region flushes them before it serves and fails
    /// to open if that flush fails — except for lack of space: then it serves them from
    /// memory, the other log still needed, as above.
    pub fn open_region(&self, info: RegionInfo, table: TableDescriptor) -> Result<Arc<Region>> {
        if self.regions.read().contains_key(&info.name) {
            return Err(Error::invalid(format!(
                "region {} is already open",
                info.name
            )));
        }
        let dir = self.region_dir(&table, &info.name);
        let edits = self
            .pending_edits
            .lock()
            .remove(&info.name)
            .unwrap_or_default();
        let name = info.name.clone();
        let foreign = self.foreign.lock().remove(&name);
        let damage = self.wal_damage.lock().for_region(&name);
        let started = std::time::Instant::now();
        let serve_first = foreign && !self.ctx.config.flush_recovered_before_serving;
        let opened = Region::open(self.ctx.clone(), info, table, dir, &edits, &damage)
            .and_then(|region| match foreign {
                // Serves now; the flusher writes the replayed edits out right after, and
                // until then the other log stays named for this region.
                true if serve_first => {
                    if region.hold_recovered_edits() {
                        self.foreign_unflushed.lock().insert(name.clone());
                    }
                    Ok(region)
                }
                true => match region.flush() {
                    Ok(_) => {
                        tracing::info!(region = %name, edits = edits.len(),
                            took_ms = started.elapsed().as_millis() as u64,
                            "opened with another server's edits, replayed and flushed");
                        Ok(region)
                    }
                    Err(e) if e.is_no_space() => {
                        tracing::warn!(region = %name, error = %e,
                            "edits replayed from another server's log stay in memory until a flush succeeds; that log is kept");
                        region.hold_recovered_edits();
                        self.foreign_unflushed.lock().insert(name.clone());
                        Ok(region)
                    }
                    Err(e) => {
                        region.release_budget();
                        Err(e)
                    }
                },
                false => Ok(region),
            });
        match opened {
            Ok(region) => {
                self.regions.write().insert(name.clone(), region.clone());
                if region.holds_recovered_edits() {
                    tracing::info!(region = %name, edits = edits.len(),
                        took_ms = started.elapsed().as_millis() as u64,
                        "opened with another server's edits replayed; serving, flushing them next");
                    self.ctx.jobs.request_flush(&name);
                }
                Ok(region)
            }
            Err(e) => {
                // A region that failed to open keeps its edits for the next attempt.
                if !edits.is_empty() {
                    self.pending_edits.lock().insert(name.clone(), edits);
                }
                if foreign {
                    self.foreign.lock().insert(name);
                }
                Err(e)
            }
        }
    }

    /// Whether region `name` opened holding edits of another server's log it could not
    /// flush yet (a full disk): that log must be kept for it. Asking clears the mark.
    pub fn take_unflushed_foreign(&self, name: &str) -> bool {
        self.foreign_unflushed.lock().remove(name)
    }

    /// Damaged log segments still in the log folder (or, after `--skip-corrupt-wal`, set
    /// aside this start), for regions to judge at open and for operators' reports.
    pub fn wal_damage(&self) -> Vec<DamagedSegment> {
        self.wal_damage.lock().segments.clone()
    }

    /// Regions whose replayed log edits no open has claimed.
    pub fn regions_with_pending_edits(&self) -> Vec<String> {
        self.pending_edits.lock().keys().cloned().collect()
    }

    /// Forgets the replayed log edits of a region that will never open again (its data is
    /// in files, or gone with its table), so that the segments holding them can be deleted.
    pub fn discard_edits(&self, region: &str) -> Result<()> {
        let edits = self.pending_edits.lock().remove(region);
        match edits.iter().flatten().map(|e| e.seq_id).max() {
            Some(last) => self.ctx.wal.mark_flushed(region, last),
            None => Ok(()),
        }
    }

    pub fn region(&self, name: &str) -> Option<Arc<Region>> {
        self.regions.read().get(name).cloned()
    }

    /// Flushes and closes one region.
    pub fn close_region(&self, name: &str) -> Result<()> {
        let region = self.regions.write().remove(name);
        match region {
            Some(region) => {
                let closed = region.close();
                region.release_budget();
                closed
            }
            None => Ok(()),
        }
    }

    /// Whether [`Engine::close`] left some region's edits only in the log (its flush
    /// failed on a full disk): the log is then needed at the next start.
    pub fn left_edits_in_log(&self) -> bool {
        self.left_in_log.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Flushes and closes one region, or, when its flush fails, leaves it open and
    /// serving (see [`Region::close_or_stay_open`]) and returns the error.
    pub fn close_region_or_keep(&self, name: &str) -> Result<()> {
        let Some(region) = self.region(name) else {
            return Ok(());
        };
        region.close_or_stay_open()?;
        if let Some(region) = self.regions.write().remove(name) {
            region.release_budget();
        }
        Ok(())
    }

    /// Stops the workers, flushes and closes every region, and closes the log.
    ///
    /// On a full disk the regions that cannot be flushed leave their edits in the log,
    /// replayed at the next open: the close still succeeds if nothing acknowledged is lost
    /// (see [`Region::close_for_shutdown`]), and logs what stayed in the log.
    pub fn close(&self) -> Result<()> {
        self.stop_workers();
        let regions: Vec<Arc<Region>> = self.regions.write().drain().map(|(_, r)| r).collect();
        let mut first_error = None;
        let (mut kept_regions, mut kept_bytes, mut kept_cells) = (0, 0, 0);
        for region in regions {
            match region.close_for_shutdown() {
                Ok(()) if region.memstore_size_bytes() > 0 => {
                    kept_regions += 1;
                    kept_bytes += region.memstore_size_bytes();
                    kept_cells += region.memstore_cell_count();
                }
                Ok(()) => {}
                Err(e) => {
                    tracing::error!(region = %region.info().name, error = %e, "closing region failed");
                    first_error.get_or_insert(e);
                }
            }
            region.release_budget();
        }
        if let Err(e) = self.ctx.wal.close() {
            first_error.get_or_insert(e);
        }
        if kept_regions > 0 {
            self.left_in_log
                .store(true, std::sync::atomic::Ordering::Release);
        }
        if kept_regions > 0 && first_error.is_none() {
            tracing::warn!(
                regions = kept_regions,
                memstore_bytes = kept_bytes,
                cells = kept_cells,
                "closed without flushing every region (a full disk): their edits stay in the \
                 write-ahead log and are replayed at the next start"
            );
        }
        first_error.map_or(Ok(()), Err)
    }

    fn stop_workers(&self) {
        self.ctx.jobs.stop();
        for worker in self.workers.lock().drain(..) {
            if worker.join().is_err() {
                tracing::error!("a background worker panicked");
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop_workers();
    }
}
