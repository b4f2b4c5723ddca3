//! Many threads on one region: row locks keep read-modify-writes exact, and MVCC keeps
//! every reader from seeing half of a row mutation.

use crate::support;

use basalt_types::{Durability, Get, Increment, Put, Scan};
use std::sync::atomic::{AtomicBool, Ordering};
use support::*;

const COLUMNS: usize = 6;

#[test]
fn concurrent_increments_on_one_counter_are_exact() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["cf"]));
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..250 {
                    let inc = Increment::new("counter").add("cf", "n", 1);
                    region
                        .increment(&Increment {
                            durability: Durability::SkipWal,
                            ..inc
                        })
                        .expect("increment");
                }
            });
        }
    });
    let got = region.get(&Get::new("counter")).expect("get");
    assert_eq!(
        got.value(b"cf", b"n").map(|v| v.to_vec()),
        Some(1000i64.to_be_bytes().to_vec())
    );
}

#[test]
fn readers_never_see_half_a_row_mutation() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = open_engine(dir.path(), Default::default());
    let region = open_region(&engine, table(&["a", "b"]));
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        for w in 0..2 {
            let (region, done) = (&region, &done);
            s.spawn(move || {
                for version in 0..400u32 {
                    let value = format!("w{w}-{version}");
                    let mut put =
                        Put::new(format!("row{}", version % 5)).durability(Durability::SkipWal);
                    for c in 0..COLUMNS {
                        put = put.add(
                            if c % 2 == 0 { "a" } else { "b" },
                            format!("q{c}"),
                            value.clone(),
                        );
                    }
                    region.put(&put).expect("put");
                    if version % 50 == 0 {
                        // Rows are also read across the memstore and files.
                        region.flush().expect("flush");
                    }
                }
                done.store(true, Ordering::SeqCst);
            });
        }
        for _ in 0..2 {
            let (region, done) = (&region, &done);
            s.spawn(move || {
                let mut checked = 0;
                while !done.load(Ordering::SeqCst) || checked < 20 {
                    for row in scan_all(region, &Scan::new()) {
                        let first = &row.cells[0].value();
                        assert_eq!(row.cells.len(), COLUMNS, "a row with missing columns");
                        assert!(
                            row.cells.iter().all(|c| c.value() == *first),
                            "half a mutation: {:?}",
                            show_rows(std::slice::from_ref(&row))
                        );
                    }
                    checked += 1;
                }
            });
        }
    });
    let metrics = region.metrics();
    assert!(
        metrics.store_files > 0,
        "flushes ran during the test: {metrics:?}"
    );
}

/// Two writers rewrite every column of one row while flushes prune old versions; a get's
/// read point and its families' sources must come from one moment, or a flush between
/// them hides the version the read point needs in one family only.
#[test]
fn gets_stay_whole_while_flushes_prune_versions() {
    for _round in 0..10 {
        let dir = tempfile::tempdir().expect("temp dir");
        let engine = open_engine(dir.path(), Default::default());
        let region = open_region(&engine, table(&["a", "b"]));
        let done = AtomicBool::new(false);
        std::thread::scope(|s| {
            for w in 0..2 {
                let (region, done) = (&region, &done);
                s.spawn(move || {
                    for version in 0..200u32 {
                        let value = format!("w{w}-{version}");
                        let mut put = Put::new("row").durability(Durability::SkipWal);
                        for c in 0..4 {
                            put = put.add(
                                if c % 2 == 0 { "a" } else { "b" },
                                format!("q{c}"),
                                value.clone(),
                            );
                        }
                        region.put(&put).expect("put");
                        if version % 10 == 0 {
                            region.flush().expect("flush");
                        }
                    }
                    done.store(true, Ordering::SeqCst);
                });
            }
            let (region, done) = (&region, &done);
            s.spawn(move || {
                while !done.load(Ordering::SeqCst) {
                    let row = region.get(&Get::new("row")).expect("get");
                    if let Some(first) = row.cells.first().map(|c| c.value()) {
                        assert!(
                            row.cells.iter().all(|c| c.value() == first),
                            "half a mutation: {:?}",
                            show_rows(std::slice::from_ref(&row))
                        );
                    }
                }
            });
        });
    }
}
