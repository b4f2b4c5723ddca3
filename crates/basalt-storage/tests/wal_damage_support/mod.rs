//! Helpers for the tests of damaged logs under an engine: regions `a`, `b`, `c` of one
//! table, SYNC_WAL puts whose values are unique byte strings (so a test can find a record
//! in a segment and damage it), "crashes" (dropping the engine without flushing) and byte
//! flips in real segment files.
#![allow(dead_code, reason = "each test binary uses a different part")]

use basalt_storage::clock::SystemClock;
use basalt_storage::fs::LocalFs;
use basalt_storage::wal::segment::file_name;
use basalt_storage::{Engine, Region, RegionInfo, Result, StorageConfig};
use basalt_types::{Durability, FamilyDescriptor, Put, Scan, TableDescriptor, TableName};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub fn table() -> TableDescriptor {
    TableDescriptor::new(
        TableName::parse("t").expect("valid name"),
        vec![FamilyDescriptor::new("cf").expect("valid family")],
    )
}

pub fn start(dir: &Path, skip_corrupt: bool) -> Arc<Engine> {
    let config = StorageConfig {
        wal_skip_corrupt: skip_corrupt,
        ..StorageConfig::default()
    };
    Engine::open(Arc::new(LocalFs), dir, config, Arc::new(SystemClock)).expect("engine opens")
}

pub fn open(engine: &Engine, region: &str) -> Result<Arc<Region>> {
    engine.open_region(RegionInfo::whole(region), table())
}

/// Opens a region that must open.
pub fn opened(engine: &Engine, region: &str) -> Arc<Region> {
    open(engine, region).expect("the region opens")
}

/// The value a put of `row` in `region` carries; unique in the log.
pub fn value(region: &str, row: &str) -> String {
    format!("value-of-{region}-{row}-in-the-log")
}

pub fn put(region: &Region, row: &str) {
    let value = value(&region.info().name, row);
    let put = Put::new(row.to_string())
        .add("cf", "q", value)
        .durability(Durability::SyncWal);
    region.put(&put).expect("put");
}

/// Every row key of `region`, checking each value is the one its put wrote.
pub fn rows(region: &Region) -> Vec<String> {
    let scan = region.scanner(&Scan::new()).expect("scanner");
    scan.map(|r| {
        let r = r.expect("row");
        let row = String::from_utf8_lossy(r.row().expect("row")).into_owned();
        let cell = &r.cells[0];
        assert_eq!(cell.value(), value(&region.info().name, &row).as_bytes());
        row
    })
    .collect()
}

pub fn segment(dir: &Path, id: u64) -> PathBuf {
    dir.join("wal").join(file_name(id))
}

pub fn corrupt(dir: &Path, id: u64) -> PathBuf {
    dir.join("wal").join("corrupt").join(file_name(id))
}

/// Flips a bit in the middle of `region`'s value for `row` in segment `id`; returns the
/// offset of the flipped byte.
pub fn damage(dir: &Path, id: u64, region: &str, row: &str) -> usize {
    let path = segment(dir, id);
    let mut bytes = std::fs::read(&path).expect("read segment");
    let needle = value(region, row);
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
        .expect("the value is in the segment")
        + needle.len() / 2;
    bytes[at] ^= 0x10;
    std::fs::write(&path, bytes).expect("write segment");
    at
}

/// Log lines written on this thread while `run` runs.
pub fn logs_of<T>(run: impl FnOnce() -> T) -> (T, String) {
    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Buffer {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("not poisoned").extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let buffer = Buffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let result = tracing::subscriber::with_default(subscriber, run);
    let text = String::from_utf8_lossy(&buffer.0.lock().expect("not poisoned")).into_owned();
    (result, text)
}
