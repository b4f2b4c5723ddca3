//! DDL and namespaces end to end, `hbase:meta` as a scannable table, the data-folder lock,
//! and the clear errors bad input gets.

use crate::basics;

use basalt_api::{Connection, ErrorKind, PreSplit};
use basalt_db::{Database, DbConfig};
use basalt_types::{FamilyDescriptor, Get, NamespaceDescriptor, Put, Scan, TableDescriptor};
use basics::*;
use bytes::Bytes;

#[test]
fn table_lifecycle_create_alter_disable_enable_truncate_drop() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_db, conn) = open(dir.path());
    let admin = admin(&conn);
    admin
        .create_table(
            &descriptor("t1", &["f1"]),
            &PreSplit::Keys(vec!["m".into()]),
        )
        .expect("create");
    admin
        .create_table(&descriptor("t2", &["f1"]), &PreSplit::None)
        .expect("create");
    assert_eq!(
        admin.list_tables(None).expect("list"),
        [name("t1"), name("t2")]
    );
    assert_eq!(
        admin.list_tables(Some("t[2-9]")).expect("list"),
        [name("t2")]
    );
    let t1 = table(&conn, "t1");
    t1.put(&Put::new("a").add("f1", "q", "1")).expect("put");
    t1.put(&Put::new("z").add("f1", "q", "2")).expect("put");

    // Alter while online: add a family, change an option, delete a family.
    let mut f2 = FamilyDescriptor::new("f2").expect("valid");
    f2.max_versions = 5;
    admin.add_family(&name("t1"), &f2).expect("add family");
    t1.put(&Put::new("a").add("f2", "v", "x"))
        .expect("put into the new family");
    assert_eq!(
        admin
            .describe_table(&name("t1"))
            .expect("describe")
            .family(b"f2")
            .map(|f| f.max_versions),
        Some(5)
    );
    admin
        .delete_family(&name("t1"), b"f2")
        .expect("delete family");
    let err = t1
        .put(&Put::new("a").add("f2", "v", "x"))
        .expect_err("family gone");
    assert_eq!(
        err.message,
        "Unknown column family! Valid column names: f1:*"
    );
    assert_eq!(
        scan_rows(t1.as_ref(), &Scan::new()).len(),
        2,
        "data survives the alter"
    );

    admin.disable_table(&name("t1")).expect("disable");
    assert!(!admin.is_table_enabled(&name("t1")).expect("state"));
    let err = t1.get(&Get::new("a")).expect_err("disabled");
    assert_eq!(err.short_name(), "TableNotEnabledException");
    assert_eq!(err.message, "t1 is disabled.");
    admin.enable_table(&name("t1")).expect("enable");
    assert_eq!(scan_rows(t1.as_ref(), &Scan::new()).len(), 2);

    admin.disable_table(&name("t1")).expect("disable");
    admin
        .truncate_table(&name("t1"), true)
        .expect("truncate preserving splits");
    assert!(admin.is_table_enabled(&name("t1")).expect("state"));
    assert!(scan_rows(t1.as_ref(), &Scan::new()).is_empty());
    let starts: Vec<Bytes> = admin
        .list_regions(&name("t1"))
        .expect("regions")
        .into_iter()
        .map(|r| r.start_key)
        .collect();
    assert_eq!(starts, [Bytes::new(), Bytes::from_static(b"m")]);

    let err = admin
        .delete_table(&name("t1"))
        .expect_err("enabled table cannot be dropped");
    assert_eq!(err.short_name(), "TableNotDisabledException");
    admin.disable_table(&name("t1")).expect("disable");
    admin.delete_table(&name("t1")).expect("drop");
    assert!(!admin.table_exists(&name("t1")).expect("exists"));
    assert!(
        !dir.path().join("data/default/t1").exists(),
        "the table's folder is gone"
    );
    let err = conn.table(&name("t1")).err().expect("dropped");
    assert_eq!(
        (err.short_name(), err.message.as_str()),
        ("TableNotFoundException", "t1")
    );
}

#[test]
fn namespaces() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_db, conn) = open(dir.path());
    let admin = admin(&conn);
    let names: Vec<String> = admin
        .list_namespaces()
        .expect("list")
        .into_iter()
        .map(|n| n.name)
        .collect();
    assert_eq!(names, ["default", "hbase"]);
    let mut ns = NamespaceDescriptor::new("analytics").expect("valid");
    ns.properties.insert("owner".into(), "data-team".into());
    admin.create_namespace(&ns).expect("create namespace");
    assert_eq!(admin.describe_namespace("analytics").expect("describe"), ns);
    assert_eq!(
        admin
            .create_namespace(&ns)
            .expect_err("exists")
            .short_name(),
        "NamespaceExistException"
    );
    admin
        .create_table(&descriptor("analytics:events", &["e"]), &PreSplit::None)
        .expect("create in namespace");
    let err = admin.delete_namespace("analytics").expect_err("not empty");
    assert_eq!(
        err.message,
        "Only empty namespaces can be removed. Namespace analytics has 1 tables"
    );
    let err = admin
        .create_table(&descriptor("nope:t", &["e"]), &PreSplit::None)
        .expect_err("no namespace");
    assert_eq!(err.short_name(), "NamespaceNotFoundException");
    admin
        .disable_table(&name("analytics:events"))
        .expect("disable");
    admin.delete_table(&name("analytics:events")).expect("drop");
    admin.delete_namespace("analytics").expect("drop namespace");
    assert!(admin.delete_namespace("default").is_err());
}

#[test]
fn hbase_meta_is_a_table_readers_can_scan_but_not_write() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_db, conn) = open(dir.path());
    admin(&conn)
        .create_table(&descriptor("t", &["f"]), &PreSplit::Keys(vec!["k".into()]))
        .expect("create");
    let meta = table(&conn, "hbase:meta");
    let rows = row_keys(&scan_rows(meta.as_ref(), &Scan::new().family("info")));
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(
        rows[0].starts_with("t,,") && rows[1].starts_with("t,k,"),
        "{rows:?}"
    );
    let state = scan_rows(
        meta.as_ref(),
        &Scan::new().start("t").stop("t\0").column("table", "state"),
    );
    assert_eq!(
        state[0].value(b"table", b"state").map(|v| v.to_vec()),
        Some(b"ENABLED".to_vec())
    );
    let err = meta
        .put(&Put::new("x").add("info", "q", "v"))
        .expect_err("read-only");
    assert_eq!(err.kind, ErrorKind::InvalidRequest);
    assert!(admin(&conn).disable_table(&name("hbase:meta")).is_err());
}

#[test]
fn bad_input_gets_clear_errors_and_leaves_nothing_half_created() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_db, conn) = open(dir.path());
    let admin = admin(&conn);
    admin
        .create_table(&descriptor("t", &["f1", "f2"]), &PreSplit::None)
        .expect("create");
    let err = admin
        .create_table(&descriptor("t", &["f1"]), &PreSplit::None)
        .expect_err("exists");
    assert_eq!(
        (err.short_name(), err.message.as_str()),
        ("TableExistsException", "t")
    );
    let err = table(&conn, "t")
        .put(&Put::new("r").add("x", "q", "v"))
        .expect_err("unknown family");
    assert_eq!(
        err.message,
        "Unknown column family! Valid column names: f1:*, f2:*"
    );
    assert!(admin
        .create_table(&descriptor("empty", &[]), &PreSplit::None)
        .is_err());
    let dup = PreSplit::Keys(vec!["a".into(), "b".into(), "a".into()]);
    let err = admin
        .create_table(&descriptor("dup", &["f"]), &dup)
        .expect_err("duplicate split key");
    assert!(err.message.contains("unique"), "{}", err.message);
    for bad in [".hidden", "-dash", "sp ace", "a/b"] {
        assert!(basalt_types::TableName::parse(bad).is_err(), "{bad}");
    }
    assert_eq!(
        admin.list_tables(None).expect("list"),
        [name("t")],
        "nothing half-created"
    );

    let mut read_only = descriptor("ro", &["f"]);
    read_only.read_only = true;
    admin
        .create_table(&read_only, &PreSplit::None)
        .expect("create");
    let err = table(&conn, "ro")
        .put(&Put::new("r").add("f", "q", "v"))
        .expect_err("read-only");
    assert!(err.message.contains("read-only"), "{}", err.message);
}

#[test]
fn one_process_at_a_time_opens_a_data_folder() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (db, _conn) = open(dir.path());
    let err = Database::open(dir.path(), DbConfig::default()).expect_err("locked");
    assert!(
        err.message.contains("in use by another process"),
        "{}",
        err.message
    );
    db.close().expect("close");
    drop(db);
    drop(_conn);
    let reopened = Database::open(dir.path(), DbConfig::default()).expect("free again");
    let descriptor: TableDescriptor = descriptor("after", &["f"]);
    basalt_db::EmbeddedConnection::new(reopened)
        .admin()
        .create_table(&descriptor, &PreSplit::None)
        .expect("usable");
}

#[test]
fn flush_and_compact_one_region_or_one_family() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (db, conn) = open(dir.path());
    let admin = admin(&conn);
    admin
        .create_table(
            &descriptor("t", &["a", "b"]),
            &PreSplit::Keys(vec!["m".into()]),
        )
        .expect("create");
    let t = table(&conn, "t");
    let regions = admin.list_regions(&name("t")).expect("regions");
    let files = |encoded: &str| {
        db.engine()
            .region(encoded)
            .expect("open region")
            .store_file_counts()
    };
    for round in 0..2 {
        for row in ["c", "x"] {
            t.put(
                &Put::new(row)
                    .add("a", "q", format!("{round}"))
                    .add("b", "q", "v"),
            )
            .expect("put");
        }
        admin
            .flush_region(&regions[0].encoded_name)
            .expect("flush one region by encoded name");
    }
    let (low, high) = (&regions[0].encoded_name, &regions[1].encoded_name);
    assert_eq!(
        files(low),
        [(Bytes::from_static(b"a"), 2), (Bytes::from_static(b"b"), 2)]
    );
    assert_eq!(
        files(high),
        [(Bytes::from_static(b"a"), 0), (Bytes::from_static(b"b"), 0)],
        "the other region was not flushed"
    );
    admin
        .compact_region(&regions[0].region_name, Some(b"a"), true)
        .expect("major-compact one family by full name");
    assert_eq!(
        files(low),
        [(Bytes::from_static(b"a"), 1), (Bytes::from_static(b"b"), 2)]
    );
    admin.flush(&name("t")).expect("flush table");
    admin
        .compact_family(&name("t"), b"b", true)
        .expect("major-compact family b everywhere");
    assert_eq!(files(low)[1].1, 1);
    assert_eq!(files(high)[1].1, 1);
    let err = admin
        .flush_region("no-such-region")
        .expect_err("unknown region");
    assert_eq!(err.short_name(), "UnknownRegionException");
    assert_eq!(
        t.get(&Get::new("c"))
            .expect("get")
            .value(b"a", b"q")
            .map(|v| v.to_vec()),
        Some(b"1".to_vec())
    );
}
