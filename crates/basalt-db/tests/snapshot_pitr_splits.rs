//! Point-in-time restore across splits and merges since the snapshot, on the embedded
//! database: write, snapshot, write, split, write to both daughters, merge them back
//! (the daughters then cleaned away by the janitor), write, split twice, write; then the
//! snapshot is restored to the time after each step and every row is compared with a
//! model of what was acknowledged by then. Every write stamps the same cell timestamp, so
//! only the order of the edits (a parent's before its daughters') decides which value a
//! row shows. A restore since the snapshot starts another history: rolling forward past
//! it is refused, naming the region it made.

use basalt_api::{Admin, Connection, PreSplit, SnapshotOptions};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_types::{FamilyDescriptor, Put, Scan, TableDescriptor, TableName};
use std::collections::BTreeMap;

type Model = BTreeMap<String, String>;

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as i64
}

/// The wall clock's millisecond now, once it has passed (so what follows is logged later).
fn cut() -> i64 {
    let ms = now_ms();
    while now_ms() <= ms {
        std::hint::spin_loop();
    }
    ms
}

fn row(i: usize) -> String {
    format!("row{i:02}")
}

/// Writes `value` to rows `rows` (all at cell timestamp 100) and into the model.
fn write(conn: &EmbeddedConnection, t: &TableName, model: &mut Model, rows: &[usize], value: &str) {
    let table = conn.table(t).expect("table");
    for &i in rows {
        table
            .put(&Put::new(row(i)).add_at("f", "q", 100, value))
            .expect("put");
        model.insert(row(i), value.to_string());
    }
}

fn read_all(conn: &EmbeddedConnection, t: &TableName) -> Model {
    let mut out = Model::new();
    for r in conn
        .table(t)
        .expect("table")
        .scan(&Scan::new())
        .expect("scan")
    {
        let r = r.expect("row");
        let key = String::from_utf8_lossy(r.row().expect("row")).into_owned();
        let value = r.value(b"f", b"q").expect("f:q");
        out.insert(key, String::from_utf8_lossy(value).into_owned());
    }
    out
}

fn regions(admin: &dyn Admin, t: &TableName) -> Vec<String> {
    let mut regions = admin.list_regions(t).expect("list");
    regions.sort_by(|a, b| a.start_key.cmp(&b.start_key));
    regions.into_iter().map(|r| r.encoded_name).collect()
}

#[test]
fn a_restore_rolls_forward_across_splits_and_merges_to_every_step() {
    let dir = tempfile::tempdir().expect("dir");
    let config = DbConfig {
        split_check_interval_ms: 3_600_000,
        ..DbConfig::default()
    };
    let db = Database::open(dir.path(), config).expect("open");
    let conn = EmbeddedConnection::new(db);
    let admin = conn.admin();
    let t = TableName::parse("lineage").expect("name");
    let mut d = TableDescriptor::new(t.clone(), vec![FamilyDescriptor::new("f").expect("f")]);
    d.metadata
        .insert(TableDescriptor::WAL_RETENTION_SECS.into(), "3600".into());
    admin.create_table(&d, &PreSplit::None).expect("create");
    let all: Vec<usize> = (0..20).collect();
    let mut model = Model::new();
    // (restore time, the rows acknowledged by then)
    let mut steps: Vec<(i64, Model)> = Vec::new();

    write(&conn, &t, &mut model, &all, "v0");
    admin
        .snapshot(&t, "s", &SnapshotOptions::default())
        .expect("snapshot");
    steps.push((cut(), model.clone()));
    write(&conn, &t, &mut model, &[0, 3, 12, 19, 20], "before-split");
    steps.push((cut(), model.clone()));

    admin.split(&t, Some(b"row10")).expect("split");
    let daughters = regions(admin.as_ref(), &t);
    assert_eq!(daughters.len(), 2, "{daughters:?}");
    write(&conn, &t, &mut model, &[3, 8, 12, 21], "daughters");
    steps.push((cut(), model.clone()));

    // Compacted (no references left to merge) and the parent cleaned away.
    admin.compact(&t, true).expect("compact");
    admin.run_catalog_janitor().expect("janitor");
    admin
        .merge_regions(&daughters[0], &daughters[1])
        .expect("merge");
    // The daughters go for good: compacted away, then cleaned by the janitor.
    admin.compact(&t, true).expect("compact");
    admin.run_catalog_janitor().expect("janitor");
    for gone in &daughters {
        assert!(
            !dir.path().join("data/default/lineage").join(gone).exists(),
            "daughter {gone} cleaned away"
        );
    }
    write(&conn, &t, &mut model, &[0, 3, 8, 12, 19], "merged");
    steps.push((cut(), model.clone()));

    admin.split(&t, Some(b"row05")).expect("split again");
    write(&conn, &t, &mut model, &[4, 6, 15], "split-once");
    admin.compact(&t, true).expect("compact");
    admin.split(&t, Some(b"row15")).expect("and again");
    assert_eq!(regions(admin.as_ref(), &t).len(), 3);
    write(&conn, &t, &mut model, &[1, 3, 8, 12, 16, 22], "split-twice");
    steps.push((cut(), model.clone()));
    assert_eq!(
        read_all(&conn, &t),
        model,
        "the live table matches the model"
    );

    // Latest first, then back to the snapshot's own time and forward again: each restore
    // reads the same kept logs and lineage.
    let order = [4, 0, 2, 1, 3];
    let mut restored = Vec::new();
    for &i in &order {
        let (to_ms, expected) = &steps[i];
        admin.disable_table(&t).expect("disable");
        admin
            .restore_snapshot_to("s", *to_ms)
            .unwrap_or_else(|e| panic!("restore to step {i}: {e}"));
        admin.enable_table(&t).expect("enable");
        assert_eq!(
            &read_all(&conn, &t),
            expected,
            "restored to step {i} ({to_ms})"
        );
        let now = regions(admin.as_ref(), &t);
        assert_eq!(now.len(), 1, "the snapshot's boundaries");
        restored.extend(now);
    }

    // The restores started another history: a time after them is refused, naming the
    // oldest region one of them made.
    write(&conn, &t, &mut model, &[5], "after-restore");
    let late = cut();
    admin.disable_table(&t).expect("disable");
    let refused = admin
        .restore_snapshot_to("s", late)
        .expect_err("another history since the snapshot");
    assert!(
        refused.message.contains(&restored[0]) && refused.message.contains("another history"),
        "{refused}"
    );
    admin.enable_table(&t).expect("enable");
    assert_eq!(
        read_all(&conn, &t).get("row05").map(String::as_str),
        Some("after-restore"),
        "left as it was"
    );
}

/// A flush logs a barrier carrying the region's last sequence id: the roll-forward reads
/// the edit, not the barrier in its place (the edit written just before a flush, or a
/// split, was once lost that way).
#[test]
fn the_edit_just_before_a_flush_is_rolled_forward() {
    let dir = tempfile::tempdir().expect("dir");
    let db = Database::open(dir.path(), DbConfig::default()).expect("open");
    let conn = EmbeddedConnection::new(db);
    let admin = conn.admin();
    let t = TableName::parse("flushed_last").expect("name");
    let mut d = TableDescriptor::new(t.clone(), vec![FamilyDescriptor::new("f").expect("f")]);
    d.metadata
        .insert(TableDescriptor::WAL_RETENTION_SECS.into(), "3600".into());
    admin.create_table(&d, &PreSplit::None).expect("create");
    let mut model = Model::new();
    write(&conn, &t, &mut model, &[0], "v0");
    admin
        .snapshot(&t, "s", &SnapshotOptions::default())
        .expect("snapshot");
    write(&conn, &t, &mut model, &[1, 2], "after");
    admin.flush(&t).expect("flush");
    let to_ms = cut();
    admin.disable_table(&t).expect("disable");
    admin.restore_snapshot_to("s", to_ms).expect("restore");
    admin.enable_table(&t).expect("enable");
    assert_eq!(read_all(&conn, &t), model);
}
