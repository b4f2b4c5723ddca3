//! Bulk loads into a table: HBase's `HFileOutputFormat2` and `completebulkload` as one
//! embedded call. Rows arrive in row order; each region's cells go straight into new store
//! files (one per family, rolled at a size bound), bypassing the write-ahead log and the
//! memstore; [`BulkLoader::commit`] then has every region adopt its files at once.
//!
//! ```no_run
//! # use basalt_db::{Database, DbConfig};
//! # use basalt_db::bulk_load::BulkLoadOptions;
//! # use basalt_types::{Put, TableName};
//! # fn main() -> basalt_api::Result<()> {
//! let db = Database::open(std::path::Path::new("./data"), DbConfig::default())?;
//! let table = TableName::parse("t")?;
//! let mut loader = db.bulk_loader(&table, BulkLoadOptions::default())?;
//! for i in 0..1000u32 {
//!     loader.add(Put::new(format!("row{i:06}")).add("cf", "q", "value"))?;
//! }
//! let summary = loader.commit()?;
//! # Ok(()) }
//! ```
//!
//! Nothing is visible before the commit, and each region's part becomes visible whole (the
//! load is not atomic across regions, as in HBase). Data committed survives a restart or a
//! kill; a load dropped or interrupted before its commit leaves nothing behind.
//!
//! **Writers.** The files are written by a pool of [`BulkLoadOptions::parallelism`]
//! threads (default: the machine's cores), one lane per region and family: the families
//! of a region, and the region just left and the next, are written at the same time. The
//! loader hands them runs of whole rows and waits when their queues are full, so memory
//! stays bounded however large the load. A writer's error (a full disk, say) stops the
//! others and is returned by the next [`BulkLoader::add`] or by the commit, naming the
//! region, family and file; nothing of such a load is committed and its files go.
//!
//! Unsorted input is an error naming the rows, never a corrupt file. Cells left at
//! `LATEST_TIMESTAMP` get one timestamp for the whole load, taken when it begins (as
//! ImportTsv's `importtsv.timestamp`). While a load runs, the table's regions do not split
//! by themselves, so each region's files stay inside its range.

mod writers;

use crate::database::Database;
use crate::error::{from_storage, DO_NOT_RETRY, NO_SUCH_FAMILY};
use basalt_api::{ApiError, ErrorKind, Result};
use basalt_storage::region::bulk_load::FILES_PER_FAMILY_DEFAULT_MAX;
use basalt_storage::Region;
use basalt_types::limits::{check_cell_size, check_row};
use basalt_types::{Cell, CellType, Put, TableDescriptor, TableName, LATEST_TIMESTAMP};
use bytes::Bytes;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
pub use writers::PARALLELISM_MAX;
use writers::{Lane, Message, SharedLoad, Writers};

/// A lane's cells are handed to its writer in runs of about this many bytes (whole rows).
const RUN_BYTES_MAX: usize = 1 << 20;

/// How a bulk load writes its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkLoadOptions {
    /// A file is closed (at a row boundary) and the next begun once it passes this.
    pub file_size_max_bytes: u64,
    /// Files per region and family (HBase's
    /// `hbase.mapreduce.bulkload.max.hfiles.perRegion.perFamily`, default 32).
    pub files_per_region_family_max: usize,
    /// Writer threads: files of different regions and families are written at once, up
    /// to this many (1 to [`PARALLELISM_MAX`]; default: the machine's available cores).
    pub parallelism: usize,
}

impl Default for BulkLoadOptions {
    fn default() -> Self {
        Self {
            file_size_max_bytes: 1 << 30,
            files_per_region_family_max: FILES_PER_FAMILY_DEFAULT_MAX,
            parallelism: std::thread::available_parallelism()
                .map_or(1, |n| n.get().min(PARALLELISM_MAX)),
        }
    }
}

/// What a load has written so far; shared, so another thread can watch it.
#[derive(Debug, Default)]
pub struct BulkLoadProgress {
    rows: AtomicU64,
    cells: AtomicU64,
    bytes: AtomicU64,
    files: AtomicU64,
    regions_committed: AtomicU64,
}

/// A reading of [`BulkLoadProgress`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BulkLoadCounts {
    pub rows: u64,
    pub cells: u64,
    /// Bytes of keys and values taken in.
    pub bytes: u64,
    /// Files finished.
    pub files: u64,
    pub regions_committed: u64,
}

impl BulkLoadProgress {
    pub fn counts(&self) -> BulkLoadCounts {
        BulkLoadCounts {
            rows: self.rows.load(Ordering::Relaxed),
            cells: self.cells.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            files: self.files.load(Ordering::Relaxed),
            regions_committed: self.regions_committed.load(Ordering::Relaxed),
        }
    }
}

/// The files of one region, being written or waiting for the commit.
struct RegionLoad {
    region: Arc<Region>,
    load: SharedLoad,
    /// The lane of each family written to so far (while the region is current).
    lanes: BTreeMap<Bytes, PendingRun>,
}

/// A lane's cells not yet handed to its writer.
struct PendingRun {
    lane: Arc<Lane>,
    writer: usize,
    cells: Vec<Cell>,
    bytes: usize,
}

/// A bulk load into one table; see the module documentation.
pub struct BulkLoader {
    db: Arc<Database>,
    table: Arc<TableDescriptor>,
    options: BulkLoadOptions,
    timestamp: i64,
    progress: Arc<BulkLoadProgress>,
    current: Option<RegionLoad>,
    finished: Vec<RegionLoad>,
    /// `None` once joined (at the commit or the drop).
    writers: Option<Writers>,
    next_lane: u64,
    last_row: Option<Bytes>,
    /// Why the loader refuses further rows (an I/O failure half-way through a row).
    broken: Option<String>,
}

impl std::fmt::Debug for BulkLoader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BulkLoader")
            .field("table", &self.table.name)
            .field("progress", &self.progress.counts())
            .finish_non_exhaustive()
    }
}

/// Whether two byte strings are the same bytes in memory (so equal without comparing).
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.as_ptr() == b.as_ptr() && a.len() == b.len()
}

fn invalid(message: String) -> ApiError {
    ApiError::new(ErrorKind::InvalidRequest, DO_NOT_RETRY, message)
}

impl Database {
    /// Starts a bulk load into `table`, which must be an enabled, writable user table.
    pub fn bulk_loader(
        self: &Arc<Self>,
        table: &TableName,
        options: BulkLoadOptions,
    ) -> Result<BulkLoader> {
        crate::admin::tables::check_user_table(table)?;
        if options.file_size_max_bytes == 0 || options.files_per_region_family_max == 0 {
            return Err(invalid(format!(
                "bulk load options need a positive file size and file count: {options:?}"
            )));
        }
        if !(1..=PARALLELISM_MAX).contains(&options.parallelism) {
            return Err(invalid(format!(
                "bulk load parallelism must be 1 to {PARALLELISM_MAX} writer threads, not {}",
                options.parallelism
            )));
        }
        let descriptor = {
            let catalog = self.catalog.read();
            let entry = catalog.table(table)?;
            if !entry.enabled {
                return Err(crate::error::table_disabled(table));
            }
            entry.descriptor.clone()
        };
        if descriptor.read_only {
            return Err(invalid(format!("Table '{table}' is read-only")));
        }
        let progress = Arc::<BulkLoadProgress>::default();
        let writers = Writers::start(
            table,
            options.parallelism,
            options.file_size_max_bytes,
            progress.clone(),
        )?;
        *self.bulk_loads.lock().entry(table.clone()).or_default() += 1;
        tracing::info!(%table, writers = options.parallelism, "bulk load begun");
        Ok(BulkLoader {
            db: self.clone(),
            table: descriptor,
            options,
            timestamp: self.clock.now_ms(),
            progress,
            current: None,
            finished: Vec::new(),
            writers: Some(writers),
            next_lane: 0,
            last_row: None,
            broken: None,
        })
    }

    /// Whether a bulk load into `table` is under way (its regions then do not split by
    /// themselves).
    pub(crate) fn bulk_load_running(&self, table: &TableName) -> bool {
        self.bulk_loads.lock().get(table).is_some_and(|n| *n > 0)
    }
}

impl BulkLoader {
    /// The load's counters, to watch from another thread.
    pub fn progress(&self) -> Arc<BulkLoadProgress> {
        self.progress.clone()
    }

    /// Adds one row. Rows must come in strictly increasing order, one `Put` per row; a
    /// row's cells may come in any order but not twice. A rejected row writes nothing.
    /// The files are written by the writer threads: an error of theirs (a full disk) is
    /// returned by a later call, and the load then refuses rows and cannot commit.
    pub fn add(&mut self, put: Put) -> Result<()> {
        if let Some(why) = &self.broken {
            return Err(invalid(format!("the bulk load failed earlier: {why}")));
        }
        if let Err(e) = self.writers()?.check() {
            self.broken = Some(e.message.clone());
            return Err(e);
        }
        check_row(&put.row).map_err(|e| invalid(e.to_string()))?;
        if let Some(last) = &self.last_row {
            if put.row <= *last {
                return Err(invalid(format!(
                    "bulk load input is not sorted: row '{}' after row '{}'",
                    String::from_utf8_lossy(&put.row),
                    String::from_utf8_lossy(last)
                )));
            }
        }
        let cells = self.resolve(put)?;
        let Some(first) = cells.first() else {
            return Ok(());
        };
        let row = first.row_bytes();
        let bytes: u64 = cells
            .iter()
            .map(|c| {
                (c.row().len() + c.family().len() + c.qualifier().len() + c.value().len()) as u64
            })
            .sum();
        let count = cells.len() as u64;
        if let Err(e) = self.write_row(&row, cells) {
            self.broken = Some(e.message.clone());
            return Err(e);
        }
        self.last_row = Some(row);
        self.progress.rows.fetch_add(1, Ordering::Relaxed);
        self.progress.cells.fetch_add(count, Ordering::Relaxed);
        self.progress.bytes.fetch_add(bytes, Ordering::Relaxed);
        Ok(())
    }

    /// The put's cells, checked, timestamps resolved, in cell order.
    fn resolve(&self, put: Put) -> Result<Vec<Cell>> {
        let cell_max_bytes = self.db.config.storage.cell_max_bytes;
        let mut cells = put.cells;
        // Where the last family checked lies: cells of one family usually share its bytes.
        let mut checked_family = (std::ptr::null::<u8>(), 0);
        for cell in cells.iter_mut() {
            let own_row = same_bytes(cell.row(), &put.row) || cell.row() == put.row;
            if !own_row || cell.cell_type() != CellType::Put {
                return Err(invalid("a Put holds only put cells of its own row".into()));
            }
            let family = (cell.family().as_ptr(), cell.family().len());
            let known_family =
                family == checked_family || self.table.family(cell.family()).is_some();
            if !known_family {
                return Err(ApiError::new(
                    ErrorKind::InvalidRequest,
                    NO_SUCH_FAMILY,
                    self.table.unknown_family_message(),
                ));
            }
            checked_family = family;
            if cell.ttl_ms().is_none() {
                cell.set_ttl_ms(put.ttl_ms);
            }
            if cell.timestamp() == LATEST_TIMESTAMP {
                cell.set_timestamp(self.timestamp);
            }
            check_cell_size(cell, cell_max_bytes).map_err(|e| invalid(e.to_string()))?;
        }
        // One row, all puts: family, qualifier and timestamp decide the order.
        let order = |a: &Cell, b: &Cell| {
            let family = if same_bytes(a.family(), b.family()) {
                std::cmp::Ordering::Equal
            } else {
                a.family().cmp(b.family())
            };
            family
                .then_with(|| a.qualifier().cmp(b.qualifier()))
                .then_with(|| b.timestamp().cmp(&a.timestamp()))
        };
        if !cells.is_sorted_by(|a, b| order(a, b).is_lt()) {
            cells.sort_by(order);
            if let Some(pair) = cells.windows(2).find(|w| order(&w[0], &w[1]).is_eq()) {
                return Err(invalid(format!(
                    "bulk load input holds row '{}' column {}:{} at timestamp {} twice",
                    String::from_utf8_lossy(pair[0].row()),
                    String::from_utf8_lossy(pair[0].family()),
                    String::from_utf8_lossy(pair[0].qualifier()),
                    pair[0].timestamp()
                )));
            }
        }
        Ok(cells)
    }

    /// Hands one row's cells (sorted) to the lanes of the region holding it.
    fn write_row(&mut self, row: &Bytes, cells: Vec<Cell>) -> Result<()> {
        if !self
            .current
            .as_ref()
            .is_some_and(|c| c.region.info().contains_row(row))
        {
            self.finish_current()?;
            let region = self.db.catalog.read().locate(&self.table.name, row)?;
            let load = region
                .begin_bulk_load(self.options.files_per_region_family_max)
                .map_err(from_storage)?;
            self.current = Some(RegionLoad {
                region,
                load: Arc::new(parking_lot::Mutex::new(Some(load))),
                lanes: BTreeMap::new(),
            });
        }
        let mut cells = cells.into_iter().peekable();
        while let Some(family) = cells.peek().map(|c| c.family_bytes()) {
            let run = self.pending(&family)?;
            while let Some(cell) = cells.next_if(|c| c.family() == family) {
                run.bytes += cell.row().len()
                    + cell.family().len()
                    + cell.qualifier().len()
                    + cell.value().len();
                run.cells.push(cell);
            }
            if run.bytes >= RUN_BYTES_MAX {
                let message = run.take();
                let writer = run.writer;
                self.writers()?.send(writer, message)?;
            }
        }
        Ok(())
    }

    /// The pending run of `family` in the current region, its lane opened if new.
    fn pending(&mut self, family: &Bytes) -> Result<&mut PendingRun> {
        let writers = self.writers.as_mut().ok_or_else(joined)?;
        let current = self
            .current
            .as_mut()
            .ok_or_else(|| invalid("no region is being loaded".into()))?;
        if !current.lanes.contains_key(family) {
            let lane = Arc::new(Lane {
                id: self.next_lane,
                region: current.region.clone(),
                load: current.load.clone(),
                family: family.clone(),
            });
            self.next_lane += 1;
            let run = PendingRun {
                lane,
                writer: writers.assign(),
                cells: Vec::new(),
                bytes: 0,
            };
            current.lanes.insert(family.clone(), run);
        }
        current
            .lanes
            .get_mut(family)
            .ok_or_else(|| invalid("a bulk load lane vanished".into()))
    }

    fn writers(&self) -> Result<&Writers> {
        self.writers.as_ref().ok_or_else(joined)
    }

    /// Hands the current region's last runs to their writers and has them finish its
    /// files; its load waits for the commit.
    fn finish_current(&mut self) -> Result<()> {
        let Some(mut current) = self.current.take() else {
            return Ok(());
        };
        let lanes = std::mem::take(&mut current.lanes);
        self.finished.push(current);
        let writers = self.writers()?;
        for mut run in lanes.into_values() {
            if !run.cells.is_empty() {
                writers.send(run.writer, run.take())?;
            }
            let lane = run.lane.id;
            writers.send(run.writer, Message::Finish { lane })?;
        }
        Ok(())
    }

    /// Waits for the writers to finish every file, then has every region adopt its files;
    /// a writer's failure fails the load with nothing committed. No split, merge or
    /// table change runs meanwhile, and every region is checked to still serve first: a
    /// region split or closed while the files were written fails the whole load with
    /// nothing committed (load again). Past that, only an I/O failure can leave some
    /// regions committed and others not; the error says how many.
    pub fn commit(mut self) -> Result<BulkLoadCounts> {
        if let Some(why) = &self.broken {
            return Err(invalid(format!("the bulk load failed earlier: {why}")));
        }
        self.finish_current()?;
        self.writers.take().ok_or_else(joined)?.join()?;
        let db = self.db.clone();
        let _ddl = db.ddl.write();
        self.check_regions_serve()?;
        let regions = std::mem::take(&mut self.finished);
        let total = regions.len();
        let mut regions = regions.into_iter();
        let mut committed = 0;
        while let Some(part) = regions.next() {
            let Some(load) = part.load.lock().take() else {
                continue;
            };
            if let Err(e) = part.region.commit_bulk_load(load) {
                let e = from_storage(e);
                // The rest never commit: their files go.
                for rest in regions {
                    rest.abort();
                }
                return Err(ApiError::new(
                    e.kind,
                    &e.exception,
                    format!(
                        "bulk load into {}: {committed} of {total} regions committed, then: {}",
                        self.table.name, e.message
                    ),
                ));
            }
            committed += 1;
            self.progress
                .regions_committed
                .fetch_add(1, Ordering::Relaxed);
        }
        let counts = self.progress.counts();
        tracing::info!(table = %self.table.name, rows = counts.rows, cells = counts.cells,
            bytes = counts.bytes, files = counts.files, regions = total, "bulk load committed");
        Ok(counts)
    }
}

impl BulkLoader {
    /// Whether every region written to is still the one serving its rows.
    fn check_regions_serve(&self) -> Result<()> {
        let catalog = self.db.catalog.read();
        for part in &self.finished {
            let info = part.region.info();
            let serving = catalog.locate(&self.table.name, &info.start_key)?;
            if !Arc::ptr_eq(&serving, &part.region) {
                return Err(ApiError::new(
                    ErrorKind::RetryElsewhere,
                    crate::error::NOT_SERVING,
                    format!(
                        "bulk load into {}: region {} split, merged or reopened while its \
                         files were written; nothing was committed, load again",
                        self.table.name, info.name
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl PendingRun {
    /// The cells gathered so far, as a run for the lane's writer.
    fn take(&mut self) -> Message {
        self.bytes = 0;
        Message::Run {
            lane: self.lane.clone(),
            cells: std::mem::take(&mut self.cells),
        }
    }
}

impl RegionLoad {
    /// Deletes the region's finished files (its writers are joined: none is open).
    fn abort(self) {
        if let Some(load) = self.load.lock().take() {
            self.region.abort_bulk_load(load);
        }
    }
}

/// The error of a loader used after its writers were joined (a bug, not bad input).
fn joined() -> ApiError {
    invalid("the bulk load's writers have already stopped".into())
}

impl Drop for BulkLoader {
    /// An uncommitted load deletes its files; either way the table may split again.
    fn drop(&mut self) {
        // Writers first: a file still being written is deleted by its writer.
        if let Some(writers) = self.writers.take() {
            writers.abandon();
        }
        let parts = self
            .current
            .take()
            .into_iter()
            .chain(self.finished.drain(..));
        let mut aborted = 0;
        for part in parts {
            part.abort();
            aborted += 1;
        }
        if aborted > 0 {
            tracing::info!(table = %self.table.name, regions = aborted, "bulk load abandoned");
        }
        let mut loads = self.db.bulk_loads.lock();
        if let Some(n) = loads.get_mut(&self.table.name) {
            *n -= 1;
            if *n == 0 {
                loads.remove(&self.table.name);
            }
        }
    }
}
