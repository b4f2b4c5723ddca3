//! Requested merges and splits under load: while writers fill a table pre-split into 8
//! regions and readers scan it (whole and by ranges, both ways), an operator merges
//! adjacent regions and splits regions at chosen keys, over and over. Every scan must stay
//! exact (see `support::load`), the regions must tile the key space after every step, and
//! in the end the janitor leaves exactly the serving regions' folders.

use crate::support;

use basalt_api::PreSplit;
use basalt_db::DbConfig;
use basalt_types::{SplitAlgorithm, TableName};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;
use support::load::{mix, scan_range, Load};
use support::*;

const WRITERS: usize = 2;
const ROWS_PER_WRITER: usize = 5_000;
const OPERATIONS: u64 = 24;

/// One step of the operator: merge a pair of neighbours (even steps) or split a region
/// at a key inside it (odd steps). References from earlier steps are compacted away first.
fn operate(db: &Db, name: &TableName, step: u64) {
    db.admin.compact(name, true).expect("compact");
    let regions = db.admin.list_regions(name).expect("list");
    if step.is_multiple_of(2) && regions.len() > 2 {
        let i = (mix(step) % (regions.len() as u64 - 1)) as usize;
        db.admin
            .merge_regions(&regions[i].encoded_name, &regions[i + 1].encoded_name)
            .unwrap_or_else(|e| panic!("merge {i} and {} of {}: {e}", i + 1, regions.len()));
    } else {
        let key = format!("{:016x}", mix(step * 1_000_003));
        db.admin
            .split(name, Some(key.as_bytes()))
            .unwrap_or_else(|e| panic!("split at {key}: {e}"));
    }
    let after = db.admin.list_regions(name).expect("list");
    check_tiling(&after).unwrap_or_else(|e| panic!("after step {step}: {e}"));
}

#[test]
fn merges_and_splits_under_load_keep_scans_exact() {
    within(
        Duration::from_secs(90),
        "the merge load test",
        merge_under_load,
    );
}

fn merge_under_load() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = open(
        dir.path(),
        DbConfig {
            split_check_interval_ms: 3_600_000,
            ..DbConfig::default()
        },
    );
    let name = TableName::parse("merging").expect("valid name");
    let mut t = descriptor("merging", &["f"]);
    t.memstore_flush_size_bytes = 64 * 1024;
    let split = PreSplit::Count {
        regions: 8,
        algorithm: SplitAlgorithm::HexString,
    };
    db.admin.create_table(&t, &split).expect("create");
    let table = db.table(&name);
    let load = Load::new(WRITERS, ROWS_PER_WRITER, 100);
    let done = AtomicBool::new(false);
    let scans = AtomicUsize::new(0);
    let mut seen: BTreeSet<String> = BTreeSet::new();

    std::thread::scope(|s| {
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let (table, load) = (&table, &load);
                s.spawn(move || load.write(table.as_ref(), w))
            })
            .collect();
        let reader = s.spawn(|| {
            let mut n = 0;
            while !done.load(Ordering::SeqCst) {
                load.scan_and_check(table.as_ref(), n % 2 == 1, &scan_range(n))
                    .unwrap_or_else(|e| panic!("scan {n}: {e}"));
                scans.fetch_add(1, Ordering::SeqCst);
                n += 1;
            }
        });
        for step in 0..OPERATIONS {
            seen.extend(
                db.admin
                    .list_regions(&name)
                    .expect("list")
                    .into_iter()
                    .map(|r| r.encoded_name),
            );
            operate(&db, &name, step);
        }
        for w in writers {
            w.join().expect("writer finished");
        }
        done.store(true, Ordering::SeqCst);
        reader.join().expect("reader finished");
    });
    eprintln!("{} scans checked", scans.load(Ordering::SeqCst));

    let all: Vec<Vec<u8>> = load.all_keys().into_iter().collect();
    assert!(
        scan_keys(table.as_ref(), false).expect("scan") == all,
        "forward scan differs from what was written"
    );
    let mut reversed = all.clone();
    reversed.reverse();
    assert!(
        scan_keys(table.as_ref(), true).expect("scan") == reversed,
        "reversed scan differs"
    );

    db.admin.compact(&name, true).expect("compact");
    db.admin.run_catalog_janitor().expect("janitor");
    let regions = db.admin.list_regions(&name).expect("list");
    let serving: BTreeSet<String> = regions.iter().map(|r| r.encoded_name.clone()).collect();
    let on_disk = region_folders(&dir.path().join("data/default/merging")).expect("table folder");
    assert_eq!(on_disk, serving, "folders left beside the serving regions");
    assert!(seen.len() > serving.len());
    db.db.close().expect("close");
}
