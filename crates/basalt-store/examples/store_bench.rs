//! What a store costs: PUT latency of 4 KiB objects, and the latency of a log's group
//! commit (a 4 KiB append and a sync, one chunk object) through `StoreFs`.
//!
//! ```text
//! cargo run -p basalt-store --example store_bench --release -- --url file:///tmp/store
//! cargo run -p basalt-store --example store_bench --release -- --url s3://bucket/bench \
//!     --endpoint http://127.0.0.1:9000          # credentials from AWS_* variables
//! cargo run -p basalt-store --example store_bench --release -- --moto   # a local moto server
//! ```
//! Each measure runs three times; the p50 and p99 printed are the medians of the three
//! runs'. Everything is written under `store-bench-<nonce>/`, removed at the end.

use basalt_storage::fs::FileSystem;
use basalt_store::{blocking, ListMode, StoreFs, StoreOptions};
use bytes::Bytes;
use clap::Parser;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

#[derive(Parser)]
#[command(about = "Latency of PUTs and of log syncs on a store")]
struct Args {
    /// The store: file:///dir, s3://bucket/prefix or memory://.
    #[arg(long, required_unless_present = "moto")]
    url: Option<String>,
    /// The endpoint of an S3-compatible service (http allowed).
    #[arg(long)]
    endpoint: Option<String>,
    /// Start a moto server (scripts/moto.sh) and measure it.
    #[arg(long)]
    moto: bool,
    /// Operations per run.
    #[arg(long, default_value_t = 200)]
    ops: usize,
}

const OBJECT_BYTES: usize = 4096;
const RUNS: usize = 3;

/// p50 and p99 of a run.
fn percentiles(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (at(0.50), at(0.99))
}

/// The medians, over the runs, of each run's p50 and p99.
fn medians(runs: Vec<(Duration, Duration)>) -> (Duration, Duration) {
    let mut p50: Vec<Duration> = runs.iter().map(|r| r.0).collect();
    let mut p99: Vec<Duration> = runs.iter().map(|r| r.1).collect();
    p50.sort();
    p99.sort();
    (p50[p50.len() / 2], p99[p99.len() / 2])
}

fn puts(fs: &StoreFs, base: &str, run: usize, ops: usize) -> Vec<Duration> {
    let body = Bytes::from(vec![0x5a; OBJECT_BYTES]);
    (0..ops)
        .map(|i| {
            let (store, key, body) = (
                fs.store().clone(),
                format!("{base}/put/{run}/{i}"),
                body.clone(),
            );
            let started = Instant::now();
            blocking(async move { store.put(&key, body).await }).expect("put");
            started.elapsed()
        })
        .collect()
}

fn log_syncs(fs: &StoreFs, base: &str, run: usize, ops: usize) -> Vec<Duration> {
    let path = PathBuf::from(format!("/{base}/wal/wal-{run}.log"));
    let mut log = fs.create(&path).expect("create log");
    let record = vec![0xa5; OBJECT_BYTES];
    (0..ops)
        .map(|_| {
            let started = Instant::now();
            log.write_all(&record).expect("append");
            log.sync_data().expect("sync");
            started.elapsed()
        })
        .collect()
}

fn show(what: &str, (p50, p99): (Duration, Duration)) {
    println!(
        "{what:<34} p50 {:>8.2} ms   p99 {:>8.2} ms",
        p50.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3
    );
}

fn main() {
    let args = Args::parse();
    let moto = args
        .moto
        .then(|| basalt_store::testing::MotoServer::start().expect("moto starts"));
    let (url, options) = match &moto {
        Some(moto) => (moto.url("bench"), moto.options()),
        None => (
            args.url.clone().expect("--url"),
            StoreOptions {
                endpoint: args.endpoint.clone(),
                ..StoreOptions::default()
            },
        ),
    };
    let fs = StoreFs::open(&url, options).expect("store opens");
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let base = format!("store-bench-{nanos:x}");
    println!(
        "store {url}: {} ops per run, {RUNS} runs, medians of each run's percentiles",
        args.ops
    );
    let put_runs = (0..RUNS)
        .map(|run| percentiles(puts(&fs, &base, run, args.ops)))
        .collect();
    show("PUT 4 KiB", medians(put_runs));
    let sync_runs = (0..RUNS)
        .map(|run| percentiles(log_syncs(&fs, &base, run, args.ops)))
        .collect();
    show("log append 4 KiB + sync (1 chunk)", medians(sync_runs));
    let store = fs.store().clone();
    let removed = blocking(async move {
        let listed = store.list(&base, ListMode::Recursive).await?;
        for object in &listed.objects {
            store.delete(&object.key).await?;
        }
        Ok(listed.objects.len())
    })
    .expect("clean up");
    println!("removed the {removed} objects the benchmark wrote");
}
