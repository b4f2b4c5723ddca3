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
        text(cell.row()),
        text(cell.family()),
        text(cell.qualifier()),
        cell.timestamp()
    );
    if cell.is_delete() {
        format!("{key} {}", cell.cell_type().name())
    } else {
        format!("{key}={}", text(cell.value()))
    }
}

pub fn show_rows(rows: &[RowResult]) -> Vec<String> {
    rows.iter().flat_map(|r| r.cells.iter().map(show)).collect()
}

/// A file system over the local disk whose failures and free space tests switch, and the
/// switches.
pub fn faulty_fs() -> (Arc<basalt_storage::fs::Faults>, Arc<dyn FileSystem>) {
    let faulty = Arc::new(basalt_storage::fs::FaultyFs::new(Arc::new(LocalFs)));
    (faulty.faults(), faulty)
}

/// Files a failed write may have left under `root`: anything inside a `.tmp` staging
/// folder, and any `*.tmp` file.
pub fn partial_files(root: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("readable folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "tmp")
                || path.components().any(|c| c.as_os_str() == ".tmp")
            {
                found.push(path);
            }
        }
    }
    found
}

/// The row keys and `cf:q` values of a full scan.
pub fn values(region: &Region) -> std::collections::BTreeMap<String, String> {
    scan_all(region, &Scan::new())
        .iter()
        .map(|r| {
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            let row = text(r.row().expect("a row has cells"));
            let value = r.value(b"cf", b"q").map(text).unwrap_or_default();
            (row, value)
        })
        .collect()
}

/// Every cell a memstore segment holds, in order, as a flush reads them.
pub fn segment_cells(segment: &basalt_storage::memstore::Segment) -> Vec<Cell> {
    let mut out = Vec::new();
    segment
        .try_for_each(|cell| {
            out.push(cell.clone());
            Ok::<_, ()>(())
        })
        .expect("reading a segment never fails");
    out
}
