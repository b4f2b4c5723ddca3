//! Crash test: a child process writes SYNC_WAL rows from several threads into a table that
//! splits by itself (small MEMSTORE_FLUSHSIZE and MAX_FILESIZE, a fast split checker, the
//! janitor and compactions running), and is killed with SIGKILL at a random moment —
//! inside a split, a compaction of references, a janitor pass or a write. After each kill
//! the database reopens: the regions tile the key space, every acknowledged row is read
//! exactly once, both ways. At the end a major compaction and the janitor leave exactly the
//! serving regions' folders.
//!
//! The test binary is its own child: with `BASALT_SPLIT_KILL_CHILD` set it runs the
//! writer. `BASALT_SPLIT_KILL_CYCLES` sets the number of kills (default 10).

mod support;

use basalt_db::DbConfig;
use basalt_types::{Durability, Put, TableName};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;
use support::load::mix;
use support::*;

const TABLE: &str = "killed";
const WRITERS: u64 = 4;
const VALUE_BYTES: usize = 512;

fn config(check_ms: u64) -> DbConfig {
    let mut config = DbConfig {
        split_check_interval_ms: check_ms,
        ..DbConfig::default()
    };
    config.storage.compaction_min_files = 3;
    config
}

fn name() -> TableName {
    TableName::parse(TABLE).expect("valid name")
}

fn value(key: &str) -> Vec<u8> {
    key.bytes().cycle().take(VALUE_BYTES).collect()
}

/// The writer: runs until killed.
fn child(dir: &Path, cycle: u64) {
    let db = open(dir, config(10));
    if !db.admin.table_exists(&name()).expect("exists?") {
        let mut t = descriptor(TABLE, &["f"]);
        t.memstore_flush_size_bytes = 32 * 1024;
        t.max_file_size_bytes = 256 * 1024;
        db.admin
            .create_table(&t, &Default::default())
            .expect("create");
    }
    let table = db.table(&name());
    let out = Mutex::new(std::io::stdout());
    {
        let mut out = out.lock().expect("stdout lock");
        writeln!(out, "ready").expect("stdout");
        out.flush().expect("stdout");
    }
    std::thread::scope(|s| {
        for w in 0..WRITERS {
            let (table, out) = (&table, &out);
            s.spawn(move || {
                for i in 0.. {
                    let key = format!("{:016x}", mix(cycle << 32 | w << 24 | i));
                    let put = Put::new(key.clone())
                        .add("f", "q", value(&key))
                        .durability(Durability::SyncWal);
                    table.put(&put).unwrap_or_else(|e| panic!("put: {e}"));
                    let mut out = out.lock().expect("stdout lock");
                    writeln!(out, "ack {key}").expect("stdout");
                    out.flush().expect("stdout");
                }
            });
        }
    });
}

fn delay_ms(cycle: u64) -> u64 {
    50 + mix(cycle + 1) % 500
}

/// Reopens and checks every acked row; returns the region count.
fn verify(dir: &Path, acked: &BTreeSet<String>) -> Result<usize, String> {
    let db = open(dir, config(3_600_000));
    let regions = db
        .admin
        .list_regions(&name())
        .map_err(|e| format!("list: {e}"))?;
    check_tiling(&regions)?;
    let table = db.table(&name());
    for reversed in [false, true] {
        let mut keys = scan_keys(table.as_ref(), reversed).map_err(|e| format!("scan: {e}"))?;
        if reversed {
            keys.reverse();
        }
        if let Some(pair) = keys.windows(2).find(|p| p[0] >= p[1]) {
            return Err(format!(
                "reversed={reversed}: {:?} then {:?}",
                pair[0], pair[1]
            ));
        }
        let present: BTreeSet<String> = keys
            .iter()
            .map(|k| String::from_utf8_lossy(k).into_owned())
            .collect();
        if let Some(lost) = acked.iter().find(|k| !present.contains(*k)) {
            return Err(format!(
                "reversed={reversed}: acknowledged row {lost} is missing"
            ));
        }
    }
    let count = regions.len();
    drop(table);
    db.db.close().map_err(|e| format!("close: {e}"))?;
    Ok(count)
}

/// After the last kill: compact, run the janitor, and expect only serving folders.
fn final_cleanup(dir: &Path) -> Result<(), String> {
    let db = open(dir, config(3_600_000));
    db.admin
        .compact(&name(), true)
        .map_err(|e| format!("compact: {e}"))?;
    db.admin
        .run_catalog_janitor()
        .map_err(|e| format!("janitor: {e}"))?;
    let serving: BTreeSet<String> = db
        .admin
        .list_regions(&name())
        .map_err(|e| format!("list: {e}"))?
        .into_iter()
        .map(|r| r.encoded_name)
        .collect();
    let on_disk = region_folders(&dir.join("data/default").join(TABLE))
        .map_err(|e| format!("table folder: {e}"))?;
    if on_disk != serving {
        return Err(format!("folders {on_disk:?}, serving {serving:?}"));
    }
    db.db.close().map_err(|e| format!("close: {e}"))
}

fn main() {
    if let Ok(dir) = std::env::var("BASALT_SPLIT_KILL_CHILD") {
        let cycle = std::env::var("BASALT_SPLIT_KILL_CYCLE")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        child(Path::new(&dir), cycle);
        return;
    }
    let cycles: u64 = std::env::var("BASALT_SPLIT_KILL_CYCLES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(10);
    let dir = tempfile::tempdir().expect("temp dir");
    let exe = std::env::current_exe().expect("test binary path");
    let mut acked = BTreeSet::new();
    let (mut passed, mut failed) = (0, 0);
    for cycle in 0..cycles {
        let mut child = Command::new(&exe)
            .env("BASALT_SPLIT_KILL_CHILD", dir.path())
            .env("BASALT_SPLIT_KILL_CYCLE", cycle.to_string())
            .stdout(Stdio::piped())
            .spawn()
            .expect("child starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (lines, received) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        // The kill lands a random time after the child is ready to write, on purpose.
        let ready = received.recv_timeout(Duration::from_secs(30));
        if ready.as_deref() == Ok("ready") {
            std::thread::sleep(Duration::from_millis(delay_ms(cycle)));
        }
        child.kill().expect("SIGKILL");
        child.wait().expect("child reaped");
        reader.join().expect("reader thread");
        if ready.as_deref() != Ok("ready") {
            println!("cycle {cycle}: FAILED: the child never got ready ({ready:?})");
            failed += 1;
            break;
        }
        let new: Vec<String> = received
            .try_iter()
            .filter_map(|l| l.strip_prefix("ack ").map(str::to_string))
            .collect();
        let new_acks = new.len();
        acked.extend(new);
        let (path, expected) = (dir.path().to_path_buf(), acked.clone());
        let checked = within(Duration::from_secs(60), "recovery checks", move || {
            verify(&path, &expected)
        });
        match checked {
            Ok(regions) => {
                passed += 1;
                println!("cycle {cycle}: killed after {} ms, {new_acks} new acks, {} rows, {regions} regions", delay_ms(cycle), acked.len());
            }
            Err(why) => {
                failed += 1;
                println!("cycle {cycle}: FAILED: {why}");
                break;
            }
        }
    }
    if failed == 0 {
        match final_cleanup(dir.path()) {
            Ok(()) => passed += 1,
            Err(why) => {
                failed += 1;
                println!("cleanup: FAILED: {why}");
            }
        }
    }
    println!("split kill9: {passed} passed, {failed} failed");
    if failed > 0 || acked.is_empty() {
        std::process::exit(1);
    }
}
