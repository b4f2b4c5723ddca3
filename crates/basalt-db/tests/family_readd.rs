//! A family deleted and added again starts empty, and a deleted family's references do
//! not keep a split parent's folder alive.

use crate::support;

use basalt_api::PreSplit;
use basalt_db::DbConfig;
use basalt_types::{FamilyDescriptor, Get, Put};
use support::*;

fn config() -> DbConfig {
    DbConfig {
        split_check_interval_ms: 3_600_000,
        ..DbConfig::default()
    }
}

#[test]
fn a_family_deleted_then_added_again_is_empty() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = open(dir.path(), config());
    let t = descriptor("fam", &["f", "h"]);
    db.admin.create_table(&t, &PreSplit::None).expect("create");
    let table = db.table(&t.name);
    table
        .put(&Put::new("r").add("f", "q", "keep").add("h", "q", "old"))
        .expect("put");
    db.admin.flush(&t.name).expect("flush");
    db.admin
        .delete_family(&t.name, b"h")
        .expect("delete family");
    let h = FamilyDescriptor::new("h").expect("valid family");
    db.admin
        .add_family(&t.name, &h)
        .expect("add the family again");
    let row = table.get(&Get::new("r")).expect("get");
    assert_eq!(row.value(b"f", b"q"), Some(&b"keep"[..]));
    assert_eq!(
        row.value(b"h", b"q"),
        None,
        "the deleted family's data came back"
    );
    table
        .put(&Put::new("r").add("h", "q", "new"))
        .expect("put in h");
    db.admin.flush(&t.name).expect("flush");
    drop(table);
    db.db.close().expect("close");
    drop(db);
    let db = open(dir.path(), config());
    let row = db.table(&t.name).get(&Get::new("r")).expect("get");
    assert_eq!(row.value(b"h", b"q"), Some(&b"new"[..]));
    db.db.close().expect("close");
}

#[test]
fn a_deleted_familys_references_do_not_keep_the_parent() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = open(dir.path(), config());
    let t = descriptor("famsplit", &["f", "h"]);
    db.admin.create_table(&t, &PreSplit::None).expect("create");
    let table = db.table(&t.name);
    for i in 0..20 {
        let row = format!("r{i:02}");
        table
            .put(&Put::new(row).add("f", "q", "x").add("h", "q", "y"))
            .expect("put");
    }
    db.admin.flush(&t.name).expect("flush");
    let parent = db.admin.list_regions(&t.name).expect("list")[0]
        .encoded_name
        .clone();
    db.admin.split(&t.name, Some(b"r10")).expect("split");
    db.admin
        .delete_family(&t.name, b"h")
        .expect("delete family");
    db.admin.compact(&t.name, true).expect("compact");
    db.admin.run_catalog_janitor().expect("janitor");
    assert!(
        !region_dir(dir.path(), &t.name, &parent).exists(),
        "the parent stays: a daughter's manifest still references it for the deleted family"
    );
    assert_eq!(scan_keys(table.as_ref(), false).expect("scan").len(), 20);
    db.db.close().expect("close");
}
