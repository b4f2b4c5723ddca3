//! Everything the pages and metric endpoints show of one server, read from the database in
//! one pass ([`Snapshot::read`]), or from a region server's report over RPC
//! ([`crate::remote::region_server`]).
//!
//! Counters come from the database's request metrics and the engine; sizes and region
//! counts from the same region reports `list_regions` gives (HBase's `RegionReport`);
//! failed regions, the quarantine and catalog disagreements from the database's health.
//! Reading takes the catalog's read lock briefly per table: call it off the async threads.

use crate::WebError;
use basalt_api::{ClusterHealth, Connection, RegionReport};
use basalt_db::metrics::OpSnapshot;
use basalt_db::Database;
use basalt_storage::block_cache::BlockCacheStats;
use basalt_storage::engine::jobs::JobStats;
use basalt_types::TableName;

/// One table's line on the home page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSummary {
    pub name: TableName,
    pub enabled: bool,
    pub regions: usize,
    pub store_files: usize,
    pub store_file_bytes: u64,
    pub memstore_bytes: u64,
    pub read_requests: u64,
    pub write_requests: u64,
}

impl TableSummary {
    /// A table's line from its regions' reports.
    pub fn of(name: TableName, enabled: bool, reports: &[RegionReport]) -> Self {
        TableSummary {
            name,
            enabled,
            regions: reports.len(),
            store_files: reports.iter().map(|r| r.store_files).sum(),
            store_file_bytes: reports.iter().map(|r| r.store_file_bytes).sum(),
            memstore_bytes: reports.iter().map(|r| r.memstore_bytes).sum(),
            read_requests: reports.iter().map(|r| r.read_requests).sum(),
            write_requests: reports.iter().map(|r| r.write_requests).sum(),
        }
    }
}

/// The server's state at one moment.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub ops: Vec<OpSnapshot>,
    /// User tables then `hbase:meta`.
    pub tables: Vec<TableSummary>,
    /// Every region of every table in `tables`.
    pub regions: Vec<RegionReport>,
    pub cache: BlockCacheStats,
    pub jobs: JobStats,
    pub wal_syncs: u64,
    pub memstore_limit_bytes: u64,
    /// Regions that failed to open, quarantined items, catalog disagreements.
    pub health: ClusterHealth,
    /// The server's name as its report gives it (`host,port,startcode`); None in process.
    pub server: Option<String>,
}

impl Snapshot {
    pub fn read(database: &Database, conn: &dyn Connection) -> Result<Snapshot, WebError> {
        let admin = conn.admin();
        let health = database.health()?;
        let meta = basalt_db::meta::meta_table_name();
        let meta_failed = health.failed_regions.iter().any(|f| f.table == meta);
        // While hbase:meta is FAILED_OPEN no table is known: the pages show why.
        let names = if meta_failed {
            Vec::new()
        } else {
            let mut names = admin.list_tables(None)?;
            names.push(meta);
            names
        };
        let (tables, regions) = summarize(admin.as_ref(), names);
        let ctx = database.engine().context();
        Ok(Snapshot {
            ops: database.metrics().snapshots(),
            tables,
            regions,
            cache: ctx.cache.stats(),
            jobs: ctx.jobs.stats(),
            wal_syncs: ctx.wal.sync_count(),
            memstore_limit_bytes: ctx.config.global_memstore_limit_bytes,
            health,
            server: None,
        })
    }

    /// Tables (disabled ones too), their regions and the health as the master of
    /// `conn` knows them, over a region server's own figures (standalone: one server holds
    /// every region, so its requests, cache and queues are the whole's).
    pub fn with_catalog(&mut self, conn: &dyn Connection) -> Result<(), WebError> {
        let admin = conn.admin();
        self.health = admin.cluster_health()?;
        (self.tables, self.regions) = summarize(admin.as_ref(), admin.list_tables(None)?);
        self.server = None;
        Ok(())
    }

    pub fn region_count(&self) -> usize {
        self.regions.len()
    }

    /// Regions that failed to open (FAILED_OPEN), `hbase:meta` included.
    pub fn failed_region_count(&self) -> usize {
        self.health.failed_regions.len()
    }

    pub fn store_files(&self) -> usize {
        self.regions.iter().map(|r| r.store_files).sum()
    }

    pub fn store_file_bytes(&self) -> u64 {
        self.regions.iter().map(|r| r.store_file_bytes).sum()
    }

    pub fn memstore_bytes(&self) -> u64 {
        self.regions.iter().map(|r| r.memstore_bytes).sum()
    }

    /// Reads as the regions count them (gets and scanned rows).
    pub fn read_requests(&self) -> u64 {
        self.regions.iter().map(|r| r.read_requests).sum()
    }

    pub fn write_requests(&self) -> u64 {
        self.regions.iter().map(|r| r.write_requests).sum()
    }

    /// Every request the tables served, of any kind.
    pub fn total_requests(&self) -> u64 {
        self.ops.iter().map(|o| o.latency.count).sum()
    }
}

/// Each of `names` with its regions, as `admin` reports them; a table dropped between the
/// listing and now is simply left out.
pub fn summarize(
    admin: &dyn basalt_api::Admin,
    names: Vec<basalt_types::TableName>,
) -> (Vec<TableSummary>, Vec<RegionReport>) {
    let mut tables = Vec::with_capacity(names.len());
    let mut regions = Vec::new();
    for name in names {
        let (Ok(enabled), Ok(reports)) = (admin.is_table_enabled(&name), admin.list_regions(&name))
        else {
            continue;
        };
        tables.push(TableSummary::of(name, enabled, &reports));
        regions.extend(reports);
    }
    (tables, regions)
}
