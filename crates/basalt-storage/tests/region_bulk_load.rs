//! Bulk loads into one region: files written beside the stores, adopted at once, read like
//! any other file, ordered by their sequence id, durable, and never half visible.

use crate::support;

use basalt_storage::region::bulk_load::{BulkLoad, BulkLoadOutcome, FILES_PER_FAMILY_DEFAULT_MAX};
use basalt_storage::{ErrorKind, Region, RegionInfo, StorageConfig};
use basalt_types::{Cell, Delete, Get, Put, Scan, LATEST_TIMESTAMP};
use std::collections::BTreeMap;
use support::*;

fn cell(row: &str, family: &str, qualifier: &str, ts: i64, value: &str) -> Cell {
    Cell::put(row, family, qualifier, ts, value)
}

/// Writes `cells` (in cell order within each family) as one file per family.
fn write(region: &Region, load: &mut BulkLoad, cells: Vec<Cell>) {
    let mut writers = BTreeMap::new();
    for cell in cells {
        let family = cell.family_bytes();
        let writer = match writers.entry(family.clone()) {
            std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::btree_map::Entry::Vacant(e) => e.insert(
                region
                    .create_bulk_file(load, &family)
                    .expect("bulk file opens"),
            ),
        };
        writer.append(cell).expect("cell appended");
    }
    for (_, writer) in writers {
        region
            .finish_bulk_file(load, writer)
            .expect("bulk file finished");
    }
}

fn load(region: &Region, cells: Vec<Cell>) -> BulkLoadOutcome {
    let mut bulk = region
        .begin_bulk_load(FILES_PER_FAMILY_DEFAULT_MAX)
        .expect("load begins");
    write(region, &mut bulk, cells);
    region.commit_bulk_load(bulk).expect("load commits")
}

fn value(region: &Region, row: &str, family: &str, qualifier: &str) -> Option<String> {
    let got = region
        .get(&Get::new(row.to_string()).column(family.to_string(), qualifier.to_string()))
        .expect("get");
    got.value(family.as_bytes(), qualifier.as_bytes())
        .map(|v| String::from_utf8_lossy(v).into_owned())
}

#[test]
fn loaded_cells_are_read_by_gets_and_scans_both_ways() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["a", "b"]));
    let mut cells = Vec::new();
    for i in 0..200 {
        let row = format!("row{i:04}");
        cells.push(cell(&row, "a", "x", 5, &format!("a{i}")));
        cells.push(cell(&row, "a", "y", 5, &format!("ay{i}")));
        cells.push(cell(&row, "b", "z", 5, &format!("b{i}")));
    }
    let outcome = load(&region, cells);
    assert_eq!((outcome.files, outcome.cells), (2, 600));
    assert!(!outcome.rewritten);
    assert_eq!(value(&region, "row0042", "a", "y").as_deref(), Some("ay42"));
    assert_eq!(value(&region, "row0199", "b", "z").as_deref(), Some("b199"));
    let forward = scan_all(&region, &Scan::new());
    assert_eq!(forward.len(), 200);
    assert_eq!(
        show_rows(&forward[..1]),
        ["row0000/a:x@5=a0", "row0000/a:y@5=ay0", "row0000/b:z@5=b0"]
    );
    let reversed = scan_all(&region, &Scan::new().reversed(true));
    assert_eq!(reversed.len(), 200);
    assert_eq!(
        show_rows(&reversed[..1]),
        [
            "row0199/a:x@5=a199",
            "row0199/a:y@5=ay199",
            "row0199/b:z@5=b199"
        ]
    );
    let ranged = scan_all(
        &region,
        &Scan::new().start("row0010").stop("row0020").family("b"),
    );
    assert_eq!(ranged.len(), 10);
    assert_eq!(
        region
            .store_file_counts()
            .iter()
            .map(|(_, n)| n)
            .sum::<usize>(),
        2
    );
}

#[test]
fn nothing_is_visible_before_the_commit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["cf"]));
    let mut bulk = region.begin_bulk_load(4).expect("begins");
    write(&region, &mut bulk, vec![cell("r1", "cf", "q", 1, "v")]);
    assert!(scan_all(&region, &Scan::new()).is_empty());
    assert_eq!(bulk.file_count(), 1);
    region.commit_bulk_load(bulk).expect("commits");
    assert_eq!(value(&region, "r1", "cf", "q").as_deref(), Some("v"));
}

/// HBase's rule: a load orders after every write committed before it (its cells win at
/// equal coordinates) and before every write after it.
#[test]
fn the_load_orders_between_earlier_and_later_writes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["cf"]));
    region
        .put(&Put::new("flushed").add_at("cf", "q", 5, "put"))
        .expect("put");
    region.flush().expect("flush");
    region
        .put(&Put::new("memstore").add_at("cf", "q", 5, "put"))
        .expect("put");
    load(
        &region,
        vec![
            cell("flushed", "cf", "q", 5, "loaded"),
            cell("later", "cf", "q", 5, "loaded"),
            cell("memstore", "cf", "q", 5, "loaded"),
        ],
    );
    for row in ["flushed", "memstore", "later"] {
        assert_eq!(
            value(&region, row, "cf", "q").as_deref(),
            Some("loaded"),
            "{row}"
        );
    }
    region
        .put(&Put::new("later").add_at("cf", "q", 5, "put after"))
        .expect("put");
    assert_eq!(
        value(&region, "later", "cf", "q").as_deref(),
        Some("put after")
    );
    region.flush().expect("flush");
    region.compact(true).expect("major compaction");
    assert_eq!(
        value(&region, "later", "cf", "q").as_deref(),
        Some("put after")
    );
    assert_eq!(
        value(&region, "memstore", "cf", "q").as_deref(),
        Some("loaded")
    );
}

#[test]
fn writes_during_the_load_order_before_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["cf"]));
    let mut bulk = region.begin_bulk_load(4).expect("begins");
    write(&region, &mut bulk, vec![cell("r1", "cf", "q", 5, "loaded")]);
    // Written after the load began, before it commits: HBase assigns the load's id at
    // the commit, so the load wins.
    region
        .put(&Put::new("r1").add_at("cf", "q", 5, "concurrent"))
        .expect("put");
    let outcome = region.commit_bulk_load(bulk).expect("commits");
    assert!(outcome.rewritten, "the files take an id above the put's");
    assert_eq!(value(&region, "r1", "cf", "q").as_deref(), Some("loaded"));
    assert!(outcome.seq_id > 2);
    assert_eq!(region.last_seq(), outcome.seq_id);
    region
        .put(&Put::new("r1").add_at("cf", "q", 5, "after"))
        .expect("put");
    assert_eq!(value(&region, "r1", "cf", "q").as_deref(), Some("after"));
    // Only the rewritten file is left in the family folder.
    region.flush().expect("flush");
    let family_dir = region.dir().join("cf");
    let files: Vec<_> = std::fs::read_dir(&family_dir)
        .expect("family folder")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "hfile"))
        .collect();
    assert_eq!(files.len(), 2, "the loaded file and the flushed one");
}

#[test]
fn bad_input_is_refused_with_a_clear_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let info = RegionInfo {
        name: "r1".into(),
        start_key: "b".into(),
        end_key: "m".into(),
    };
    let region = engine.open_region(info, table(&["cf"])).expect("opens");
    let bulk = region.begin_bulk_load(4).expect("begins");
    let mut writer = region.create_bulk_file(&bulk, b"cf").expect("opens");
    writer.append(cell("c", "cf", "q", 5, "v")).expect("first");
    let unsorted = writer
        .append(cell("b", "cf", "q", 5, "v"))
        .expect_err("unsorted");
    assert_eq!(unsorted.kind(), ErrorKind::InvalidRequest);
    assert!(unsorted.to_string().contains("not sorted"), "{unsorted}");
    let twice = writer
        .append(cell("c", "cf", "q", 5, "w"))
        .expect_err("twice");
    assert!(twice.to_string().contains("twice"), "{twice}");
    let outside = writer
        .append(cell("x", "cf", "q", 5, "v"))
        .expect_err("outside");
    assert_eq!(outside.kind(), ErrorKind::WrongRegion);
    let family = writer
        .append(cell("d", "other", "q", 5, "v"))
        .expect_err("family");
    assert!(family.to_string().contains("family"), "{family}");
    let latest = writer
        .append(cell("d", "cf", "q", LATEST_TIMESTAMP, "v"))
        .expect_err("latest");
    assert!(latest.to_string().contains("timestamp"), "{latest}");
    assert_eq!(
        region
            .create_bulk_file(&bulk, b"nope")
            .expect_err("family")
            .kind(),
        ErrorKind::InvalidRequest
    );
    // The good cell still commits.
    let mut bulk = bulk;
    region
        .finish_bulk_file(&mut bulk, writer)
        .expect("finishes");
    region.commit_bulk_load(bulk).expect("commits");
    assert_eq!(value(&region, "c", "cf", "q").as_deref(), Some("v"));
}

#[test]
fn files_per_family_are_limited() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["cf"]));
    let mut bulk = region.begin_bulk_load(2).expect("begins");
    for row in ["a", "b"] {
        let mut writer = region.create_bulk_file(&bulk, b"cf").expect("opens");
        writer.append(cell(row, "cf", "q", 1, "v")).expect("append");
        region
            .finish_bulk_file(&mut bulk, writer)
            .expect("finishes");
    }
    let err = region
        .create_bulk_file(&bulk, b"cf")
        .expect_err("third file");
    assert!(err.to_string().contains("perRegion.perFamily"), "{err}");
    region.abort_bulk_load(bulk);
    assert!(scan_all(&region, &Scan::new()).is_empty());
    let staging = region.dir().join("cf").join(".tmp");
    assert_eq!(std::fs::read_dir(staging).expect("staging").count(), 0);
}

#[test]
fn a_committed_load_survives_a_restart_and_later_writes_still_win() {
    let dir = tempfile::tempdir().expect("temp dir");
    {
        let engine = open_engine(dir.path(), Default::default());
        let region = open_region(&engine, table(&["cf"]));
        region
            .put(&Put::new("logged").add_at("cf", "q", 5, "put"))
            .expect("put");
        load(
            &region,
            vec![
                cell("loaded", "cf", "q", 5, "v"),
                cell("logged", "cf", "q", 5, "loaded"),
            ],
        );
        // Dropped without a close or flush: the put lives only in the log.
    }
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["cf"]));
    assert_eq!(value(&region, "loaded", "cf", "q").as_deref(), Some("v"));
    assert_eq!(
        value(&region, "logged", "cf", "q").as_deref(),
        Some("loaded")
    );
    region
        .put(&Put::new("loaded").add_at("cf", "q", 5, "after"))
        .expect("put");
    assert_eq!(
        value(&region, "loaded", "cf", "q").as_deref(),
        Some("after")
    );
}

#[test]
fn an_uncommitted_load_leaves_nothing_after_a_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let staging;
    {
        let engine = open_engine(dir.path(), Default::default());
        let region = open_region(&engine, table(&["cf"]));
        let mut bulk = region.begin_bulk_load(4).expect("begins");
        write(&region, &mut bulk, vec![cell("r1", "cf", "q", 1, "v")]);
        staging = region.dir().join("cf").join(".tmp");
        assert_eq!(std::fs::read_dir(&staging).expect("staging").count(), 1);
        // The process dies before the commit.
        std::mem::forget(bulk);
    }
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["cf"]));
    assert!(scan_all(&region, &Scan::new()).is_empty());
    assert!(!staging.exists(), "the staged file was removed at open");
}

#[test]
fn a_closed_region_refuses_the_commit_and_drops_the_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["cf"]));
    let mut bulk = region.begin_bulk_load(4).expect("begins");
    write(&region, &mut bulk, vec![cell("r1", "cf", "q", 1, "v")]);
    region.close().expect("close");
    let err = region.commit_bulk_load(bulk).expect_err("closed");
    assert_eq!(err.kind(), ErrorKind::Unavailable);
    let staging = region.dir().join("cf").join(".tmp");
    assert_eq!(std::fs::read_dir(staging).expect("staging").count(), 0);
}

#[test]
fn loaded_files_compact_with_the_rest() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["cf"]));
    for batch in 0..3 {
        let cells = (0..50)
            .map(|i| cell(&format!("r{i:03}"), "cf", &format!("q{batch}"), 1, "v"))
            .collect();
        load(&region, cells);
    }
    region
        .put(&Put::new("r000").add_at("cf", "q9", 1, "put"))
        .expect("put");
    region.flush().expect("flush");
    region.compact(true).expect("major compaction");
    assert_eq!(region.store_file_counts(), [("cf".into(), 1)]);
    let rows = scan_all(&region, &Scan::new());
    assert_eq!(rows.len(), 50);
    assert_eq!(rows[0].cells.len(), 4);
    assert_eq!(rows[1].cells.len(), 3);
}

#[test]
fn versions_ttl_and_deletes_apply_to_loaded_cells() {
    let dir = tempfile::tempdir().expect("temp dir");
    let clock = manual_clock(1_000_000);
    let engine = open_engine_with(
        dir.path(),
        StorageConfig::default(),
        std::sync::Arc::new(basalt_storage::fs::LocalFs),
        clock.clone(),
    );
    let mut t = table(&["cf", "ttl"]);
    t.families[0].max_versions = 2;
    t.families[1].ttl_secs = 10;
    let region = open_region(&engine, t);
    load(
        &region,
        vec![
            cell("r1", "cf", "q", 999_003, "v3"),
            cell("r1", "cf", "q", 999_002, "v2"),
            cell("r1", "cf", "q", 999_001, "v1"),
            cell("r2", "cf", "q", 999_001, "gone"),
            cell("r1", "ttl", "q", 999_999, "fresh"),
            cell("r2", "ttl", "q", 980_000, "expired"),
        ],
    );
    let all = region
        .get(&Get::new("r1").family("cf").versions(10))
        .expect("get");
    assert_eq!(
        show_rows(&[all]),
        ["r1/cf:q@999003=v3", "r1/cf:q@999002=v2"]
    );
    assert_eq!(value(&region, "r1", "ttl", "q").as_deref(), Some("fresh"));
    assert_eq!(value(&region, "r2", "ttl", "q"), None);
    region.delete(&Delete::new("r2")).expect("delete");
    assert_eq!(value(&region, "r2", "cf", "q"), None);
    clock.advance(20_000);
    assert_eq!(value(&region, "r1", "ttl", "q"), None);
}
