//! Automatic splits under load: writers fill a table with a small MEMSTORE_FLUSHSIZE and
//! MAX_FILESIZE until the split checker has cut it at least three times, while readers scan
//! it whole, forwards and reversed, over and over. Every scan must return rows in order,
//! each once, only rows a writer has started, and every row acknowledged before the scan
//! began. Afterwards a major compaction and the catalog janitor must remove every retired
//! parent's folder, with the data intact.

mod support;

use basalt_db::DbConfig;
use basalt_types::{Put, TableName};
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;
use support::*;

const WRITERS: usize = 3;
const READERS: usize = 2;
const ROWS_PER_WRITER: usize = 6_000;
const VALUE_BYTES: usize = 100;
const FLUSH_BYTES: u64 = 64 * 1024;
const MAX_FILE_BYTES: u64 = 160 * 1024;

/// A bijection on u64, so that distinct numbers give distinct, well spread row keys.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x
}

fn key(writer: usize, i: usize) -> Vec<u8> {
    format!("{:016x}", mix((writer * ROWS_PER_WRITER + i) as u64)).into_bytes()
}

fn value(key: &[u8]) -> Vec<u8> {
    key.iter().copied().cycle().take(VALUE_BYTES).collect()
}

/// What the writers have done so far: per writer, how many puts started and finished.
struct Progress {
    started: Vec<AtomicUsize>,
    acked: Vec<AtomicUsize>,
}

impl Progress {
    fn snapshot(counts: &[AtomicUsize]) -> Vec<usize> {
        counts.iter().map(|c| c.load(Ordering::SeqCst)).collect()
    }
}

/// Checks one scan's rows: ordered, only started rows, every row acked before it began.
fn check_scan(
    rows: &[Vec<u8>],
    reversed: bool,
    owner: &HashMap<Vec<u8>, (usize, usize)>,
    acked_before: &[usize],
    started_after: &[usize],
) -> Result<(), String> {
    for pair in rows.windows(2) {
        let ordered = if reversed {
            pair[0] > pair[1]
        } else {
            pair[0] < pair[1]
        };
        if !ordered {
            return Err(format!(
                "reversed={reversed}: {:?} then {:?} (out of order or repeated)",
                String::from_utf8_lossy(&pair[0]),
                String::from_utf8_lossy(&pair[1])
            ));
        }
    }
    let mut seen = vec![BTreeSet::new(); WRITERS];
    for row in rows {
        let Some(&(w, i)) = owner.get(row) else {
            return Err(format!("unknown row {:?}", String::from_utf8_lossy(row)));
        };
        if i >= started_after[w] {
            return Err(format!("row {w}/{i} was never written"));
        }
        seen[w].insert(i);
    }
    for (w, &acked) in acked_before.iter().enumerate() {
        if let Some(i) = (0..acked).find(|i| !seen[w].contains(i)) {
            return Err(format!(
                "reversed={reversed}: row {w}/{i} acknowledged before the scan is missing ({} of {acked} seen)",
                seen[w].range(..acked).count()
            ));
        }
    }
    Ok(())
}

#[test]
fn table_splits_under_load_and_scans_stay_exact() {
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

    let owner: HashMap<Vec<u8>, (usize, usize)> = (0..WRITERS)
        .flat_map(|w| (0..ROWS_PER_WRITER).map(move |i| (key(w, i), (w, i))))
        .collect();
    let progress = Progress {
        started: (0..WRITERS).map(|_| AtomicUsize::new(0)).collect(),
        acked: (0..WRITERS).map(|_| AtomicUsize::new(0)).collect(),
    };
    let writers_done = AtomicBool::new(false);
    let seen_regions = Mutex::new(BTreeSet::new());
    let scans = AtomicUsize::new(0);
    let max_regions_seen_by_scans = AtomicUsize::new(0);

    std::thread::scope(|s| {
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let (table, progress) = (&table, &progress);
                s.spawn(move || {
                    for i in 0..ROWS_PER_WRITER {
                        let k = key(w, i);
                        progress.started[w].store(i + 1, Ordering::SeqCst);
                        table
                            .put(&Put::new(k.clone()).add("f", "q", value(&k)))
                            .unwrap_or_else(|e| panic!("put {w}/{i}: {e}"));
                        progress.acked[w].store(i + 1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        let readers: Vec<_> = (0..READERS)
            .map(|r| {
                let (table, progress, owner, done) = (&table, &progress, &owner, &writers_done);
                let (seen_regions, scans, most) =
                    (&seen_regions, &scans, &max_regions_seen_by_scans);
                let (admin, name) = (&db.admin, &name);
                s.spawn(move || {
                    let mut reversed = r % 2 == 1;
                    while !done.load(Ordering::SeqCst) {
                        let regions = admin.list_regions(name).expect("list regions");
                        check_tiling(&regions).expect("regions tile the key space");
                        most.fetch_max(regions.len(), Ordering::SeqCst);
                        seen_regions
                            .lock()
                            .expect("not poisoned")
                            .extend(regions.into_iter().map(|r| r.encoded_name));
                        let acked_before = Progress::snapshot(&progress.acked);
                        let rows = scan_keys(table.as_ref(), reversed)
                            .unwrap_or_else(|e| panic!("scan (reversed={reversed}): {e}"));
                        let started_after = Progress::snapshot(&progress.started);
                        check_scan(&rows, reversed, owner, &acked_before, &started_after)
                            .unwrap_or_else(|e| {
                                panic!("scan {}: {e}", scans.load(Ordering::SeqCst))
                            });
                        scans.fetch_add(1, Ordering::SeqCst);
                        reversed = !reversed;
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
        let regions = db.admin.list_regions(&name).expect("list");
        assert!(
            split_thrice,
            "the table split fewer than three times: {} regions",
            regions.len()
        );
    });
    eprintln!(
        "{} scans checked; at most {} regions during scans",
        scans.load(Ordering::SeqCst),
        max_regions_seen_by_scans.load(Ordering::SeqCst)
    );
    assert!(
        scans.load(Ordering::SeqCst) >= 2,
        "the readers never finished a scan"
    );

    let all: BTreeSet<Vec<u8>> = owner.keys().cloned().collect();
    for reversed in [false, true] {
        let rows = scan_keys(table.as_ref(), reversed).expect("final scan");
        let mut expected: Vec<_> = all.iter().cloned().collect();
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
    let cleaned = wait_for(Duration::from_secs(15), || {
        let before = db.admin.list_regions(&name).expect("list");
        db.admin.compact(&name, true).expect("major compaction");
        db.admin.run_catalog_janitor().expect("janitor");
        let after = db.admin.list_regions(&name).expect("list");
        let current: BTreeSet<String> = after.iter().map(|r| r.encoded_name.clone()).collect();
        seen.extend(current.iter().cloned());
        let stable = before.len() == after.len();
        stable
            && seen
                .iter()
                .filter(|r| !current.contains(*r))
                .all(|r| !region_dir(dir.path(), &name, r).exists())
    });
    let regions = db.admin.list_regions(&name).expect("list");
    let current: BTreeSet<String> = regions.iter().map(|r| r.encoded_name.clone()).collect();
    let leftovers: Vec<_> = seen
        .iter()
        .filter(|r| !current.contains(*r) && region_dir(dir.path(), &name, r).exists())
        .collect();
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
    let rows = scan_keys(table.as_ref(), false).expect("scan after the janitor");
    assert_eq!(rows.len(), all.len());
    for (w, i) in [
        (0, 0),
        (WRITERS - 1, ROWS_PER_WRITER - 1),
        (1, ROWS_PER_WRITER / 2),
    ] {
        let k = key(w, i);
        let got = table.get(&basalt_types::Get::new(k.clone())).expect("get");
        assert_eq!(got.value(b"f", b"q").map(|v| v.to_vec()), Some(value(&k)));
    }
    db.db.close().expect("close");
}
