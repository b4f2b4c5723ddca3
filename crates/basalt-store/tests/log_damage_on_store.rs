//! A damaged log tail on a store: garbage after the last good record of the newest
//! segment (here a chunk no writer wrote whole) is cut off by the engine's replay, through
//! `StoreFs::truncate`, and kept in `wal/corrupt/`; the region opens with every
//! acknowledged edit. On memory, a folder and moto's S3.

use crate::common;

use basalt_storage::clock::SystemClock;
use basalt_storage::{Engine, RegionInfo, StorageConfig};
use basalt_store::StoreOptions;
use basalt_types::{FamilyDescriptor, Put, Scan, TableDescriptor, TableName};
use common::*;
use std::path::Path;
use std::sync::Arc;

fn table() -> TableDescriptor {
    TableDescriptor::new(
        TableName::parse("t").expect("valid name"),
        vec![FamilyDescriptor::new("cf".to_string()).expect("valid family")],
    )
}

fn open(backend: &Backend) -> (Arc<Engine>, Arc<basalt_storage::Region>) {
    let fs = Arc::new(backend.reopen(StoreOptions::default()));
    let engine = Engine::open(
        fs,
        Path::new("/basalt"),
        StorageConfig::default(),
        Arc::new(SystemClock),
    )
    .expect("engine opens");
    let region = engine
        .open_region(RegionInfo::whole("r1"), table())
        .expect("region opens");
    (engine, region)
}

/// The chunks of the newest log segment.
fn newest_segment_chunks(backend: &Backend) -> Vec<String> {
    let chunks: Vec<String> = keys(&backend.store())
        .into_iter()
        .filter(|k| k.starts_with("basalt/wal/wal-"))
        .collect();
    let newest = chunks
        .iter()
        .filter_map(|k| k.rsplit_once('/').map(|(segment, _)| segment.to_owned()))
        .max()
        .expect("a segment");
    chunks
        .into_iter()
        .filter(|k| k.starts_with(&format!("{newest}/")))
        .collect()
}

fn suite(backend: Backend) {
    {
        let (_engine, region) = open(&backend);
        for i in 0..10 {
            let put = Put::new(format!("row{i}")).add("cf", "q", "v");
            region.put(&put).expect("put");
        }
        // A crash: the rows are only in the log.
    }
    let chunks = newest_segment_chunks(&backend);
    let (segment, _) = chunks[0].rsplit_once('/').expect("a chunk key");
    let garbage = format!("{segment}/{:010}", chunks.len());
    let store = backend.store();
    basalt_store::blocking(async move {
        store
            .put_if_absent(&garbage, vec![0xff_u8; 40].into())
            .await
    })
    .expect("a garbage chunk");
    let (engine, region) = open(&backend);
    let rows: Vec<_> = region
        .scanner(&Scan::new())
        .expect("scanner")
        .map(|r| r.expect("read"))
        .collect();
    assert_eq!(rows.len(), 10, "every acknowledged edit replayed");
    let kept = keys(&backend.store());
    let still = kept
        .iter()
        .filter(|k| k.starts_with(&format!("{segment}/")))
        .count();
    assert_eq!(still, chunks.len(), "the garbage chunk was cut off");
    assert!(
        kept.iter()
            .any(|k| k.starts_with("basalt/wal/corrupt/") && k.contains("tail-at")),
        "the cut bytes are kept: {kept:?}"
    );
    drop(region);
    engine.close().expect("close");
}

#[test]
fn a_damaged_log_tail_is_cut_on_memory() {
    suite(memory());
}

#[test]
fn a_damaged_log_tail_is_cut_on_a_folder() {
    suite(folder());
}

#[test]
fn a_damaged_log_tail_is_cut_on_s3() {
    suite(moto());
}
