//! Crash test: a child process commits numbered transactions against a durable
//! coordinator, printing each number once its commit returned, and is killed with
//! SIGKILL at a moment chosen by a fixed seed. After every kill the folder reopens and
//! every acknowledged number is there, each transaction whole (it puts `n/<i>` and moves
//! `last` to `i` under a guard on `last`'s mod revision, so the chain has no gap). The
//! journal is folded often, so kills also land in the middle of a snapshot.
//!
//! The test binary is its own child: with `BASALT_COORD_CHILD` set it runs the writer.
//! `BASALT_CHAOS_ROUNDS` raises the number of kills (default 6).

use basalt_coord::{Compare, Coordinator, DurableOptions, LocalCoordinator, Op, Txn};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

fn options() -> DurableOptions {
    DurableOptions {
        journal_records_max: 64,
        ..DurableOptions::default()
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// The writer: runs until killed.
fn child(dir: &Path) {
    let coord = LocalCoordinator::open_with(dir, options()).expect("the child opens");
    let runtime = runtime();
    let mut stdout = std::io::stdout();
    runtime.block_on(async {
        let last = coord.get(b"last").await.expect("get last");
        let (mut next, mut guard) = last.map_or((0, 0), |kv| {
            let n: u64 = String::from_utf8_lossy(&kv.value)
                .parse()
                .expect("a number");
            (n + 1, kv.mod_revision)
        });
        loop {
            let txn = Txn {
                compares: vec![Compare::mod_revision("last", guard)],
                success: vec![
                    Op::put(format!("n/{next:08}"), next.to_string()),
                    Op::put("last", next.to_string()),
                ],
                ..Txn::default()
            };
            let result = coord.txn(txn).await.expect("commit");
            assert!(result.succeeded, "the only writer holds the guard");
            writeln!(stdout, "ack {next}").expect("stdout");
            stdout.flush().expect("stdout");
            guard = result.revision;
            next += 1;
        }
    });
}

/// How many acknowledgements to wait for before the kill (fixed per round).
fn acks_before_kill(round: u64) -> usize {
    let mut x = round.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 29;
    1 + (x % 150) as usize
}

/// Every acknowledged number is present, and the chain up to `last` has no gap.
fn verify(dir: &Path, acked: &BTreeSet<u64>) -> Result<u64, String> {
    let coord = LocalCoordinator::open_with(dir, options()).map_err(|e| e.to_string())?;
    let listing = runtime()
        .block_on(coord.list(b"n/"))
        .map_err(|e| e.to_string())?;
    let present: BTreeSet<u64> = listing
        .kvs
        .iter()
        .map(|kv| {
            String::from_utf8_lossy(&kv.value)
                .parse()
                .expect("a number")
        })
        .collect();
    if let Some(lost) = acked.iter().find(|n| !present.contains(n)) {
        return Err(format!("acknowledged number {lost} is missing"));
    }
    let count = present.len() as u64;
    if present.iter().copied().ne(0..count) {
        return Err(format!("the chain has a gap: {present:?}"));
    }
    Ok(count)
}

fn main() {
    if let Ok(dir) = std::env::var("BASALT_COORD_CHILD") {
        child(Path::new(&dir));
        return;
    }
    let rounds: u64 = std::env::var("BASALT_CHAOS_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(6);
    let dir = tempfile::tempdir().expect("temp dir");
    let exe = std::env::current_exe().expect("test binary path");
    let mut acked = BTreeSet::new();
    for round in 0..rounds {
        let mut child = Command::new(&exe)
            .env("BASALT_COORD_CHILD", dir.path())
            .stdout(Stdio::piped())
            .spawn()
            .expect("child starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut lines = BufReader::new(stdout).lines();
        let wanted = acks_before_kill(round);
        let mut new_acks = 0;
        while new_acks < wanted {
            let line = lines
                .next()
                .expect("the child acknowledges")
                .expect("a line");
            let n: u64 = line
                .strip_prefix("ack ")
                .and_then(|n| n.parse().ok())
                .expect("an ack line");
            acked.insert(n);
            new_acks += 1;
        }
        child.kill().expect("SIGKILL");
        child.wait().expect("child reaped");
        // What it printed between the last read and the kill was acknowledged too.
        for line in lines.map_while(Result::ok) {
            if let Some(n) = line.strip_prefix("ack ").and_then(|n| n.parse().ok()) {
                acked.insert(n);
            }
        }
        match verify(dir.path(), &acked) {
            Ok(present) => println!(
                "round {round}: killed after {wanted}+ acks; {} acknowledged, {present} present",
                acked.len()
            ),
            Err(why) => {
                println!("round {round}: FAILED: {why}");
                std::process::exit(1);
            }
        }
    }
    println!("kill -9 rounds: {rounds} passed");
}
