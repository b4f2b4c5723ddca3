//! The database: the engine, `hbase:meta`, the catalog, and their lifecycle (start-up
//! recovery is in [`crate::recovery`]).

use crate::catalog::{Catalog, RegionEntry};
use crate::error::{from_storage, io};
use crate::health::OpenFailure;
use crate::lock::DataDirLock;
use crate::meta::record::RegionRecord;
use crate::meta::{self, Meta};
use crate::DbConfig;
use basalt_api::Result;
use basalt_storage::clock::{Clock, SystemClock};
use basalt_storage::fs::{FileSystem, LocalFs};
use basalt_storage::{Engine, Region, RegionInfo};
use basalt_types::TableDescriptor;
use parking_lot::{Mutex, RwLock};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Locks that serialise opens of the same region (a region maps to one by its name).
const OPEN_STRIPES: usize = 64;

#[derive(Debug)]
pub struct Database {
    pub(crate) root: PathBuf,
    pub(crate) engine: Arc<Engine>,
    pub(crate) meta: Meta,
    pub(crate) catalog: RwLock<Catalog>,
    /// One catalog change (DDL, split, merge, close) at a time, held for writing; a
    /// region server's opens hold it for reading, so that recovering many regions opens
    /// them side by side (each region's own open is serialised by [`Database::open_stripe`]).
    pub(crate) ddl: RwLock<()>,
    /// Opens of one region (by its name's stripe) one at a time.
    open_stripes: [Mutex<()>; OPEN_STRIPES],
    pub(crate) config: DbConfig,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) last_region_id: Mutex<u64>,
    metrics: crate::metrics::Metrics,
    checker: std::sync::OnceLock<crate::split::checker::Checker>,
    /// Bulk loads under way, per table.
    pub(crate) bulk_loads: Mutex<BTreeMap<basalt_types::TableName, usize>>,
    /// Region rows of tables meta does not define, found at open: kept in meta, reported.
    pub(crate) orphan_rows: Mutex<Vec<RegionRecord>>,
    /// A region server's database (see [`crate::host`]): no catalog of its own, only the
    /// regions the master opened here.
    pub(crate) hosting: bool,
    /// How regions here report their server: `host,port,startcode` on a region server.
    pub(crate) server_name: String,
    /// `balance_switch`: one process has nothing to balance, but the switch is kept (and
    /// `balancer` answers it) as HBase's master keeps it.
    pub(crate) balancer_on: std::sync::atomic::AtomicBool,
    /// The grants (see [`crate::acl`]), read at their first use.
    pub(crate) grants: Mutex<Option<basalt_api::Grants>>,
    /// Answers pass it: a region server's lease must be live (see [`crate::lease_gate`]).
    pub(crate) gate: crate::lease_gate::Gate,
    /// Results the gate refused to send, for the client's retry (see [`crate::lease_gate`]).
    pub(crate) withheld: crate::lease_gate::Withheld,
    _lock: Option<DataDirLock>,
}

/// A folder `basalt standalone` has served as a one-process cluster keeps its catalog in
/// `coordinator/`, not in `hbase:meta`: opened here it would look like a folder without a
/// catalog, every table's files unknown. It is refused, naming the way to open it.
fn refuse_coordinated(fs: &dyn FileSystem, root: &Path) -> Result<()> {
    use basalt_storage::engine::folder_version::{read, COORDINATED};
    if read(fs, root).map_err(from_storage)? == Some(COORDINATED) {
        return Err(basalt_api::ApiError::invalid(format!(
            "{} is a data folder of format {COORDINATED}: its catalog is in {}, kept by \
             `basalt standalone` (a master and a region server in one process); open it \
             with `basalt standalone --data-dir`, or with the tools' --data-dir, which run \
             it in process",
            root.display(),
            root.join("coordinator").display()
        )));
    }
    Ok(())
}

impl Database {
    /// Opens (or creates) the database in `root`: takes the folder's lock, replays the
    /// log, opens `hbase:meta` and loads the whole catalog, and only then sets aside what
    /// the catalog does not name (see [`crate::recovery`]) and opens the regions of enabled
    /// tables. A region that fails to open is FAILED_OPEN and the rest serve; when meta
    /// itself fails, the database still opens (so that its state can be inspected), serves
    /// no table and changes nothing on disk.
    pub fn open(root: &Path, config: DbConfig) -> Result<Arc<Database>> {
        Self::open_on(Arc::new(LocalFs), root, config)
    }

    /// As [`Database::open`], with the engine's files going through `fs` (tests inject
    /// failures and full disks with [`basalt_storage::fs::FaultyFs`]). The folder's lock
    /// file is always on the local disk.
    pub fn open_on(
        fs: Arc<dyn FileSystem>,
        root: &Path,
        config: DbConfig,
    ) -> Result<Arc<Database>> {
        std::fs::create_dir_all(root)
            .map_err(|e| io(format!("cannot create {}: {e}", root.display())))?;
        let lock = DataDirLock::acquire(root)?;
        refuse_coordinated(fs.as_ref(), root)?;
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        let engine =
            Engine::open(fs, root, config.storage.clone(), clock.clone()).map_err(from_storage)?;
        let (meta, loaded) = match crate::recovery::open_meta(&engine) {
            Ok((region, loaded)) => (Meta::new(region), Ok(loaded)),
            Err(failure) => (Meta::failed(failure.clone()), Err(failure)),
        };
        let db = Arc::new(Database {
            root: root.to_path_buf(),
            engine,
            meta,
            catalog: RwLock::new(Catalog::default()),
            ddl: RwLock::new(()),
            open_stripes: std::array::from_fn(|_| Mutex::new(())),
            config,
            clock,
            last_region_id: Mutex::new(0),
            metrics: crate::metrics::Metrics::default(),
            checker: std::sync::OnceLock::new(),
            bulk_loads: Mutex::new(BTreeMap::new()),
            orphan_rows: Mutex::new(Vec::new()),
            hosting: false,
            server_name: meta::SERVER_NAME.to_string(),
            balancer_on: std::sync::atomic::AtomicBool::new(true),
            grants: Mutex::new(None),
            gate: crate::lease_gate::Gate::default(),
            withheld: crate::lease_gate::Withheld::default(),
            _lock: Some(lock),
        });
        match loaded {
            Ok(loaded) => db.recover(loaded)?,
            Err(failure) => db.recover_without_meta(failure),
        }
        let interval = std::time::Duration::from_millis(db.config.split_check_interval_ms);
        let checker = crate::split::checker::Checker::start(Arc::downgrade(&db), interval)
            .map_err(|e| io(format!("cannot start the split checker: {e}")))?;
        db.checker.get_or_init(|| checker);
        Ok(db)
    }

    /// Opens the database of a region server (see [`crate::host`]): the engine over the
    /// shared `root`, its log in `wal_dir`, and no catalog, no meta, no split checker; the
    /// catalog holds only the regions [`Database::host_open`] opens.
    pub fn open_host(
        fs: Arc<dyn FileSystem>,
        root: &Path,
        wal_dir: &Path,
        server_name: &str,
        config: DbConfig,
    ) -> Result<Arc<Database>> {
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        let engine =
            Engine::open_with_log(fs, root, wal_dir, config.storage.clone(), clock.clone())
                .map_err(from_storage)?;
        let failure = OpenFailure::new(
            &meta::meta_record(),
            None,
            "a region server holds no catalog: ask the master".to_string(),
        );
        Ok(Arc::new(Database {
            root: root.to_path_buf(),
            engine,
            meta: Meta::failed(Arc::new(failure)),
            catalog: RwLock::new(Catalog::hosting()),
            ddl: RwLock::new(()),
            open_stripes: std::array::from_fn(|_| Mutex::new(())),
            config,
            clock,
            last_region_id: Mutex::new(0),
            metrics: crate::metrics::Metrics::default(),
            checker: std::sync::OnceLock::new(),
            bulk_loads: Mutex::new(BTreeMap::new()),
            orphan_rows: Mutex::new(Vec::new()),
            hosting: true,
            server_name: server_name.to_string(),
            balancer_on: std::sync::atomic::AtomicBool::new(true),
            grants: Mutex::new(None),
            gate: crate::lease_gate::Gate::default(),
            withheld: crate::lease_gate::Withheld::default(),
            _lock: None,
        }))
    }

    /// Whether this is a region server's database.
    pub fn is_host(&self) -> bool {
        self.hosting
    }

    /// The server name regions here report (`host,port,startcode`).
    pub fn server_name(&self) -> &str {
        &self.server_name
    }

    /// Opens `record`'s region, or says why it cannot be opened (FAILED_OPEN), logged.
    /// The lock serialising opens of region `encoded`.
    pub(crate) fn open_stripe(&self, encoded: &str) -> &Mutex<()> {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        encoded.hash(&mut hasher);
        &self.open_stripes[(hasher.finish() as usize) % OPEN_STRIPES]
    }

    pub(crate) fn try_open_region(
        &self,
        record: &RegionRecord,
        table: &TableDescriptor,
    ) -> std::result::Result<Arc<Region>, Arc<OpenFailure>> {
        let info = RegionInfo {
            name: record.encoded_name.clone(),
            start_key: record.start_key.clone(),
            end_key: record.end_key.clone(),
        };
        let region = self.engine.open_region(info, table.clone()).map_err(|e| {
            let failure = OpenFailure::of_storage(record, &e);
            tracing::error!(region = %failure.region_name, file = ?failure.file, error = %e,
                "region FAILED_OPEN: its requests fail until it is opened again; the other regions serve");
            Arc::new(failure)
        })?;
        // The catalog's fallback files: in the local folder, or a region server's on the
        // shared store (what `basalt hbck rebuild-meta` reads if the catalog is lost).
        let dir = self.region_dir(table, record);
        if self.hosting {
            let fs = self.engine.context().fs.clone();
            meta::folder_info::ensure_region_info_on(fs.as_ref(), &dir, record, table);
        } else {
            meta::folder_info::ensure_region_info(&dir, record, table);
        }
        Ok(region)
    }

    /// Opens the records' regions (of one enabled table) and files them by start key; a
    /// region that fails to open is filed as FAILED_OPEN.
    pub(crate) fn open_regions(
        &self,
        descriptor: &TableDescriptor,
        records: Vec<RegionRecord>,
    ) -> BTreeMap<bytes::Bytes, RegionEntry> {
        records
            .into_iter()
            .map(|record| {
                let opened = self.try_open_region(&record, descriptor);
                (
                    record.start_key.clone(),
                    RegionEntry::opened(record, opened),
                )
            })
            .collect()
    }

    /// The folder of a table's regions.
    pub(crate) fn table_dir(&self, table: &basalt_types::TableName) -> PathBuf {
        self.root
            .join("data")
            .join(table.namespace())
            .join(table.qualifier())
    }

    /// The folder of one region.
    pub(crate) fn region_dir(&self, table: &TableDescriptor, record: &RegionRecord) -> PathBuf {
        self.engine.region_dir(table, &record.encoded_name)
    }

    pub(crate) fn close_region(&self, record: &RegionRecord) -> Result<()> {
        self.engine
            .close_region(&record.encoded_name)
            .map_err(from_storage)
    }

    /// A retired region (split or merged away) never replays its log edits again: let the
    /// log drop the segments only it still needed.
    pub(crate) fn retire_in_log(&self, record: &RegionRecord) {
        if let Err(e) = self
            .engine
            .context()
            .wal
            .mark_flushed(&record.encoded_name, u64::MAX)
        {
            tracing::warn!(region = %record.encoded_name, error = %e, "could not release a retired region's log");
        }
    }

    /// A fresh region id: the time in ms, above every id handed out before.
    pub(crate) fn next_region_id(&self) -> u64 {
        let mut last = self.last_region_id.lock();
        let now = u64::try_from(self.clock.now_ms()).unwrap_or(0);
        *last = now.max(*last + 1);
        *last
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// Regions that failed to open, the quarantine and catalog disagreements.
    pub fn health(&self) -> Result<basalt_api::ClusterHealth> {
        crate::health::check(self)
    }

    /// Request counts and latencies of the tables of this database.
    pub fn metrics(&self) -> &crate::metrics::Metrics {
        &self.metrics
    }

    /// Stops background work, flushes every region and closes the engine.
    pub fn close(&self) -> Result<()> {
        if let Some(checker) = self.checker.get() {
            checker.stop();
        }
        self.engine.close().map_err(from_storage)
    }
}
