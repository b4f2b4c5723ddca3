//! The database: the engine, `hbase:meta`, the catalog, and their lifecycle.

use crate::catalog::{Catalog, RegionEntry, TableEntry};
use crate::error::{from_storage, io};
use crate::lock::DataDirLock;
use crate::meta::record::{RegionRecord, RegionState};
use crate::meta::{self, Meta};
use crate::DbConfig;
use basalt_api::Result;
use basalt_storage::clock::{Clock, SystemClock};
use basalt_storage::fs::{FileSystem, LocalFs};
use basalt_storage::{Engine, Region, RegionInfo};
use basalt_types::{NamespaceDescriptor, TableDescriptor};
use parking_lot::{Mutex, RwLock};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Debug)]
pub struct Database {
    pub(crate) root: PathBuf,
    pub(crate) engine: Arc<Engine>,
    pub(crate) meta: Meta,
    pub(crate) catalog: RwLock<Catalog>,
    /// One catalog change (DDL, split, merge) at a time.
    pub(crate) ddl: Mutex<()>,
    pub(crate) config: DbConfig,
    pub(crate) clock: Arc<dyn Clock>,
    last_region_id: Mutex<u64>,
    metrics: crate::metrics::Metrics,
    checker: std::sync::OnceLock<crate::split::checker::Checker>,
    /// Bulk loads under way, per table.
    pub(crate) bulk_loads: Mutex<BTreeMap<basalt_types::TableName, usize>>,
    _lock: DataDirLock,
}

impl Database {
    /// Opens (or creates) the database in `root`: takes the folder's lock, replays the
    /// log, loads the catalog, removes what interrupted changes left, opens the regions of
    /// enabled tables.
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
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        let engine =
            Engine::open(fs, root, config.storage.clone(), clock.clone()).map_err(from_storage)?;
        let meta_region = engine
            .open_region(
                RegionInfo::whole(meta::META_REGION),
                meta::meta_descriptor(),
            )
            .map_err(from_storage)?;
        let meta = Meta::new(meta_region);
        let loaded = meta.load()?;
        let db = Arc::new(Database {
            root: root.to_path_buf(),
            engine,
            meta,
            catalog: RwLock::new(Catalog::default()),
            ddl: Mutex::new(()),
            config,
            clock,
            last_region_id: Mutex::new(0),
            metrics: crate::metrics::Metrics::default(),
            checker: std::sync::OnceLock::new(),
            bulk_loads: Mutex::new(BTreeMap::new()),
            _lock: lock,
        });
        db.recover(loaded)?;
        let interval = std::time::Duration::from_millis(db.config.split_check_interval_ms);
        let checker = crate::split::checker::Checker::start(Arc::downgrade(&db), interval)
            .map_err(|e| io(format!("cannot start the split checker: {e}")))?;
        db.checker.get_or_init(|| checker);
        Ok(db)
    }

    fn recover(&self, loaded: meta::Loaded) -> Result<()> {
        let mut changes = Vec::new();
        let mut namespaces = loaded.namespaces;
        for name in [
            basalt_types::name::DEFAULT_NAMESPACE,
            basalt_types::name::SYSTEM_NAMESPACE,
        ] {
            if !namespaces.contains_key(name) {
                let ns =
                    NamespaceDescriptor::new(name).expect("built-in namespace names are valid");
                changes.push(meta::put_namespace(&ns));
                namespaces.insert(name.to_string(), ns);
            }
        }
        // Ids must stay unique even if the clock is behind the last run's: a daughter with
        // its parent's start key and id would take the parent's folder and meta row.
        let highest_id = loaded.regions.iter().map(|r| r.region_id).max();
        *self.last_region_id.lock() = highest_id.unwrap_or(0);
        let mut tables: BTreeMap<_, TableEntry> = BTreeMap::new();
        for (name, (descriptor, enabled)) in loaded.tables {
            let entry = TableEntry {
                descriptor: Arc::new(descriptor),
                enabled,
                regions: BTreeMap::new(),
                retired: Vec::new(),
            };
            tables.insert(name, entry);
        }
        for record in loaded.regions {
            let Some(table) = tables.get_mut(&record.table) else {
                // A region of a table whose creation never committed, or whose drop did.
                changes.push(meta::delete_region(&record));
                continue;
            };
            if record.is_serving() {
                let mut record = record;
                if record.state == RegionState::Splitting {
                    // The split did not commit: the region keeps serving.
                    record.state = RegionState::Open;
                    changes.push(meta::put_region(&record));
                }
                table.regions.insert(
                    record.start_key.clone(),
                    RegionEntry {
                        record,
                        region: None,
                    },
                );
            } else {
                table.retired.push(record);
            }
        }
        self.meta.commit(changes)?;
        for retired in tables.values().flat_map(|t| t.retired.iter()) {
            self.retire_in_log(retired);
        }
        self.remove_unknown_folders(&tables)?;
        for entry in tables.values_mut().filter(|t| t.enabled) {
            for region in entry.regions.values_mut() {
                region.region = Some(self.open_region(&region.record, &entry.descriptor)?);
            }
        }
        self.discard_unclaimed_edits(&tables)?;
        // hbase:meta is a table like the others for readers.
        let mut meta_record = RegionRecord::new(
            meta::meta_table_name(),
            0,
            bytes::Bytes::new(),
            bytes::Bytes::new(),
            RegionState::Open,
        );
        meta_record.encoded_name = meta::META_REGION.to_string();
        let meta_entry = RegionEntry {
            record: meta_record,
            region: Some(self.meta.region().clone()),
        };
        tables.insert(
            meta::meta_table_name(),
            TableEntry {
                descriptor: Arc::new(meta::meta_descriptor()),
                enabled: true,
                regions: BTreeMap::from([(bytes::Bytes::new(), meta_entry)]),
                retired: Vec::new(),
            },
        );
        let mut catalog = self.catalog.write();
        catalog.namespaces = namespaces;
        catalog.tables = tables;
        Ok(())
    }

    /// Drops the replayed log edits of regions that will never open: those of dropped
    /// tables and uncommitted creates, and split or merged parents (flushed before their
    /// split or merge committed). Otherwise the segments holding them would stay, and be
    /// replayed into memory, at every open. Regions of disabled tables keep theirs for
    /// the enable.
    fn discard_unclaimed_edits(
        &self,
        tables: &BTreeMap<basalt_types::TableName, TableEntry>,
    ) -> Result<()> {
        let waiting: HashSet<&str> = tables
            .values()
            .filter(|t| !t.enabled)
            .flat_map(|t| t.regions.values().map(|e| e.record.encoded_name.as_str()))
            .collect();
        for region in self.engine.regions_with_pending_edits() {
            if !waiting.contains(region.as_str()) {
                self.engine.discard_edits(&region).map_err(from_storage)?;
            }
        }
        Ok(())
    }

    /// Deletes region and table folders the catalog does not name: the remains of creates,
    /// drops, splits or merges interrupted before or after their commit.
    fn remove_unknown_folders(
        &self,
        tables: &BTreeMap<basalt_types::TableName, TableEntry>,
    ) -> Result<()> {
        let fs = LocalFs;
        let data = self.root.join("data");
        let known: HashSet<PathBuf> = tables
            .values()
            .flat_map(|t| {
                let records = t
                    .regions
                    .values()
                    .map(|e| &e.record)
                    .chain(t.retired.iter());
                records
                    .map(|r| self.engine.region_dir(&t.descriptor, &r.encoded_name))
                    .collect::<Vec<_>>()
            })
            .collect();
        let list = |dir: &Path| {
            fs.list(dir)
                .map_err(|e| io(format!("cannot list {}: {e}", dir.display())))
        };
        for namespace in list(&data)? {
            for table in list(&data.join(&namespace))? {
                let table_dir = data.join(&namespace).join(&table);
                if namespace == "hbase" && table == "meta" {
                    continue;
                }
                // Region folders are named by hex digits; a dot-file such as `.tableinfo`
                // is the table's own.
                for region in list(&table_dir)?
                    .into_iter()
                    .filter(|n| !n.starts_with('.'))
                {
                    let dir = table_dir.join(&region);
                    if !known.contains(&dir) {
                        tracing::info!(folder = %dir.display(), "removing a region folder the catalog does not name");
                        fs.remove_dir_all(&dir)
                            .map_err(|e| io(format!("cannot remove {}: {e}", dir.display())))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Opens a region of `table` on the engine (and brings its `.regioninfo` and the
    /// table's `.tableinfo` up to date).
    pub(crate) fn open_region(
        &self,
        record: &RegionRecord,
        table: &TableDescriptor,
    ) -> Result<Arc<Region>> {
        let info = RegionInfo {
            name: record.encoded_name.clone(),
            start_key: record.start_key.clone(),
            end_key: record.end_key.clone(),
        };
        let region = self
            .engine
            .open_region(info, table.clone())
            .map_err(from_storage)?;
        meta::folder_info::ensure_region_info(&self.region_dir(table, record), record, table);
        Ok(region)
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
