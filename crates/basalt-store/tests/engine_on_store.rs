//! The engine itself, unchanged, on `StoreFs`: a region is written (log chunks), flushed
//! (an HFile and a manifest published by rename), dropped without closing (a crash: the
//! last edits are only in the log), opened again by another file system on the same
//! store (another server, with a disk cache) which replays the log, then closed and
//! opened once more. Every row reads back each time. On memory, a folder and moto's S3.

use crate::common;

use basalt_storage::clock::SystemClock;
use basalt_storage::fs::FileSystem;
use basalt_storage::{Engine, Region, RegionInfo, StorageConfig};
use basalt_store::{StoreFs, StoreOptions};
use basalt_types::{FamilyDescriptor, Put, Scan, TableDescriptor, TableName};
use common::*;
use std::path::Path;
use std::sync::Arc;

const ROOT: &str = "/basalt";

fn table() -> TableDescriptor {
    TableDescriptor::new(
        TableName::parse("t").expect("valid name"),
        vec![FamilyDescriptor::new("cf".to_string()).expect("valid family")],
    )
}

fn open(fs: Arc<dyn FileSystem>) -> (Arc<Engine>, Arc<Region>) {
    let engine = Engine::open(
        fs,
        Path::new(ROOT),
        StorageConfig::default(),
        Arc::new(SystemClock),
    )
    .expect("engine opens");
    let region = engine
        .open_region(RegionInfo::whole("r1"), table())
        .expect("region opens");
    (engine, region)
}

fn put_rows(region: &Region, rows: std::ops::Range<u32>) {
    for i in rows {
        let put = Put::new(format!("row{i:04}")).add("cf", "q", format!("value {i}"));
        region.put(&put).expect("put");
    }
}

/// Every row's key and value.
fn rows(region: &Region) -> Vec<(String, String)> {
    region
        .scanner(&Scan::new())
        .expect("scanner")
        .map(|row| {
            let row = row.expect("scan reads");
            let cell = &row.cells[0];
            (
                String::from_utf8_lossy(cell.row()).into_owned(),
                String::from_utf8_lossy(cell.value()).into_owned(),
            )
        })
        .collect()
}

fn expected(count: u32) -> Vec<(String, String)> {
    (0..count)
        .map(|i| (format!("row{i:04}"), format!("value {i}")))
        .collect()
}

fn suite(backend: Backend) {
    let options = StoreOptions::default();
    let (flushed, logged) = (40, 25);
    {
        let (_engine, region) = open(Arc::new(backend.reopen(options.clone())));
        put_rows(&region, 0..flushed);
        region.flush().expect("flush");
        put_rows(&region, flushed..flushed + logged);
        assert_eq!(rows(&region), expected(flushed + logged));
        // Dropped without closing: the last rows are only in the log.
    }
    let cache = tempfile::tempdir().expect("cache dir");
    let second_server = StoreFs::new(
        backend.store(),
        StoreOptions {
            cache_dir: Some(cache.path().to_path_buf()),
            cache_block_bytes: 64 * 1024,
            ..options.clone()
        },
    )
    .expect("second file system");
    let second_server = Arc::new(second_server);
    let (engine, region) = open(second_server.clone());
    assert_eq!(
        rows(&region),
        expected(flushed + logged),
        "log replayed, file read"
    );
    assert!(
        second_server.stats().bytes_fetched > 0,
        "the store file and the log were read from the store"
    );
    put_rows(&region, flushed + logged..flushed + logged + 5);
    drop(region);
    engine.close().expect("clean close");
    drop(engine);
    let (engine, region) = open(Arc::new(backend.reopen(options)));
    assert_eq!(rows(&region), expected(flushed + logged + 5));
    drop(region);
    engine.close().expect("clean close");
}

#[test]
fn the_engine_runs_on_memory() {
    suite(memory());
}

#[test]
fn the_engine_runs_on_a_folder() {
    suite(folder());
}

#[test]
fn the_engine_runs_on_s3() {
    suite(moto());
}
