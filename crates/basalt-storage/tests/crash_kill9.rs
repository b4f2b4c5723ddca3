//! Crash test: a child process writes with SYNC_WAL from several threads (with flushes and
//! compactions running underneath) and is killed with SIGKILL at a random moment. After
//! each kill the engine reopens: every acknowledged row must be present, and no row may be
//! half-applied.
//!
//! The test binary is its own child: with `BASALT_CRASH_CHILD` set it runs the writer.
//! `BASALT_CRASH_CYCLES` raises the number of kill cycles (default 20).

mod support;

use basalt_storage::StorageConfig;
use basalt_types::{Durability, Put, Scan};
use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::*;

const FAMILIES: [&str; 2] = ["a", "b"];
const COLUMNS: usize = 4;
const WRITERS: usize = 4;

fn config() -> StorageConfig {
    StorageConfig {
        memstore_flush_size_bytes: 32 * 1024,
        wal_segment_size_bytes: 256 * 1024,
        compaction_min_files: 3,
        ..StorageConfig::default()
    }
}

fn descriptor() -> basalt_types::TableDescriptor {
    let mut t = table(&FAMILIES);
    t.memstore_flush_size_bytes = 32 * 1024;
    t
}

fn row_put(row: &str) -> Put {
    let mut put = Put::new(row.to_string()).durability(Durability::SyncWal);
    for family in FAMILIES {
        for c in 0..COLUMNS {
            put = put.add(family, format!("q{c}"), row);
        }
    }
    put
}

/// The writer: runs until killed.
fn child(dir: &Path, cycle: u64) {
    let engine = open_engine(dir, config());
    let region = open_region(&engine, descriptor());
    let stdout = Arc::new(Mutex::new(std::io::stdout()));
    std::thread::scope(|s| {
        for t in 0..WRITERS {
            let (region, stdout) = (&region, stdout.clone());
            s.spawn(move || {
                for i in 0.. {
                    let row = format!("c{cycle:03}-t{t}-{i:06}");
                    region.put(&row_put(&row)).expect("put");
                    let mut out = stdout.lock().expect("stdout lock");
                    writeln!(out, "ack {row}").expect("stdout");
                    out.flush().expect("stdout");
                }
            });
        }
    });
}

/// A small deterministic generator for kill delays.
fn delay_ms(cycle: u64) -> u64 {
    let mut x = cycle.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 29;
    30 + x % 400
}

fn verify(dir: &Path, acked: &HashSet<String>) -> Result<usize, String> {
    let engine = open_engine(dir, config());
    let region = open_region(&engine, descriptor());
    let rows = scan_all(&region, &Scan::new());
    let mut present = HashSet::new();
    for row in &rows {
        let key = String::from_utf8_lossy(row.row().expect("non-empty row")).into_owned();
        if row.cells.len() != FAMILIES.len() * COLUMNS
            || row.cells.iter().any(|c| c.value() != key.as_bytes())
        {
            return Err(format!(
                "row {key} is half-applied: {} cells",
                row.cells.len()
            ));
        }
        present.insert(key);
    }
    if let Some(lost) = acked.iter().find(|r| !present.contains(*r)) {
        return Err(format!("acknowledged row {lost} is missing"));
    }
    engine.close().map_err(|e| format!("close failed: {e}"))?;
    Ok(rows.len())
}

fn main() {
    if let Ok(dir) = std::env::var("BASALT_CRASH_CHILD") {
        let cycle = std::env::var("BASALT_CRASH_CYCLE")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        child(Path::new(&dir), cycle);
        return;
    }
    let cycles: u64 = std::env::var("BASALT_CRASH_CYCLES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(20);
    let dir = tempfile::tempdir().expect("temp dir");
    let exe = std::env::current_exe().expect("test binary path");
    let mut all_acked = HashSet::new();
    let (mut passed, mut failed) = (0, 0);
    for cycle in 0..cycles {
        let mut child = Command::new(&exe)
            .env("BASALT_CRASH_CHILD", dir.path())
            .env("BASALT_CRASH_CYCLE", cycle.to_string())
            .stdout(Stdio::piped())
            .spawn()
            .expect("child starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let reader = std::thread::spawn(move || {
            BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .filter_map(|line| line.strip_prefix("ack ").map(str::to_string))
                .collect::<Vec<_>>()
        });
        std::thread::sleep(Duration::from_millis(delay_ms(cycle)));
        child.kill().expect("SIGKILL");
        child.wait().expect("child reaped");
        let acked = reader.join().expect("reader thread");
        let new_acks = acked.len();
        all_acked.extend(acked);
        match verify(dir.path(), &all_acked) {
            Ok(rows) => {
                passed += 1;
                println!(
                    "cycle {cycle}: killed after {} ms, {new_acks} new acks, {rows} rows intact",
                    delay_ms(cycle)
                );
            }
            Err(why) => {
                failed += 1;
                println!("cycle {cycle}: FAILED: {why}");
                break;
            }
        }
    }
    println!("crash cycles: {passed} passed, {failed} failed");
    if failed > 0 || all_acked.is_empty() {
        std::process::exit(1);
    }
}
