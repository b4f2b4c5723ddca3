//! Point-in-time restore on the embedded database, through the Admin API: a table keeping
//! its logs (`WAL_RETENTION_SECS`) restored from a snapshot to a time between two known
//! writes has the first and not the second; a table that did not keep its logs is refused
//! by name and left as it was; kept logs past their retention are removed, and a snapshot
//! older than what they held is refused.

use basalt_api::{Admin, Connection, PreSplit, SnapshotOptions};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_types::{FamilyDescriptor, Get, Put, TableDescriptor, TableName};

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as i64
}

/// Waits (on the clock itself) until the wall clock has passed `ms`.
fn after(ms: i64) {
    while now_ms() <= ms {
        std::hint::spin_loop();
    }
}

fn create(admin: &dyn Admin, name: &str, retention: Option<&str>) -> TableName {
    let table = TableName::parse(name).expect("name");
    let mut d = TableDescriptor::new(
        table.clone(),
        vec![FamilyDescriptor::new("f").expect("family")],
    );
    if let Some(secs) = retention {
        d.metadata
            .insert(TableDescriptor::WAL_RETENTION_SECS.into(), secs.into());
    }
    admin.create_table(&d, &PreSplit::None).expect("create");
    table
}

fn put(conn: &EmbeddedConnection, table: &TableName, row: &str, value: &str) {
    conn.table(table)
        .expect("table")
        .put(&Put::new(row.to_string()).add("f", "q", value))
        .expect("put");
}

fn value(conn: &EmbeddedConnection, table: &TableName, row: &str) -> Option<String> {
    let got = conn
        .table(table)
        .expect("table")
        .get(&Get::new(row.to_string()))
        .expect("get");
    got.value(b"f", b"q")
        .map(|v| String::from_utf8_lossy(v).into_owned())
}

#[test]
fn a_restore_to_a_time_between_two_writes_keeps_the_first_and_not_the_second() {
    let dir = tempfile::tempdir().expect("dir");
    let db = Database::open(dir.path(), DbConfig::default()).expect("open");
    let conn = EmbeddedConnection::new(db);
    let admin = conn.admin();
    let t = create(admin.as_ref(), "t", Some("3600"));
    put(&conn, &t, "r1", "v1");
    admin
        .snapshot(&t, "s", &SnapshotOptions::default())
        .expect("snapshot");
    put(&conn, &t, "r2", "first");
    let between = now_ms();
    after(between);
    put(&conn, &t, "r2", "second");
    put(&conn, &t, "r3", "second");
    let later = now_ms();
    after(later);

    admin.disable_table(&t).expect("disable");
    admin
        .restore_snapshot_to("s", between)
        .expect("restore to a time");
    admin.enable_table(&t).expect("enable");
    assert_eq!(value(&conn, &t, "r1").as_deref(), Some("v1"));
    assert_eq!(value(&conn, &t, "r2").as_deref(), Some("first"));
    assert_eq!(value(&conn, &t, "r3"), None);

    // Again, to after the second write: the kept log still holds it.
    admin.disable_table(&t).expect("disable");
    admin
        .restore_snapshot_to("s", later)
        .expect("restore to a later time");
    admin.enable_table(&t).expect("enable");
    assert_eq!(value(&conn, &t, "r2").as_deref(), Some("second"));
    assert_eq!(value(&conn, &t, "r3").as_deref(), Some("second"));

    // A table that did not keep its logs: refused by name, nothing changed.
    let p = create(admin.as_ref(), "plain", None);
    put(&conn, &p, "a", "1");
    admin
        .snapshot(&p, "p", &SnapshotOptions::default())
        .expect("snapshot");
    put(&conn, &p, "b", "2");
    admin.disable_table(&p).expect("disable");
    let refused = admin
        .restore_snapshot_to("p", now_ms())
        .expect_err("not kept");
    assert!(
        refused
            .message
            .contains("did not retain its logs when it was taken"),
        "{refused}"
    );
    admin.enable_table(&p).expect("enable");
    assert_eq!(
        value(&conn, &p, "b").as_deref(),
        Some("2"),
        "left as it was"
    );
}

fn put_at(conn: &EmbeddedConnection, table: &TableName, row: &str, ts: i64, value: &str) {
    conn.table(table)
        .expect("table")
        .put(&Put::new(row.to_string()).add_at("f", "q", ts, value))
        .expect("put");
}

/// The roll-forward picks edits by when they were logged, whatever timestamps their
/// cells carry: a cell stamped long before the snapshot, or far after the restore time,
/// but written between the two, is rolled forward; one stamped before the restore time
/// but written after it is not.
#[test]
fn a_restore_to_a_time_keeps_edits_logged_by_then_whatever_their_cell_timestamps() {
    let dir = tempfile::tempdir().expect("dir");
    let db = Database::open(dir.path(), DbConfig::default()).expect("open");
    let conn = EmbeddedConnection::new(db);
    let admin = conn.admin();
    let t = create(admin.as_ref(), "stamped", Some("3600"));
    put(&conn, &t, "r0", "before");
    put_at(&conn, &t, "same", 100, "in the snapshot");
    admin
        .snapshot(&t, "s", &SnapshotOptions::default())
        .expect("snapshot");
    let taken = now_ms();
    put_at(&conn, &t, "old", 5, "stamped in 1970");
    put_at(&conn, &t, "future", taken + 86_400_000, "stamped tomorrow");
    put_at(
        &conn,
        &t,
        "snapshot-time",
        taken - 1,
        "stamped at the snapshot",
    );
    put_at(&conn, &t, "same", 100, "written over, same timestamp");
    let cut = now_ms();
    after(cut);
    put_at(
        &conn,
        &t,
        "late",
        7,
        "written after the cut, stamped in 1970",
    );
    put_at(
        &conn,
        &t,
        "late-now",
        cut - 1,
        "written after the cut, stamped before",
    );
    after(now_ms());

    admin.disable_table(&t).expect("disable");
    admin.restore_snapshot_to("s", cut).expect("restore");
    admin.enable_table(&t).expect("enable");
    assert_eq!(value(&conn, &t, "r0").as_deref(), Some("before"));
    assert_eq!(value(&conn, &t, "old").as_deref(), Some("stamped in 1970"));
    assert_eq!(
        value(&conn, &t, "future").as_deref(),
        Some("stamped tomorrow")
    );
    assert_eq!(
        value(&conn, &t, "snapshot-time").as_deref(),
        Some("stamped at the snapshot")
    );
    assert_eq!(
        value(&conn, &t, "same").as_deref(),
        Some("written over, same timestamp"),
        "the later write of one timestamp wins, as it did before the restore"
    );
    assert_eq!(value(&conn, &t, "late"), None, "logged after the cut");
    assert_eq!(value(&conn, &t, "late-now"), None, "logged after the cut");
}

/// The kept edits outlive their flush and a clean close: the flushed log segments were
/// archived, not deleted, and a restore after a reopen still finds them (and their times).
#[test]
fn a_restore_after_a_flush_and_a_reopen_still_finds_the_kept_edits() {
    let dir = tempfile::tempdir().expect("dir");
    let (t, cut) = {
        let db = Database::open(dir.path(), DbConfig::default()).expect("open");
        let conn = EmbeddedConnection::new(db.clone());
        let admin = conn.admin();
        let t = create(admin.as_ref(), "flushed", Some("3600"));
        put(&conn, &t, "r0", "before");
        admin
            .snapshot(&t, "s", &SnapshotOptions::default())
            .expect("snapshot");
        put_at(&conn, &t, "old", 5, "stamped in 1970");
        put(&conn, &t, "r1", "after");
        let cut = now_ms();
        after(cut);
        put(&conn, &t, "late", "after the cut");
        admin.flush(&t).expect("flush");
        db.close().expect("close");
        (t, cut)
    };
    let db = Database::open(dir.path(), DbConfig::default()).expect("reopen");
    let conn = EmbeddedConnection::new(db);
    let admin = conn.admin();
    admin.disable_table(&t).expect("disable");
    admin.restore_snapshot_to("s", cut).expect("restore");
    admin.enable_table(&t).expect("enable");
    assert_eq!(value(&conn, &t, "r0").as_deref(), Some("before"));
    assert_eq!(value(&conn, &t, "r1").as_deref(), Some("after"));
    assert_eq!(value(&conn, &t, "old").as_deref(), Some("stamped in 1970"));
    assert_eq!(value(&conn, &t, "late"), None, "logged after the cut");
}

/// Segments in `DIR/oldWALs/retained/local/` (the embedded database's kept log).
fn kept_segments(root: &std::path::Path) -> Vec<String> {
    match std::fs::read_dir(root.join("oldWALs/retained/local")) {
        Ok(entries) => entries
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Kept logs go once they are older than every table's retention: the split checker's
/// pass removes them (logged) and writes the expiry's watermark, and a snapshot taken
/// before it can no longer be rolled forward — even one its own retention rule would
/// allow (taken under a longer retention): refused, not restored with edits missing.
#[test]
fn kept_logs_past_their_retention_are_removed_and_older_snapshots_are_refused() {
    let dir = tempfile::tempdir().expect("dir");
    // Tiny log segments, so that flushed ones are closed and kept; the expiry runs with
    // the split checker (off, then every 50 ms).
    let config = |check_ms: u64| {
        let mut config = DbConfig {
            split_check_interval_ms: check_ms,
            ..DbConfig::default()
        };
        config.storage.wal_segment_size_bytes = 1;
        config
    };
    let t = {
        let db = Database::open(dir.path(), config(3_600_000)).expect("open");
        let conn = EmbeddedConnection::new(db.clone());
        let admin = conn.admin();
        let t = create(admin.as_ref(), "brief", Some("3600"));
        put(&conn, &t, "r0", "before");
        admin
            .snapshot(&t, "s", &SnapshotOptions::default())
            .expect("snapshot");
        let after_snapshot = now_ms();
        put(&conn, &t, "r1", "after");
        admin.flush(&t).expect("flush");
        db.close().expect("close");
        (t, after_snapshot)
    };
    let (t, after_snapshot) = t;
    let kept = kept_segments(dir.path());
    assert!(
        !kept.is_empty(),
        "the flushed segments were kept (archived), not deleted"
    );
    let db = Database::open(dir.path(), config(50)).expect("reopen");
    let conn = EmbeddedConnection::new(db);
    let admin = conn.admin();
    // The retention shortened: the kept logs now go once 3 s old. The snapshot was taken
    // under an hour's retention, so by its own rule it is young enough to roll forward.
    let mut shorter = admin.describe_table(&t).expect("describe");
    shorter
        .metadata
        .insert(TableDescriptor::WAL_RETENTION_SECS.into(), "3".into());
    admin.modify_table(&shorter).expect("modify");
    // The oldest kept segments, holding the edits and their time marks, go first. A
    // segment holding no mark (only a flush's or a close's records: on a busy machine the
    // close's records can take several) takes the time of the next mark archived after
    // it, so it may stay: a write and a flush now give the later ones a mark to wait for.
    put(&conn, &t, "r2", "later");
    admin.flush(&t).expect("flush");
    let mut kept = kept;
    kept.sort();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let watermark = dir.path().join("oldWALs/retained/EXPIRED_BEFORE");
    // Until the segment holding r1's edit (marked after the snapshot) is gone: the oldest
    // segments, from before the snapshot, may go in an earlier pass, and then a roll
    // forward is still whole (and allowed).
    let past_snapshot = |path: &std::path::Path| {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|t| t.trim().parse::<i64>().ok())
            .is_some_and(|ms| ms >= after_snapshot)
    };
    while !past_snapshot(&watermark) || kept_segments(dir.path()).contains(&kept[0]) {
        assert!(
            std::time::Instant::now() < deadline,
            "kept segments still there 30 s on: {:?} of {kept:?}; watermark {:?}",
            kept_segments(dir.path()),
            std::fs::read_to_string(&watermark).ok()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let left = kept_segments(dir.path());
    let gone: Vec<&String> = kept.iter().filter(|s| !left.contains(s)).collect();
    let stayed: Vec<&String> = kept.iter().filter(|s| left.contains(s)).collect();
    assert!(
        stayed.iter().all(|s| gone.iter().all(|g| g < s)),
        "the oldest go first: gone {gone:?}, stayed {stayed:?}"
    );
    let watermark = std::fs::read_to_string(&watermark).expect("the expiry wrote its watermark");
    assert!(watermark.trim().parse::<u64>().is_ok(), "{watermark:?}");

    // But the logs it needs are gone, and the watermark says so.
    admin.disable_table(&t).expect("disable");
    let refused = admin
        .restore_snapshot_to("s", now_ms())
        .expect_err("the edits after the snapshot are gone");
    assert!(refused.message.contains("expired"), "{refused:?}");
    admin.enable_table(&t).expect("enable");
    assert_eq!(
        value(&conn, &t, "r1").as_deref(),
        Some("after"),
        "left as it was"
    );
}
