//! Crash test: a split or a merge dies at each of its failpoints, and the database must
//! come back whole.
//!
//! For every failpoint a child process (this binary, with `BASALT_SPLIT_CRASH_CHILD` set)
//! creates a table, loads it with SYNC_WAL puts (part flushed, part only in the log),
//! keeps a writer putting rows across the key space, then splits (or merges) with
//! `BASALT_FAILPOINT` armed, and aborts there. Every acknowledged row is printed. The parent
//! reopens the database and checks: the regions tile the key space as the step implies;
//! every acknowledged row is read exactly once by scans both ways and by gets; writes work;
//! the interrupted operation (or another split) then completes; after a major compaction
//! and the janitor, the table's folder holds exactly its serving regions; and all of it
//! holds again after a clean close and reopen.

mod support;

use basalt_api::{PreSplit, RegionReport};
use basalt_db::DbConfig;
use basalt_types::{Durability, Get, Put, TableName};
use bytes::Bytes;
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;
use support::*;

const TABLE: &str = "crashy";
const LOADED_ROWS: usize = 200;
const UNFLUSHED_ROWS: usize = 60;
const SPLIT_KEY: &[u8] = b"row-0100";
const MERGE_BOUNDARY: &[u8] = b"row-0150";

/// A failpoint, and how many regions the table has once recovery is done.
struct Case {
    failpoint: &'static str,
    merge: bool,
    regions_after: usize,
}

static CASES: [Case; 6] = [
    Case {
        failpoint: "split.after_mark",
        merge: false,
        regions_after: 1,
    },
    Case {
        failpoint: "split.after_daughters",
        merge: false,
        regions_after: 1,
    },
    Case {
        failpoint: "split.after_commit",
        merge: false,
        regions_after: 2,
    },
    Case {
        failpoint: "split.after_open",
        merge: false,
        regions_after: 2,
    },
    Case {
        failpoint: "merge.after_folder",
        merge: true,
        regions_after: 2,
    },
    Case {
        failpoint: "merge.after_commit",
        merge: true,
        regions_after: 1,
    },
];

fn config() -> DbConfig {
    DbConfig {
        // No automatic splits: the test decides when regions split.
        split_check_interval_ms: 3_600_000,
        ..DbConfig::default()
    }
}

fn name() -> TableName {
    TableName::parse(TABLE).expect("valid name")
}

fn value(row: &str) -> String {
    format!("v-{row}")
}

fn put(row: &str) -> Put {
    Put::new(row.to_string())
        .add("f", "q", value(row))
        .durability(Durability::SyncWal)
}

/// The child: load, split or merge, die at the armed failpoint.
fn child(dir: &Path, merge: bool) {
    let db = open(dir, config());
    let split = if merge {
        PreSplit::Keys(vec![Bytes::from_static(MERGE_BOUNDARY)])
    } else {
        PreSplit::None
    };
    db.admin
        .create_table(&descriptor(TABLE, &["f"]), &split)
        .expect("create");
    let table = db.table(&name());
    let out = std::sync::Mutex::new(std::io::stdout());
    let ack = |row: &str| {
        let mut out = out.lock().expect("stdout lock");
        writeln!(out, "ack {row}").expect("stdout");
        out.flush().expect("stdout");
    };
    for i in 0..LOADED_ROWS + UNFLUSHED_ROWS {
        let row = format!("row-{i:04}");
        table.put(&put(&row)).expect("load");
        ack(&row);
        if i + 1 == LOADED_ROWS {
            db.admin.flush(&name()).expect("flush");
        }
    }
    let acked = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            for j in 0.. {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let row = format!("row-{:04}-w{j:05}", (j * 37) % LOADED_ROWS);
                table.put(&put(&row)).expect("concurrent put");
                ack(&row);
                acked.fetch_add(1, Ordering::SeqCst);
            }
        });
        assert!(wait_for(Duration::from_secs(10), || acked
            .load(Ordering::SeqCst)
            >= 10));
        if merge {
            let regions = db.admin.list_regions(&name()).expect("list");
            db.admin
                .merge_regions(&regions[0].encoded_name, &regions[1].encoded_name)
                .expect("merge");
        } else {
            db.admin.split(&name(), Some(SPLIT_KEY)).expect("split");
        }
        stop.store(true, Ordering::SeqCst);
    });
    println!("survived");
}

/// Checks the table holds every acked row once, both ways and by get, with its value.
fn check_rows(db: &Db, acked: &BTreeSet<String>) -> Result<(), String> {
    let table = db.table(&name());
    for reversed in [false, true] {
        let keys = scan_keys(table.as_ref(), reversed).map_err(|e| format!("scan: {e}"))?;
        let mut rows: Vec<String> = keys
            .iter()
            .map(|k| String::from_utf8_lossy(k).into_owned())
            .collect();
        if reversed {
            rows.reverse();
        }
        if let Some(pair) = rows.windows(2).find(|p| p[0] >= p[1]) {
            return Err(format!("reversed={reversed}: {} then {}", pair[0], pair[1]));
        }
        let present: BTreeSet<&String> = rows.iter().collect();
        if let Some(lost) = acked.iter().find(|r| !present.contains(r)) {
            return Err(format!(
                "reversed={reversed}: acknowledged row {lost} is missing ({} rows, {} acked)",
                rows.len(),
                acked.len()
            ));
        }
    }
    for row in acked {
        let got = table
            .get(&Get::new(row.clone()))
            .map_err(|e| format!("get {row}: {e}"))?;
        if got.cells.len() != 1 || got.value(b"f", b"q") != Some(value(row).as_bytes()) {
            return Err(format!(
                "get {row}: {} cells, {:?}",
                got.cells.len(),
                got.value(b"f", b"q")
            ));
        }
    }
    Ok(())
}

fn regions(db: &Db) -> Result<Vec<RegionReport>, String> {
    let regions = db
        .admin
        .list_regions(&name())
        .map_err(|e| format!("list: {e}"))?;
    check_tiling(&regions)?;
    Ok(regions)
}

/// The table folder's region folders must be exactly the serving regions'.
fn check_folders(dir: &Path, regions: &[RegionReport]) -> Result<(), String> {
    let table_dir = dir.join("data").join("default").join(TABLE);
    let on_disk =
        region_folders(&table_dir).map_err(|e| format!("listing {}: {e}", table_dir.display()))?;
    let serving: BTreeSet<String> = regions.iter().map(|r| r.encoded_name.clone()).collect();
    if on_disk != serving {
        return Err(format!("region folders {on_disk:?}, serving {serving:?}"));
    }
    Ok(())
}

fn verify(dir: &Path, case: &Case, acked: &mut BTreeSet<String>) -> Result<(), String> {
    let db = open(dir, config());
    let found = regions(&db)?;
    if found.len() != case.regions_after {
        return Err(format!(
            "{} regions after recovery, expected {}",
            found.len(),
            case.regions_after
        ));
    }
    check_rows(&db, acked)?;
    let table = db.table(&name());
    for row in ["a-first", "row-0050-after", "row-0150-after", "z-last"] {
        table
            .put(&put(row))
            .map_err(|e| format!("put {row} after recovery: {e}"))?;
        acked.insert(row.to_string());
    }
    // Finish the interrupted operation, or split again where it already happened.
    db.admin
        .compact(&name(), true)
        .map_err(|e| format!("compact: {e}"))?;
    let before = regions(&db)?;
    if case.merge && before.len() == 2 {
        db.admin
            .merge_regions(&before[0].encoded_name, &before[1].encoded_name)
            .map_err(|e| format!("merge after recovery: {e}"))?;
    } else {
        let key: &[u8] = if before.len() == 1 {
            SPLIT_KEY
        } else {
            b"row-0042"
        };
        db.admin
            .split(&name(), Some(key))
            .map_err(|e| format!("split after recovery: {e}"))?;
    }
    let after = regions(&db)?;
    if after.len() == before.len() {
        return Err(format!(
            "the operation after recovery left {} regions",
            after.len()
        ));
    }
    check_rows(&db, acked)?;
    db.admin
        .compact(&name(), true)
        .map_err(|e| format!("compact: {e}"))?;
    db.admin
        .run_catalog_janitor()
        .map_err(|e| format!("janitor: {e}"))?;
    check_folders(dir, &after)?;
    db.db.close().map_err(|e| format!("close: {e}"))?;
    // Every handle on the database must go before it can be opened again.
    drop((table, db));
    let db = open(dir, config());
    let reopened = regions(&db)?;
    let names = |r: &[RegionReport]| r.iter().map(|r| r.region_name.clone()).collect::<Vec<_>>();
    if names(&reopened) != names(&after) {
        return Err(format!(
            "after reopen {:?}, before {:?}",
            names(&reopened),
            names(&after)
        ));
    }
    check_rows(&db, acked)?;
    check_folders(dir, &reopened)?;
    db.db.close().map_err(|e| format!("close: {e}"))?;
    Ok(())
}

/// Runs one case: the child until it dies, then the checks.
fn run(exe: &Path, case: &'static Case) -> Result<String, String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut child = Command::new(exe)
        .env("BASALT_SPLIT_CRASH_CHILD", dir.path())
        .env(
            "BASALT_SPLIT_CRASH_MERGE",
            if case.merge { "1" } else { "0" },
        )
        .env("BASALT_FAILPOINT", case.failpoint)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("child starts");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let stdout = child.stdout.take().expect("piped stdout");
    let lines = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<String>>()
    });
    let Some(status) = wait_child(&mut child, Duration::from_secs(60)) else {
        return Err("the child hung: killed after 60 s".into());
    };
    let lines = lines.join().expect("stdout reader");
    let errors = errors.join().expect("stderr reader");
    if status.success() || lines.iter().any(|l| l == "survived") {
        return Err(format!("the child never reached the failpoint ({status})"));
    }
    let mut acked: BTreeSet<String> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("ack ").map(str::to_string))
        .collect();
    if acked.len() < LOADED_ROWS + UNFLUSHED_ROWS {
        let tail: String = errors.lines().rev().take(5).collect::<Vec<_>>().join(" | ");
        return Err(format!("the child died before loading ({status}): {tail}"));
    }
    let count = acked.len();
    let path = dir.path().to_path_buf();
    within(Duration::from_secs(60), "recovery checks", move || {
        verify(&path, case, &mut acked)
    })?;
    Ok(format!("{count} acked rows intact"))
}

fn main() {
    if let Ok(dir) = std::env::var("BASALT_SPLIT_CRASH_CHILD") {
        let merge = std::env::var("BASALT_SPLIT_CRASH_MERGE").is_ok_and(|m| m == "1");
        child(Path::new(&dir), merge);
        return;
    }
    let exe = std::env::current_exe().expect("test binary path");
    let (mut passed, mut failed) = (0, 0);
    for case in &CASES {
        let started = std::time::Instant::now();
        match run(&exe, case) {
            Ok(what) => {
                passed += 1;
                println!(
                    "{}: ok, {what} ({} ms)",
                    case.failpoint,
                    started.elapsed().as_millis()
                );
            }
            Err(why) => {
                failed += 1;
                println!("{}: FAILED: {why}", case.failpoint);
            }
        }
    }
    println!("split crash: {passed} passed, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}
