//! The catalog's benchmark: prints figures, asserts nothing.
//!
//! ```text
//! cargo bench -p basalt-db --bench catalog                 # default run, well under a minute
//! cargo bench -p basalt-db --bench catalog -- --quick      # a few seconds, smoke run
//! cargo bench -p basalt-db --bench catalog -- --rows 400000 --threads 8 --dir /mnt/nvme
//! ```
//!
//! # What it measures
//! 1. `create-100` / `drop-100`: creating a table pre-split into 100 regions (one meta
//!    commit, 100 region folders opened) and dropping it (disable: close and flush each
//!    region; delete: one meta commit, the folder removed). Median, min and max of
//!    `--repeat` rounds.
//! 2. Writes: the same load — `--threads` threads putting `--rows` distinct rows in all
//!    (keys spread uniformly, one 100-byte cell each) — on a table pre-split into 16
//!    regions and on a single-region table, both with a 4 MiB MEMSTORE_FLUSHSIZE and
//!    automatic splits off. Once with ASYNC_WAL (the region path: routing, row locks,
//!    memstores, flushes) and once with SYNC_WAL on a tenth of the rows (bound by the log's
//!    group commit, which every region shares). Rows/s and the latency of one put, p50 and
//!    p99; then the 16-region rate over the 1-region rate.
//!
//! On shared 2-core machines absolute figures swing between runs; compare the ratio.

use basalt_api::{Admin, Connection, PreSplit, Table};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_types::{Durability, FamilyDescriptor, Put, SplitAlgorithm, TableDescriptor, TableName};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Options {
    rows: usize,
    threads: usize,
    repeat: usize,
    dir: Option<PathBuf>,
}

fn parse() -> Options {
    let mut o = Options {
        rows: 200_000,
        threads: 4,
        repeat: 3,
        dir: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .unwrap_or_else(|| panic!("{name} needs a value"))
        };
        match arg.as_str() {
            "--quick" => {
                o.rows = 20_000;
                o.repeat = 1;
            }
            "--rows" => o.rows = value("--rows").parse().expect("--rows: a number"),
            "--threads" => o.threads = value("--threads").parse().expect("--threads: a number"),
            "--repeat" => o.repeat = value("--repeat").parse().expect("--repeat: a number"),
            "--dir" => o.dir = Some(PathBuf::from(value("--dir"))),
            // cargo bench passes --bench; ignore what is not ours.
            _ => {}
        }
    }
    o
}

fn table(name: &str) -> TableDescriptor {
    let family = FamilyDescriptor::new("f").expect("valid family");
    let mut t = TableDescriptor::new(TableName::parse(name).expect("valid name"), vec![family]);
    t.memstore_flush_size_bytes = 4 * 1024 * 1024;
    t.split_enabled = false;
    t
}

fn hex_split(regions: u32) -> PreSplit {
    PreSplit::Count {
        regions,
        algorithm: SplitAlgorithm::HexString,
    }
}

/// A bijection on u64: distinct row numbers give distinct, uniformly spread keys.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Median, min and max of `times`, in ms.
fn summary(times: &mut [Duration]) -> String {
    times.sort();
    format!(
        "{:>9.1} {:>9.1} {:>9.1}",
        ms(times[times.len() / 2]),
        ms(times[0]),
        ms(times[times.len() - 1])
    )
}

fn bench_ddl(admin: &dyn Admin, repeat: usize) {
    let (mut creates, mut drops) = (Vec::new(), Vec::new());
    for round in 0..repeat {
        let t = table(&format!("ddl{round}"));
        let started = Instant::now();
        admin.create_table(&t, &hex_split(100)).expect("create");
        creates.push(started.elapsed());
        assert_eq!(admin.list_regions(&t.name).expect("list").len(), 100);
        let started = Instant::now();
        admin.disable_table(&t.name).expect("disable");
        admin.delete_table(&t.name).expect("delete");
        drops.push(started.elapsed());
    }
    println!(
        "{:<22} {:>9} {:>9} {:>9}",
        "table, 100 regions", "median ms", "min ms", "max ms"
    );
    println!("{:<22} {}", "create-100", summary(&mut creates));
    println!("{:<22} {}", "drop-100", summary(&mut drops));
}

struct WriteResult {
    rows_per_s: f64,
    p50: Duration,
    p99: Duration,
}

fn bench_writes(
    conn: &EmbeddedConnection,
    name: &str,
    split: PreSplit,
    rows: usize,
    threads: usize,
    durability: Durability,
) -> WriteResult {
    let admin = conn.admin();
    let t = table(name);
    admin.create_table(&t, &split).expect("create");
    let target: Arc<dyn Table> = conn.table(&t.name).expect("table");
    let value = vec![b'v'; 100];
    let per_thread = rows / threads;
    let started = Instant::now();
    let mut latencies: Vec<Duration> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|th| {
                let (target, value) = (&target, &value);
                s.spawn(move || {
                    let mut lat = Vec::with_capacity(per_thread);
                    for i in 0..per_thread {
                        let key = format!("{:016x}", mix((th * per_thread + i) as u64));
                        let put = Put::new(key)
                            .add("f", "q", value.clone())
                            .durability(durability);
                        let t0 = Instant::now();
                        target.put(&put).expect("put");
                        lat.push(t0.elapsed());
                    }
                    lat
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("writer"))
            .collect()
    });
    let elapsed = started.elapsed();
    latencies.sort();
    admin.disable_table(&t.name).expect("disable");
    admin.delete_table(&t.name).expect("delete");
    WriteResult {
        rows_per_s: latencies.len() as f64 / elapsed.as_secs_f64(),
        p50: percentile(&latencies, 0.5),
        p99: percentile(&latencies, 0.99),
    }
}

fn main() {
    let options = parse();
    let temp = tempfile::tempdir_in(options.dir.clone().unwrap_or_else(std::env::temp_dir))
        .expect("temp dir");
    let config = DbConfig {
        split_check_interval_ms: 3_600_000,
        ..DbConfig::default()
    };
    let db = Database::open(temp.path(), config).expect("database opens");
    let conn = EmbeddedConnection::new(db.clone());
    println!(
        "basalt-db catalog bench ({} threads, {} rows)",
        options.threads, options.rows
    );
    println!();
    bench_ddl(conn.admin().as_ref(), options.repeat);
    println!();
    println!(
        "{:<22} {:>7} {:>10} {:>9} {:>9}",
        "writes", "regions", "rows/s", "p50 µs", "p99 µs"
    );
    let runs = [
        (Durability::AsyncWal, options.rows, "async"),
        (
            Durability::SyncWal,
            (options.rows / 10).max(options.threads),
            "sync",
        ),
    ];
    let mut ratios = Vec::new();
    for (durability, rows, label) in runs {
        let mut rate = [0.0; 2];
        for (slot, (regions, split)) in [(1u32, PreSplit::None), (16, hex_split(16))]
            .into_iter()
            .enumerate()
        {
            let r = bench_writes(
                &conn,
                &format!("w{label}{regions}"),
                split,
                rows,
                options.threads,
                durability,
            );
            rate[slot] = r.rows_per_s;
            println!(
                "{:<22} {:>7} {:>10.0} {:>9.1} {:>9.1}",
                format!("{label}-wal, {rows} rows"),
                regions,
                r.rows_per_s,
                r.p50.as_secs_f64() * 1e6,
                r.p99.as_secs_f64() * 1e6
            );
        }
        ratios.push((label, rate[1] / rate[0]));
    }
    println!();
    for (label, ratio) in ratios {
        println!("{label}-wal rows/s, 16 regions / 1 region: {ratio:.2}");
    }
    db.close().expect("close");
}
