//! Shared set-up for the engine's integration tests.
#![allow(dead_code)]

use basalt_storage::clock::{Clock, ManualClock, SystemClock};
use basalt_storage::fs::{FileSystem, LocalFs};
use basalt_storage::{Engine, Region, RegionInfo, StorageConfig};
use basalt_types::{Cell, FamilyDescriptor, RowResult, Scan, TableDescriptor, TableName};
use std::path::Path;
use std::sync::Arc;

/// A table `t` with the given families at HBase's defaults.
pub fn table(families: &[&str]) -> TableDescriptor {
    TableDescriptor::new(
        TableName::parse("t").expect("valid name"),
        families
            .iter()
            .map(|f| FamilyDescriptor::new(f.to_string()).expect("valid family"))
            .collect(),
    )
}

pub fn open_engine(dir: &Path, config: StorageConfig) -> Arc<Engine> {
    Engine::open(Arc::new(LocalFs), dir, config, Arc::new(SystemClock)).expect("engine opens")
}

pub fn open_engine_with(
    dir: &Path,
    config: StorageConfig,
    fs: Arc<dyn FileSystem>,
    clock: Arc<dyn Clock>,
) -> Arc<Engine> {
    Engine::open(fs, dir, config, clock).expect("engine opens")
}

pub fn manual_clock(now_ms: i64) -> Arc<ManualClock> {
    Arc::new(ManualClock::new(now_ms))
}

pub fn open_region(engine: &Engine, table: TableDescriptor) -> Arc<Region> {
    engine
        .open_region(RegionInfo::whole("r1"), table)
        .expect("region opens")
}

/// Every row of a scan.
pub fn scan_all(region: &Region, scan: &Scan) -> Vec<RowResult> {
    region
        .scanner(scan)
        .expect("scanner opens")
        .map(|r| r.expect("scan reads"))
        .collect()
}

/// A cell as `row/family:qualifier@ts=value` (or `...@ts type` for markers).
pub fn show(cell: &Cell) -> String {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let key = format!(
        "{}/{}:{}@{}",
        text(&cell.row),
        text(&cell.family),
        text(&cell.qualifier),
        cell.timestamp
    );
    if cell.is_delete() {
        format!("{key} {}", cell.cell_type.name())
    } else {
        format!("{key}={}", text(&cell.value))
    }
}

pub fn show_rows(rows: &[RowResult]) -> Vec<String> {
    rows.iter().flat_map(|r| r.cells.iter().map(show)).collect()
}
