//! A region whose server died reopens on another server of the same store with every edit
//! of the dead server's log: read there and replayed; by default it serves at once and
//! keeps needing that log until its flush, and with `flush_recovered_before_serving` it
//! flushes before it serves, so a third server later opens it from its files alone. A log that cannot be found, or a name
//! that is not a server's, fails the open with a clear error instead of opening without
//! the edits.

use basalt_api::{Connection, ErrorKind};
use basalt_db::meta::record::{RegionRecord, RegionState};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_storage::fs::{FileSystem, LocalFs};
use basalt_types::{FamilyDescriptor, Get, Put, TableDescriptor, TableName};
use bytes::Bytes;
use std::path::Path;
use std::sync::Arc;

const DEAD: &str = "127.0.0.2,16020,1";

/// A region server's database named `name` over the shared folder `root`.
fn host(root: &Path, name: &str) -> Arc<Database> {
    host_with(root, name, DbConfig::default())
}

fn host_with(root: &Path, name: &str, config: DbConfig) -> Arc<Database> {
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let wal = root.join("wal").join(name);
    Database::open_host(fs, root, &wal, name, config).expect("open a host")
}

fn region() -> (RegionRecord, TableDescriptor) {
    let table = TableName::parse("t").expect("name");
    let record = RegionRecord::new(
        table.clone(),
        1,
        Bytes::new(),
        Bytes::new(),
        RegionState::Open,
    );
    let family = FamilyDescriptor::new("f").expect("family");
    (record, TableDescriptor::new(table, vec![family]))
}

fn rows() -> Vec<String> {
    (0..50).map(|i| format!("row{i:02}")).collect()
}

/// A server that opens the region, takes acknowledged writes, and dies without a flush
/// (its database is leaked: nothing closes or flushes it, as after kill -9).
fn write_and_die(root: &Path) {
    let (record, descriptor) = region();
    let dead = host(root, DEAD);
    dead.host_open(record, descriptor.clone())
        .expect("open on the first server");
    let table = EmbeddedConnection::new(dead.clone())
        .table(&descriptor.name)
        .expect("table");
    for row in rows() {
        table
            .put(&Put::new(row.clone()).add("f", "q", format!("v-{row}")))
            .expect("acknowledged");
    }
    std::mem::forget(table);
    std::mem::forget(dead);
}

fn assert_every_row(db: &Arc<Database>) {
    let (_, descriptor) = region();
    let table = EmbeddedConnection::new(db.clone())
        .table(&descriptor.name)
        .expect("table");
    for row in rows() {
        let got = table.get(&Get::new(row.clone())).expect("get");
        assert_eq!(
            got.value(b"f", b"q"),
            Some(format!("v-{row}").as_bytes()),
            "{row}"
        );
    }
}

#[test]
fn a_dead_servers_edits_come_back_and_are_flushed_before_the_region_serves() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_and_die(dir.path());
    let (record, descriptor) = region();

    let mut config = DbConfig::default();
    config.storage.flush_recovered_before_serving = true;
    let second = host_with(dir.path(), "127.0.0.3,16020,2", config);
    let needed = second
        .host_open_recovering(record.clone(), descriptor.clone(), &[DEAD.to_string()])
        .expect("reopens with the dead server's log");
    assert!(
        !needed,
        "its edits were flushed: the log is not needed any more"
    );
    assert_every_row(&second);
    // The second server dies too, before any flush of its own; a third server opens the
    // region without naming the first log: the edits are in the region's files.
    std::mem::forget(second);
    let third = host(dir.path(), "127.0.0.4,16020,3");
    third
        .host_open(record, descriptor)
        .expect("opens from its files");
    assert_every_row(&third);
}

#[test]
fn a_region_serving_its_dead_servers_edits_before_flushing_keeps_needing_that_log() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_and_die(dir.path());
    let (record, descriptor) = region();

    let second = host(dir.path(), "127.0.0.3,16020,2");
    let needed = second
        .host_open_recovering(record.clone(), descriptor.clone(), &[DEAD.to_string()])
        .expect("reopens with the dead server's log");
    assert!(
        needed,
        "it serves first: the dead log stays named until a flush"
    );
    assert_every_row(&second);
    // The second server dies too, flushed or not: a third server, told both logs (as the
    // master names them), has every row.
    std::mem::forget(second);
    let third = host(dir.path(), "127.0.0.4,16020,3");
    third
        .host_open_recovering(
            record,
            descriptor,
            &[DEAD.to_string(), "127.0.0.3,16020,2".to_string()],
        )
        .expect("opens with both logs");
    assert_every_row(&third);
}

#[test]
fn an_archived_log_is_read_from_old_wals() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_and_die(dir.path());
    std::fs::create_dir_all(dir.path().join("oldWALs")).expect("archive folder");
    std::fs::rename(
        dir.path().join("wal").join(DEAD),
        dir.path().join("oldWALs").join(DEAD),
    )
    .expect("archive the log");
    let (record, descriptor) = region();
    let second = host(dir.path(), "127.0.0.3,16020,2");
    second
        .host_open_recovering(record, descriptor, &[DEAD.to_string()])
        .expect("reads the archived log");
    assert_every_row(&second);
}

#[test]
fn a_missing_log_or_a_bad_name_fails_the_open_clearly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (record, descriptor) = region();
    let server = host(dir.path(), "127.0.0.3,16020,2");
    let missing = server
        .host_open_recovering(
            record.clone(),
            descriptor.clone(),
            &["127.0.0.9,16020,9".to_string()],
        )
        .expect_err("no such log");
    assert_eq!(missing.kind, ErrorKind::DataCorruption, "{missing}");
    assert!(
        missing.message.contains("127.0.0.9,16020,9") && missing.message.contains("oldWALs"),
        "{missing}"
    );
    assert!(
        server
            .hosted()
            .iter()
            .all(|h| h.record.encoded_name != record.encoded_name || h.region.is_none()),
        "not opened without its edits"
    );
    for bad in ["../x,1,1", "no-commas", "127.0.0.3,16020,2"] {
        let refused = server
            .host_open_recovering(record.clone(), descriptor.clone(), &[bad.to_string()])
            .expect_err("not another server's log");
        assert_eq!(refused.kind, ErrorKind::InvalidRequest, "{bad}: {refused}");
    }
}

/// The value of counter `row`/`f:n` on `db`.
fn counter(db: &Arc<Database>, row: &str) -> i64 {
    let (_, descriptor) = region();
    let table = EmbeddedConnection::new(db.clone())
        .table(&descriptor.name)
        .expect("table");
    let got = table.get(&Get::new(row.to_string())).expect("get");
    let value = got.value(b"f", b"n").expect("a counter");
    i64::from_be_bytes(value.as_ref().try_into().expect("8 bytes"))
}

#[test]
fn a_retried_increment_or_check_and_put_is_not_applied_again_on_the_regions_next_server() {
    use basalt_types::{
        Action, ActionResult, CheckAndMutate, CompareOp, Condition, Increment, Mutation, Nonce,
        RowMutations,
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let (record, descriptor) = region();
    let first_nonce = Nonce { group: 7, nonce: 1 };
    let cas_nonce = Nonce { group: 7, nonce: 2 };
    let increment = Action::Increment(Increment::new("c").add("f", "n", 5));
    let cas = Action::CheckAndMutate(CheckAndMutate {
        row: "k".into(),
        condition: Condition::Column {
            family: "f".into(),
            qualifier: "q".into(),
            op: CompareOp::Equal,
            expected: None,
        },
        time_range: basalt_types::TimeRange::ALL,
        mutations: RowMutations::new(
            "k",
            vec![Mutation::Put(Put::new("k").add("f", "q", "first"))],
        )
        .expect("one row"),
    });
    {
        // The first server applies both and dies before answering (as after kill -9).
        let dead = host(dir.path(), DEAD);
        dead.host_open(record.clone(), descriptor.clone())
            .expect("open");
        let table = EmbeddedConnection::new(dead.clone())
            .table(&descriptor.name)
            .expect("table");
        table.apply_once(&increment, first_nonce).expect("applied");
        let applied = table.apply_once(&cas, cas_nonce).expect("applied");
        assert!(matches!(
            applied,
            ActionResult::CheckAndMutate {
                succeeded: true,
                ..
            }
        ));
        std::mem::forget(table);
        std::mem::forget(dead);
    }
    let second = host(dir.path(), "127.0.0.3,16020,2");
    second
        .host_open_recovering(record, descriptor.clone(), &[DEAD.to_string()])
        .expect("reopens with the dead server's log");
    let table = EmbeddedConnection::new(second.clone())
        .table(&descriptor.name)
        .expect("table");
    // The client's retries, under the same nonces, reach the second server.
    for (action, nonce) in [(&increment, first_nonce), (&cas, cas_nonce)] {
        let refused = table
            .apply_once(action, nonce)
            .expect_err("already applied");
        assert_eq!(refused.kind, ErrorKind::InvalidRequest, "{refused}");
        assert_eq!(
            refused.exception, "org.apache.hadoop.hbase.exceptions.OperationConflictException",
            "{refused}"
        );
        assert!(refused.message.contains(&nonce.to_string()), "{refused}");
    }
    assert_eq!(counter(&second, "c"), 5, "the increment counted once");
    // A new operation (a new nonce) applies as usual.
    table
        .apply_once(&increment, Nonce { group: 7, nonce: 3 })
        .expect("a new increment");
    assert_eq!(counter(&second, "c"), 10);
}
