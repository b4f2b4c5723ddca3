//! A region whose dead server's log was split per region reopens from its own recovered
//! edits (`recovered.edits/<server>` in its folder) without reading the log — shown here
//! by moving the log away first — with every write and the nonces they carried, then
//! removes the file once flushed (right after it serves, or before with
//! `flush_recovered_before_serving`). A damaged recovered-edits file costs nothing: the
//! region reads the whole log instead.

use basalt_api::Connection;
use basalt_db::meta::record::{RegionRecord, RegionState};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_storage::fs::{FileSystem, LocalFs};
use basalt_storage::wal::{recovered, split::split_log};
use basalt_types::{
    Action, FamilyDescriptor, Get, Increment, Nonce, Put, TableDescriptor, TableName,
};
use bytes::Bytes;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const DEAD: &str = "127.0.0.2,16020,1";

fn host(root: &Path, name: &str) -> Arc<Database> {
    host_with(root, name, DbConfig::default())
}

fn host_with(root: &Path, name: &str, config: DbConfig) -> Arc<Database> {
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let wal = root.join("wal").join(name);
    Database::open_host(fs, root, &wal, name, config).expect("open a host")
}

fn record() -> RegionRecord {
    let table = TableName::parse("t").expect("name");
    RegionRecord::new(table, 1, Bytes::new(), Bytes::new(), RegionState::Open)
}

fn descriptor() -> TableDescriptor {
    let table = TableName::parse("t").expect("name");
    TableDescriptor::new(table, vec![FamilyDescriptor::new("f").expect("family")])
}

const NONCE: Nonce = Nonce { group: 3, nonce: 8 };

fn increment() -> Action {
    Action::Increment(Increment::new("c").add("f", "n", 2))
}

/// A server that takes writes and an increment, then dies; its log is sealed and split
/// for the region. Returns the region's folder.
fn write_die_and_split(root: &Path) -> PathBuf {
    let dead = host(root, DEAD);
    dead.host_open(record(), descriptor()).expect("open");
    let table = EmbeddedConnection::new(dead.clone())
        .table(&descriptor().name)
        .expect("table");
    for i in 0..20 {
        table
            .put(&Put::new(format!("row{i:02}")).add("f", "q", format!("v{i}")))
            .expect("acknowledged");
    }
    table.apply_once(&increment(), NONCE).expect("applied");
    std::mem::forget(table);
    std::mem::forget(dead);
    let log = root.join("wal").join(DEAD);
    LocalFs.seal_logs(&log).expect("seal").expect("sealed");
    let dir = root.join("data/default/t").join(&record().encoded_name);
    let regions = BTreeMap::from([(record().encoded_name.clone(), dir.clone())]);
    let outcome = split_log(&LocalFs, &log, DEAD, &regions).expect("split");
    assert_eq!(
        outcome.edits_written, 22,
        "20 puts, the increment, the barrier of the open"
    );
    dir
}

fn check_reopened(db: &Arc<Database>) {
    let table = EmbeddedConnection::new(db.clone())
        .table(&descriptor().name)
        .expect("table");
    for i in 0..20 {
        let got = table.get(&Get::new(format!("row{i:02}"))).expect("get");
        assert_eq!(
            got.value(b"f", b"q").map(|v| v.to_vec()),
            Some(format!("v{i}").into_bytes())
        );
    }
    table
        .apply_once(&increment(), NONCE)
        .expect_err("the retried increment is refused: its nonce came with the edits");
}

#[test]
fn a_region_reopens_from_its_recovered_edits_without_the_log() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = write_die_and_split(tmp.path());
    // The log is moved where no lookup finds it: only the recovered edits can serve.
    std::fs::rename(
        tmp.path().join("wal").join(DEAD),
        tmp.path().join("elsewhere"),
    )
    .expect("log moved away");
    let next = host(tmp.path(), "127.0.0.3,16020,2");
    let unflushed = next
        .host_open_recovering(record(), descriptor(), &[DEAD.to_string()])
        .expect("opens from the recovered edits");
    assert!(unflushed, "it serves before its replayed edits are flushed");
    check_reopened(&next);
    // The flusher writes them out right after; then the recovered edits go.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while recovered::path(&dir, DEAD).exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the recovered edits are still there 30 s after the open"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let region = next.engine().region(&record().encoded_name).expect("open");
    assert!(!region.holds_recovered_edits());
    assert!(region.metrics().store_files > 0, "flushed into a file");
}

#[test]
fn flushing_before_serving_removes_the_recovered_edits_at_open() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = write_die_and_split(tmp.path());
    let mut config = DbConfig::default();
    config.storage.flush_recovered_before_serving = true;
    let next = host_with(tmp.path(), "127.0.0.3,16020,2", config);
    let unflushed = next
        .host_open_recovering(record(), descriptor(), &[DEAD.to_string()])
        .expect("opens from the recovered edits");
    assert!(!unflushed);
    check_reopened(&next);
    assert!(
        !recovered::path(&dir, DEAD).exists(),
        "flushed, so the recovered edits are removed"
    );
}

#[test]
fn a_damaged_recovered_edits_file_is_passed_over_for_the_log() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = write_die_and_split(tmp.path());
    let file = recovered::path(&dir, DEAD);
    let mut bytes = std::fs::read(&file).expect("read");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xFF;
    std::fs::write(&file, bytes).expect("damaged");
    let next = host(tmp.path(), "127.0.0.3,16020,2");
    next.host_open_recovering(record(), descriptor(), &[DEAD.to_string()])
        .expect("opens from the log");
    check_reopened(&next);
}
