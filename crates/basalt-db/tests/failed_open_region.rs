//! One damaged store file fails its region alone: with the trailer, the index or the bloom
//! of one region's file damaged, the database opens, that region is FAILED_OPEN (its
//! requests fail at once with a `NotServingRegionException` naming the region and the
//! file, a scan reaching it fails rather than skip its rows), every other region and table
//! serves, the health report and hbck's verification name the file; once hbck sets the
//! file aside the region opens without its rows, and the loss is stated.

use crate::support;

use basalt_api::{ErrorKind, PreSplit, RegionState};
use basalt_db::hbck;
use basalt_db::DbConfig;
use basalt_types::{Get, Put, Scan, TableName};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::damage::{damage, store_files, Part};
use support::*;

const ROWS: [&str; 6] = ["a", "c", "k", "m", "q", "z"];
const NOT_SERVING: &str = "org.apache.hadoop.hbase.NotServingRegionException";

fn config() -> DbConfig {
    DbConfig {
        split_check_interval_ms: 3_600_000,
        ..DbConfig::default()
    }
}

fn name() -> TableName {
    TableName::parse("t").expect("valid")
}

/// Table `t` split at `m` and table `other`, flushed and closed; returns the store file of
/// `t`'s region `[m, )`, damaged in `part`.
fn damaged_store(dir: &Path, part: Part) -> PathBuf {
    let db = open(dir, config());
    db.admin
        .create_table(&descriptor("t", &["f"]), &PreSplit::Keys(vec!["m".into()]))
        .expect("create");
    db.admin
        .create_table(&descriptor("other", &["f"]), &PreSplit::None)
        .expect("create");
    for row in ROWS {
        db.table(&name())
            .put(&Put::new(row).add("f", "q", row))
            .expect("put");
    }
    db.table(&TableName::parse("other").expect("valid"))
        .put(&Put::new("o").add("f", "q", "v"))
        .expect("put");
    let high = db
        .admin
        .list_regions(&name())
        .expect("regions")
        .into_iter()
        .find(|r| r.start_key.as_ref() == b"m")
        .expect("region [m, )");
    db.db.close().expect("close");
    let files = store_files(&region_dir(dir, &name(), &high.encoded_name).join("f"));
    assert_eq!(files.len(), 1, "{files:?}");
    damage(&files[0], part);
    files[0].clone()
}

fn get(db: &Db, row: &str) -> basalt_api::Result<Option<String>> {
    let result = db.table(&name()).get(&Get::new(row.to_string()))?;
    Ok(result
        .value(b"f", b"q")
        .map(|v| String::from_utf8_lossy(v).into_owned()))
}

fn the_region_alone_fails(part: Part) {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = damaged_store(dir.path(), part);
    let file_name = file.display().to_string();

    let db = open(dir.path(), config());
    let regions = db.admin.list_regions(&name()).expect("regions");
    let states: Vec<_> = regions.iter().map(|r| r.state).collect();
    assert_eq!(states, [RegionState::Open, RegionState::FailedOpen]);
    let failure = regions[1].failure.as_deref().expect("a cause");
    assert!(failure.contains(&file_name), "{failure}");

    assert_eq!(get(&db, "c").expect("served").as_deref(), Some("c"));
    let started = Instant::now();
    let e = get(&db, "q").expect_err("the failed region");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "retried: {:?}",
        started.elapsed()
    );
    assert_eq!(e.exception, NOT_SERVING);
    assert_eq!(e.kind, ErrorKind::DataCorruption, "no client retries it");
    assert!(e.message.contains(&regions[1].region_name), "{e}");
    assert!(
        e.message.contains(&file_name) && e.message.contains("FAILED_OPEN"),
        "{e}"
    );
    let put = db.table(&name()).put(&Put::new("p").add("f", "q", "x"));
    assert_eq!(put.expect_err("writes fail too").exception, NOT_SERVING);

    // A scan returns the rows before the failed region, then its error: never a short
    // answer that looks complete.
    let mut rows = Vec::new();
    let mut error = None;
    for row in db.table(&name()).scan(&Scan::new()).expect("scan") {
        match row {
            Ok(row) => rows.push(String::from_utf8_lossy(row.row().expect("row")).into_owned()),
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    assert_eq!(rows, ["a", "c", "k"]);
    assert_eq!(error.expect("the scan fails").exception, NOT_SERVING);
    let other = db.table(&TableName::parse("other").expect("valid"));
    assert!(other
        .get(&Get::new("o"))
        .expect("served")
        .value(b"f", b"q")
        .is_some());
    drop(other);

    let health = db.db.health().expect("health");
    assert_eq!(health.failed_regions.len(), 1, "{health:?}");
    assert_eq!(
        health.failed_regions[0].file.as_deref(),
        Some(file_name.as_str())
    );
    db.db.close().expect("close");
    drop(db);

    let check = hbck::verify(dir.path()).expect("verify");
    let damaged: Vec<_> = check.problems.iter().map(|p| (&p.path, p.kind)).collect();
    assert_eq!(damaged, [(&file, hbck::FileKind::StoreFile)]);

    let loss = hbck::quarantine_store_file(dir.path(), &file, 1).expect("quarantine");
    assert!(
        loss.bytes > 0 && !file.exists() && loss.moved_to.exists(),
        "{loss:?}"
    );
    let stated = loss.to_string();
    assert!(
        stated.contains("no longer served") && stated.contains(&file_name),
        "{stated}"
    );

    let db = open(dir.path(), config());
    let regions = db.admin.list_regions(&name()).expect("regions");
    assert!(
        regions.iter().all(|r| r.state == RegionState::Open),
        "{regions:?}"
    );
    assert_eq!(get(&db, "c").expect("served").as_deref(), Some("c"));
    assert_eq!(
        get(&db, "q").expect("served now"),
        None,
        "the file's rows are gone"
    );
    let health = db.db.health().expect("health");
    assert!(health.failed_regions.is_empty(), "{health:?}");
    assert_eq!(health.quarantined.len(), 1);
    assert!(
        health.quarantined[0].reason.contains("damaged"),
        "{health:?}"
    );
    db.db.close().expect("close");
}

#[test]
fn a_damaged_trailer_fails_its_region_alone() {
    the_region_alone_fails(Part::Trailer);
}

#[test]
fn a_damaged_index_fails_its_region_alone() {
    the_region_alone_fails(Part::IndexRoot);
}

#[test]
fn a_damaged_bloom_fails_its_region_alone() {
    the_region_alone_fails(Part::Bloom);
}
