//! A damaged region manifest fails its region alone, keeps the region's unflushed log
//! edits, and is not something hbck will guess around: once the manifest is whole again,
//! an explicit reopen (disable and enable the table) opens the region with every row, the
//! replayed edits included.

use crate::support;

use basalt_api::{PreSplit, RegionState};
use basalt_db::hbck;
use basalt_db::DbConfig;
use basalt_types::{Get, Put, TableName};
use support::damage::flip;
use support::*;

fn config() -> DbConfig {
    DbConfig {
        split_check_interval_ms: 3_600_000,
        ..DbConfig::default()
    }
}

fn value(db: &Db, row: &str) -> basalt_api::Result<Option<String>> {
    let t = TableName::parse("t").expect("valid");
    let result = db.table(&t).get(&Get::new(row.to_string()))?;
    Ok(result
        .value(b"f", b"q")
        .map(|v| String::from_utf8_lossy(v).into_owned()))
}

#[test]
fn a_damaged_manifest_fails_its_region_and_an_explicit_reopen_recovers_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let t = descriptor("t", &["f"]);
    let manifest = {
        let db = open(dir.path(), config());
        db.admin
            .create_table(&t, &PreSplit::Keys(vec!["m".into()]))
            .expect("create");
        let table = db.table(&t.name);
        for row in ["c", "q"] {
            table.put(&Put::new(row).add("f", "q", row)).expect("put");
        }
        db.admin.flush(&t.name).expect("flush");
        // Written after the flush: only in the log when the process dies.
        table
            .put(&Put::new("r").add("f", "q", "unflushed"))
            .expect("put");
        let high = db.admin.list_regions(&t.name).expect("regions")[1].clone();
        region_dir(dir.path(), &t.name, &high.encoded_name).join("MANIFEST")
    };
    // A manifest is kept twice (MANIFEST, MANIFEST.2): the region fails when both are
    // damaged.
    let second = manifest.with_file_name("MANIFEST.2");
    let middle = std::fs::metadata(&manifest).expect("manifest").len() / 2;
    flip(&manifest, middle);
    flip(&second, middle);

    let db = open(dir.path(), config());
    let regions = db.admin.list_regions(&t.name).expect("regions");
    assert_eq!(regions[1].state, RegionState::FailedOpen);
    let cause = regions[1].failure.clone().expect("cause");
    assert!(cause.contains(&manifest.display().to_string()), "{cause}");
    assert_eq!(value(&db, "c").expect("served").as_deref(), Some("c"));
    let e = value(&db, "q").expect_err("failed region");
    assert!(e.message.contains("MANIFEST"), "{e}");

    let check = hbck::verify(dir.path()).expect("verify");
    assert_eq!(check.problems.len(), 1, "{:?}", check.problems);
    assert_eq!(check.problems[0].kind, hbck::FileKind::Manifest);
    let refused =
        hbck::quarantine_store_file(dir.path(), &manifest, 1).expect_err("not a store file");
    assert!(refused.message.contains("not a store file"), "{refused}");

    // The operator restores the manifest; disabling and enabling the table reopens it.
    flip(&manifest, middle);
    flip(&second, middle);
    db.admin.disable_table(&t.name).expect("disable");
    db.admin.enable_table(&t.name).expect("enable");
    assert!(db
        .admin
        .list_regions(&t.name)
        .expect("regions")
        .iter()
        .all(|r| r.state == RegionState::Open));
    assert_eq!(value(&db, "q").expect("served").as_deref(), Some("q"));
    assert_eq!(
        value(&db, "r").expect("served").as_deref(),
        Some("unflushed")
    );
    db.db.close().expect("close");
    drop(db);

    let db = open(dir.path(), config());
    assert_eq!(
        value(&db, "r").expect("served").as_deref(),
        Some("unflushed")
    );
    assert_eq!(db.db.health().expect("health").problem_count(), 0);
    db.db.close().expect("close");
}
