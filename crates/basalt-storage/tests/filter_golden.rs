//! The filter golden file of `basalt-filter` (`tests/golden/filters.txt`, 160+ cases) run
//! through the real engine: each case's table is written to a region, then scanned with
//! the case's filter pushed down into the region scanner — once from the memstore and once
//! from a flushed file. The expected cells are the same as the reference scan loop's.

#[path = "../../basalt-filter/tests/support/mod.rs"]
mod filter_support;

use basalt_storage::clock::ManualClock;
use basalt_storage::fs::LocalFs;
use basalt_storage::{Engine, RegionInfo, StorageConfig};
use basalt_types::{Cell, FamilyDescriptor, FilterSpec, Put, Scan, TableDescriptor, TableName};
use bytes::Bytes;
use filter_support::scan::ScanSettings;
use std::collections::BTreeSet;
use std::sync::Arc;

fn temp_dir() -> tempfile::TempDir {
    let shm = std::path::Path::new("/dev/shm");
    match shm.is_dir().then(|| tempfile::tempdir_in(shm)) {
        Some(Ok(dir)) => dir,
        _ => tempfile::tempdir().expect("temp dir"),
    }
}

fn engine_scan(
    cells: &[Cell],
    spec: Option<&FilterSpec>,
    settings: &ScanSettings,
    flush: bool,
) -> Result<Vec<Cell>, String> {
    let dir = temp_dir();
    let engine = Engine::open(
        Arc::new(LocalFs),
        dir.path(),
        StorageConfig::default(),
        Arc::new(ManualClock::new(1_000_000)),
    )
    .map_err(|e| e.to_string())?;
    let families: BTreeSet<Bytes> = cells.iter().map(|c| c.family_bytes()).collect();
    let families = families
        .into_iter()
        .chain(std::iter::once(Bytes::from_static(b"cf")))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .map(|name| {
            let mut f = FamilyDescriptor::new(name).expect("valid family");
            f.max_versions = 1000;
            f
        })
        .collect();
    let table = TableDescriptor::new(TableName::parse("golden").expect("valid"), families);
    let region = engine
        .open_region(RegionInfo::whole("golden"), table)
        .map_err(|e| e.to_string())?;
    for cell in cells {
        let put = Put::new(cell.row_bytes()).add_at(
            cell.family_bytes(),
            cell.qualifier_bytes(),
            cell.timestamp(),
            cell.value_bytes(),
        );
        region.put(&put).map_err(|e| e.to_string())?;
    }
    if flush {
        region.flush().map_err(|e| e.to_string())?;
    }
    let mut scan = Scan::new()
        .start(settings.start.clone())
        .stop(settings.stop.clone())
        .reversed(settings.reversed);
    scan.max_versions = u32::try_from(settings.versions).unwrap_or(u32::MAX);
    scan.filter = spec.cloned();
    let mut out = Vec::new();
    for row in region.scanner(&scan).map_err(|e| e.to_string())? {
        out.extend(
            row.map_err(|e| e.to_string())?
                .cells
                .into_iter()
                .map(|c| c.with_seq(0)),
        );
    }
    Ok(out)
}

fn golden_path() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../basalt-filter/tests/golden/filters.txt"
    )
    .to_string()
}

#[test]
fn golden_filters_through_the_memstore() {
    filter_support::golden::check_file(&golden_path(), &|cells, spec, settings| {
        engine_scan(cells, spec, settings, false)
    });
}

#[test]
fn golden_filters_through_flushed_files() {
    filter_support::golden::check_file(&golden_path(), &|cells, spec, settings| {
        engine_scan(cells, spec, settings, true)
    });
}
