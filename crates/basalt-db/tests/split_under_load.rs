//! Automatic splits under load: writers fill a table with a small MEMSTORE_FLUSHSIZE and
//! MAX_FILESIZE until the split checker has cut it at least three times, while readers scan
//! it, whole and by ranges, forwards and reversed, over and over. Every scan must return
//! rows in order, each once, only rows a writer has started, and every row acknowledged
//! before the scan began. Afterwards a major compaction and the catalog janitor must remove
//! every retired parent's folder, with the data intact.

use crate::support;

use basalt_db::DbConfig;
use basalt_types::{Get, TableName};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;
use support::load::{scan_range, Load};
use support::*;

const WRITERS: usize = 3;
const READERS: usize = 2;
const ROWS_PER_WRITER: usize = 6_000;
const FLUSH_BYTES: u64 = 64 * 1024;
const MAX_FILE_BYTES: u64 = 160 * 1024;

#[test]
fn table_splits_under_load_and_scans_stay_exact() {
    within(
        Duration::from_secs(90),
        "the split load test",
        split_under_load,
    );
}

fn split_under_load() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = DbConfig {
        split_check_interval_ms: 20,
        ..DbConfig::default()
    };
    let db = open(dir.path(), config);
    let name = TableName::parse("load").expect("valid name");
    let mut t = descriptor("load", &["f"]);
    t.memstore_flush_size_bytes = FLUSH_BYTES;
    t.max_file_size_bytes = MAX_FILE_BYTES;
    db.admin
        .create_table(&t, &Default::default())
        .expect("create");
    let table = db.table(&name);
    let load = Load::new(WRITERS, ROWS_PER_WRITER, 100);
    let writers_done = AtomicBool::new(false);
    let seen_regions = Mutex::new(BTreeSet::new());
    let scans = AtomicUsize::new(0);
    let most_regions = AtomicUsize::new(0);

    std::thread::scope(|s| {
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let (table, load) = (&table, &load);
                s.spawn(move || load.write(table.as_ref(), w))
            })
            .collect();
        let readers: Vec<_> = (0..READERS)
            .map(|r| {
                let (table, load, done) = (&table, &load, &writers_done);
                let (seen_regions, scans, most) = (&seen_regions, &scans, &most_regions);
                let (admin, name) = (&db.admin, &name);
                s.spawn(move || {
                    let mut n = r as u64;
                    while !done.load(Ordering::SeqCst) {
                        let regions = admin.list_regions(name).expect("list regions");
                        check_tiling(&regions).expect("regions tile the key space");
                        most.fetch_max(regions.len(), Ordering::SeqCst);
                        seen_regions
                            .lock()
                            .expect("not poisoned")
                            .extend(regions.into_iter().map(|r| r.encoded_name));
                        let reversed = n % 2 == 1;
                        load.scan_and_check(table.as_ref(), reversed, &scan_range(n))
                            .unwrap_or_else(|e| panic!("scan {n}: {e}"));
                        scans.fetch_add(1, Ordering::SeqCst);
                        n += READERS as u64;
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().expect("writer finished");
        }
        // Splits lag the writes by a checker pass or two, and daughters split again only
        // once compactions have rewritten their references: wait for the third split.
        let split_thrice = wait_for(Duration::from_secs(10), || {
            db.admin.list_regions(&name).expect("list").len() >= 4
        });
        writers_done.store(true, Ordering::SeqCst);
        for r in readers {
            r.join().expect("reader finished");
        }
        let regions = db.admin.list_regions(&name).expect("list").len();
        assert!(
            split_thrice,
            "the table split fewer than three times: {regions} regions"
        );
    });
    eprintln!(
        "{} scans checked; at most {} regions during scans",
        scans.load(Ordering::SeqCst),
        most_regions.load(Ordering::SeqCst)
    );
    assert!(
        scans.load(Ordering::SeqCst) >= 2,
        "the readers never finished a scan"
    );

    let all: Vec<Vec<u8>> = load.all_keys().into_iter().collect();
    for reversed in [false, true] {
        let rows = scan_keys(table.as_ref(), reversed).expect("final scan");
        let mut expected = all.clone();
        if reversed {
            expected.reverse();
        }
        assert!(
            rows == expected,
            "final scan (reversed={reversed}) has {} rows, not exactly the {} written",
            rows.len(),
            expected.len()
        );
    }

    // Compact until no region refers to a parent, then the janitor removes the parents.
    // The checker may split a compacted region again meanwhile: repeat until stable.
    let mut seen = seen_regions.into_inner().expect("not poisoned");
    let retired_dirs_left = |seen: &BTreeSet<String>, current: &BTreeSet<String>| -> Vec<String> {
        seen.iter()
            .filter(|r| !current.contains(*r) && region_dir(dir.path(), &name, r).exists())
            .cloned()
            .collect()
    };
    let cleaned = wait_for(Duration::from_secs(15), || {
        let before = db.admin.list_regions(&name).expect("list").len();
        db.admin.compact(&name, true).expect("major compaction");
        db.admin.run_catalog_janitor().expect("janitor");
        let after = db.admin.list_regions(&name).expect("list");
        let current: BTreeSet<String> = after.iter().map(|r| r.encoded_name.clone()).collect();
        seen.extend(current.iter().cloned());
        before == after.len() && retired_dirs_left(&seen, &current).is_empty()
    });
    let regions = db.admin.list_regions(&name).expect("list");
    let current: BTreeSet<String> = regions.iter().map(|r| r.encoded_name.clone()).collect();
    let leftovers = retired_dirs_left(&seen, &current);
    assert!(
        cleaned && leftovers.is_empty(),
        "retired parents' folders remain: {leftovers:?}"
    );
    assert!(seen.len() > current.len(), "no parent was ever seen");
    for r in &current {
        assert!(
            region_dir(dir.path(), &name, r).exists(),
            "serving region {r} has no folder"
        );
    }
    check_tiling(&regions).expect("regions tile the key space");
    assert_eq!(
        scan_keys(table.as_ref(), false).expect("scan").len(),
        all.len()
    );
    for (w, i) in [
        (0, 0),
        (WRITERS - 1, ROWS_PER_WRITER - 1),
        (1, ROWS_PER_WRITER / 2),
    ] {
        let k = load.key(w, i);
        let got = table.get(&Get::new(k.clone())).expect("get");
        assert_eq!(
            got.value(b"f", b"q").map(|v| v.to_vec()),
            Some(load.value(&k))
        );
    }
    db.db.close().expect("close");
}
