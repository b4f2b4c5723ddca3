//! What hot-spot sampling costs get throughput: the same database served with the heat
//! sampler on (at `--interval-ms`, 100 by default: fifty times the default rate) and off,
//! alternating, three rounds each; each round runs `--threads` threads of random gets for
//! `--secs` seconds. Prints each round and the medians. Also prints the hot path's own
//! share: the per-read work the load counters add (an `Arc` clone and drop, two relaxed
//! adds), timed alone, against one get.
//!
//! `cargo bench -p basalt-web --bench heat [-- --regions N --rows N --secs N --threads N]`

use basalt_api::{Connection, PreSplit};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_storage::region::load::LoadCounters;
use basalt_types::{FamilyDescriptor, Get, Put, SplitAlgorithm, TableDescriptor, TableName};
use basalt_web::heat::HeatConfig;
use basalt_web::{ServerInfo, WebConfig};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.windows(2)
        .find(|w| w[0] == name)
        .and_then(|w| w[1].parse().ok())
        .unwrap_or(default)
}

fn row(i: u64) -> String {
    format!("{:08x}", (i as u32).wrapping_mul(2_654_435_761))
}

/// Gets per second over `secs` with `threads` threads.
fn gets(conn: &Arc<dyn Connection>, name: &TableName, rows: u64, threads: u64, secs: u64) -> f64 {
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            let table = conn.table(name).expect("table");
            let (stop, done) = (stop.clone(), done.clone());
            std::thread::spawn(move || {
                let mut i = t * 7919;
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    i = (i + 104_729) % rows;
                    black_box(table.get(&Get::new(row(i))).expect("get"));
                    n += 1;
                }
                done.fetch_add(n, Ordering::Relaxed);
            })
        })
        .collect();
    let begun = Instant::now();
    std::thread::sleep(Duration::from_secs(secs));
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().expect("worker");
    }
    done.load(Ordering::Relaxed) as f64 / begun.elapsed().as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let regions = arg("--regions", 64);
    let rows = arg("--rows", 20_000);
    let secs = arg("--secs", 4);
    let threads = arg("--threads", 2);
    let interval_ms = arg("--interval-ms", 100);

    let counters = Arc::new(LoadCounters::default());
    let n = 5_000_000u32;
    let begun = Instant::now();
    for _ in 0..n {
        let c = black_box(counters.clone());
        c.add_scanned(black_box(1), black_box(80));
    }
    let per_read = begun.elapsed() / n;

    let dir = tempfile::tempdir().expect("temp dir");
    let db = Database::open(dir.path(), DbConfig::default()).expect("open");
    let conn: Arc<dyn Connection> = Arc::new(EmbeddedConnection::new(db.clone()));
    let name = TableName::parse("bench").expect("name");
    let family = FamilyDescriptor::new("f").expect("family");
    conn.admin()
        .create_table(
            &TableDescriptor::new(name.clone(), vec![family]),
            &PreSplit::Count {
                regions: u32::try_from(regions).expect("regions"),
                algorithm: SplitAlgorithm::HexString,
            },
        )
        .expect("create");
    let table = conn.table(&name).expect("table");
    for chunk in (0..rows).collect::<Vec<_>>().chunks(1000) {
        let puts: Vec<Put> = chunk
            .iter()
            .map(|i| Put::new(row(*i)).add("f", "q", "value"))
            .collect();
        table.put_many(&puts).expect("put");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    println!("{regions} regions, {rows} rows, {threads} threads of gets, {secs} s per run, sampling every {interval_ms} ms when on");
    let (mut on, mut off) = (Vec::new(), Vec::new());
    for round in 1..=3 {
        for enabled in [false, true] {
            let config = WebConfig {
                port: 0,
                heat: HeatConfig {
                    enabled,
                    sample_interval_ms: interval_ms,
                    ..HeatConfig::default()
                },
                ..WebConfig::default()
            };
            let info = ServerInfo::new("bench", dir.path().to_path_buf());
            let server = {
                let _entered = runtime.enter();
                basalt_web::start(db.clone(), conn.clone(), info, config).expect("start")
            };
            let rate = gets(&conn, &name, rows, threads, secs);
            runtime.block_on(server.shutdown());
            println!(
                "round {round} sampling {:<3} {rate:>10.0} gets/s",
                if enabled { "on" } else { "off" }
            );
            if enabled {
                on.push(rate)
            } else {
                off.push(rate)
            }
        }
    }
    let (on, off) = (median(on), median(off));
    let get = Duration::from_secs_f64(threads as f64 / off);
    println!(
        "median: sampling off {off:.0} gets/s, on {on:.0} gets/s: {:+.2}%",
        (on / off - 1.0) * 100.0
    );
    println!(
        "hot path: load counters per read {per_read:?} (Arc clone + drop, two relaxed adds) vs one get {get:?} per thread: {:.3}%",
        per_read.as_secs_f64() / get.as_secs_f64() * 100.0
    );
    db.close().expect("close");
}
