//! Batches of puts and deletes on one region: one log record and one sync for the batch,
//! every row written, the strongest durability asked for honoured, repeats refused.

use crate::support;

use basalt_storage::ErrorKind;
use basalt_types::{Delete, Durability, Get, Put, Scan};
use support::*;

fn rows(n: usize) -> Vec<Put> {
    (0..n)
        .map(|i| Put::new(format!("row{i:03}")).add("cf", "q", format!("v{i}")))
        .collect()
}

#[test]
fn a_batch_costs_one_sync_and_writes_every_row() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["cf"]));
    let wal = &engine.context().wal;
    let before = wal.sync_count();
    region.put_batch(&rows(100)).expect("batch");
    assert_eq!(wal.sync_count() - before, 1, "one sync for 100 rows");
    assert_eq!(scan_all(&region, &Scan::new()).len(), 100);
    let got = region.get(&Get::new("row042")).expect("get");
    assert_eq!(got.value(b"cf", b"q"), Some(&b"v42"[..]));

    let deletes: Vec<Delete> = (0..50).map(|i| Delete::new(format!("row{i:03}"))).collect();
    let before = wal.sync_count();
    region.delete_batch(&deletes).expect("delete batch");
    assert_eq!(wal.sync_count() - before, 1);
    assert_eq!(scan_all(&region, &Scan::new()).len(), 50);
}

#[test]
fn the_strongest_durability_in_the_batch_wins() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["cf"]));
    let wal = &engine.context().wal;
    let skip = |p: Put| p.durability(Durability::SkipWal);
    let all_skipped: Vec<Put> = rows(10).into_iter().map(skip).collect();
    let before = wal.sync_count();
    region.put_batch(&all_skipped).expect("batch");
    assert_eq!(wal.sync_count(), before, "SKIP_WAL alone does not sync");
    let mut mixed: Vec<Put> = rows(10).into_iter().map(skip).collect();
    mixed[3] = Put::new("row003").add("cf", "q", "synced");
    region.put_batch(&mixed).expect("batch");
    assert_eq!(
        wal.sync_count() - before,
        1,
        "one default (SYNC_WAL) put syncs the batch"
    );
}

#[test]
fn repeated_rows_and_foreign_rows_are_refused_whole() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["cf"]));
    let mut repeated = rows(3);
    repeated.push(Put::new("row001").add("cf", "q", "again"));
    let e = region.put_batch(&repeated).expect_err("a repeated row");
    assert_eq!(e.kind(), ErrorKind::InvalidRequest, "{e}");
    assert!(e.to_string().contains("row001"), "{e}");
    let mut bad = rows(3);
    bad.push(Put::new("row009").add("nofamily", "q", "x"));
    assert!(region.put_batch(&bad).is_err(), "an unknown family");
    assert!(
        scan_all(&region, &Scan::new()).is_empty(),
        "nothing of either was applied"
    );
}
