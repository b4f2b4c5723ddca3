//! What hot-spot sampling costs get throughput: the same database served in three arms —
//! everything off (`load::set_accounting(false)`: scanners uncounted, writes unsampled; no
//! sampler), the load accounting alone, and the accounting with the heat sampler (at
//! `--interval-ms`, 100 by default: fifty times the default rate) — rotating which goes
//! first, three rounds; each run is `--threads` threads of random gets for `--secs`
//! seconds. Prints each run, each arm's median and its difference from the first. Also prints the hot path's own
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

/// The process's CPU time so far (user and system, every thread, live or ended), in
/// seconds, from `/proc/self/stat` (clock ticks of 10 ms).
fn cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("read /proc/self/stat");
    let after_name = &stat[stat.rfind(')').expect("a comm field") + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks: u64 =
        fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    ticks as f64 / 100.0
}

/// CPU nanoseconds a thread of this process has run, from its `schedstat`: the calling
/// thread's (`None`), or the one named `name`'s (None when there is no such thread).
fn thread_cpu_ns(name: Option<&str>) -> Option<u64> {
    let path = match name {
        None => std::path::PathBuf::from("/proc/thread-self"),
        Some(name) => std::fs::read_dir("/proc/self/task")
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|task| {
                std::fs::read_to_string(task.join("comm")).is_ok_and(|c| c.trim() == name)
            })?,
    };
    let stat = std::fs::read_to_string(path.join("schedstat")).ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// Gets per second over `secs` with `threads` threads, and the process's CPU microseconds
/// per get over the same time (the sampler's and the web server's included): on a busy
/// machine the second moves far less with other processes' load than the first.
fn gets(
    conn: &Arc<dyn Connection>,
    name: &TableName,
    rows: u64,
    threads: u64,
    secs: u64,
) -> (f64, f64, f64) {
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
    let (begun, cpu) = (Instant::now(), cpu_secs());
    std::thread::sleep(Duration::from_secs(secs));
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().expect("worker");
    }
    let n = done.load(Ordering::Relaxed) as f64;
    (
        n / begun.elapsed().as_secs_f64(),
        (cpu_secs() - cpu) * 1e6 / n.max(1.0),
        n,
    )
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
    let begun = thread_cpu_ns(None).expect("schedstat");
    for _ in 0..n {
        let c = black_box(counters.clone());
        c.add_scanned(black_box(1), black_box(80));
    }
    let per_read_ns = (thread_cpu_ns(None).expect("schedstat") - begun) as f64 / f64::from(n);

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
    // (name, load accounting, sampler); the first is the reference.
    let arms = [
        ("off", false, false),
        ("accounting", true, false),
        ("accounting+sampler", true, true),
    ];
    let mut rates: Vec<Vec<f64>> = vec![Vec::new(); arms.len()];
    let mut cpu: Vec<Vec<f64>> = vec![Vec::new(); arms.len()];
    let mut sampler_ns_per_get = Vec::new();
    for round in 0..3 {
        // Rotate which arm goes first, so that warming up favours none.
        for k in 0..arms.len() {
            let arm = (k + round) % arms.len();
            let (label, accounting, sampling) = arms[arm];
            basalt_storage::region::load::set_accounting(accounting);
            let config = WebConfig {
                port: 0,
                heat: HeatConfig {
                    enabled: sampling,
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
            let sampler_before = thread_cpu_ns(Some("heat-sampler")).unwrap_or(0);
            let (rate, cpu_us, n) = gets(&conn, &name, rows, threads, secs);
            if let Some(after) = thread_cpu_ns(Some("heat-sampler")) {
                sampler_ns_per_get.push((after - sampler_before) as f64 / n.max(1.0));
            }
            runtime.block_on(server.shutdown());
            println!(
                "round {} {label:<20} {rate:>10.0} gets/s {cpu_us:>8.2} CPU us per get",
                round + 1
            );
            rates[arm].push(rate);
            cpu[arm].push(cpu_us);
        }
    }
    let medians: Vec<f64> = rates.into_iter().map(median).collect();
    let cpu: Vec<f64> = cpu.into_iter().map(median).collect();
    let (off, off_cpu) = (medians[0], cpu[0]);
    for (((label, _, _), m), c) in arms.iter().zip(&medians).zip(&cpu) {
        println!(
            "median {label:<20} {m:>10.0} gets/s {:+7.2}%   {c:>8.2} CPU us per get {:+7.2}%   (against off)",
            (m / off - 1.0) * 100.0,
            (c / off_cpu - 1.0) * 100.0
        );
    }
    let sampler = median(sampler_ns_per_get);
    println!(
        "sampler thread: {sampler:.1} CPU ns per get = {:.3}% of the CPU per get with everything off",
        sampler / (off_cpu * 1000.0) * 100.0
    );
    println!(
        "hot path: load counters {per_read_ns:.1} CPU ns per read (Arc clone + drop, two relaxed adds) = {:.3}% of the CPU per get",
        per_read_ns / (off_cpu * 1000.0) * 100.0
    );
    db.close().expect("close");
}
