//! The storage engine's benchmark: prints figures, asserts nothing.
//!
//! ```text
//! cargo bench -p basalt-storage --bench engine                  # default run, ~30 s
//! cargo bench -p basalt-storage --bench engine -- --quick       # ~6 s smoke run
//! cargo bench -p basalt-storage --bench engine -- --rows 1000000 --dir /mnt/nvme --only load,get-disk
//! cargo bench -p basalt-storage --bench engine -- --help        # options and workload names
//! ```
//!
//! # What it measures
//! First the machine's limits, in the same run and folder: sequential write bandwidth
//! (buffered 1 MiB writes, one `fdatasync`), the append + `fdatasync` rate of one writer and
//! of two at once, random 4 KiB `pread`s served by the OS page cache, and one thread's
//! `memcpy` bandwidth. Then, on a fresh engine with one region of an HBase-like table
//! (`user%012d` rows, one family, `--columns` columns of `--value-size` bytes):
//!
//! 1. `load`: rows in key order (SKIP_WAL by default), then a flush.
//! 2. `full-scan-cold`, `get-cache`, `get-cache-mt`, `scan-100`, `full-scan`: reads with a
//!    large block cache (the first full scan fills it).
//! 3. The engine is closed and reopened with a block cache of one block: `get-disk` and
//!    `scan-100-disk` miss the block cache on almost every block. The files are still in the
//!    OS page cache (dropping it needs root), so these are block-cache misses, not device
//!    reads.
//! 4. `put-skip`, `put-sync-1`, `put-sync-mt`: random overwrites, SKIP_WAL, then SYNC_WAL
//!    from one thread and from `--threads` threads, the synced ones in slices interleaved
//!    with two fsync references (`fsync-interleaved`: 128 B appended then synced, a file
//!    growing; `fsync-prealloc-int`: 128 B overwritten in a preallocated file then synced,
//!    data only), their p50 and p99 given as ratios of both; then a flush of what they
//!    left in the memstore.
//! 5. `compact-tails`: one reader and one writer against the settled store, then while a
//!    major compaction runs: their p99/p99.9 under compaction as ratios of the settled ones
//!    (`--compaction-mib-s` sets the compaction's pace, 0 for none); then `compact`.
//!
//! Gets and scans pick rows uniformly at random (seeded xorshift); every row they ask for
//! exists, and a get that finds nothing is reported as a bug under its line.
//!
//! # How to read it
//! One line per workload: ops, op/s, MB/s (logical bytes: row + family + qualifier + value
//! of each cell), latency p50 / p99 / max per op, the process's CPU use (every thread,
//! background flushes included; 200% = both cores of a 2-core machine) and CPU time per op,
//! and the figure as a fraction of its physical limit. Notes under a line give the block
//! cache's hits and misses, or the log's syncs. On shared 2-core machines absolute figures
//! swing several-fold between runs (cpu% well under 100 on a one-thread workload means
//! neighbours took the CPU): read the ratios against the limits measured in the same run
//! and the CPU time per op, and compare runs by their median of three.

mod support;

use basalt_storage::block_cache::BlockCache;
use basalt_storage::clock::SystemClock;
use basalt_storage::fs::LocalFs;
use basalt_storage::{Engine, Region, RegionInfo, StorageConfig};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use support::data::DataSet;
use support::limits::{self, Limits};
use support::options::{self, Options, Parsed};
use support::report::{count, print_line, Outcome, TABLE_HEADER};
use support::{put_phase, reads, tails, writes, BenchResult};

const WARM_READS: &[&str] = &[
    "full-scan-cold",
    "get-cache",
    "get-cache-mt",
    "scan-100",
    "full-scan",
];
const COLD_READS: &[&str] = &["get-disk", "scan-100-disk"];
const PUTS: &[&str] = &[
    "put-skip",
    "put-sync-1",
    "put-sync-mt",
    "compact-tails",
    "compact",
];

fn main() -> ExitCode {
    match options::parse(std::env::args().skip(1)) {
        Err(message) => {
            eprintln!("error: {message}\n\n{}", options::usage());
            ExitCode::from(2)
        }
        Ok(Parsed::Help) => {
            print!("{}", options::usage());
            ExitCode::SUCCESS
        }
        Ok(Parsed::NotABenchRun) => {
            eprintln!("the engine benchmark runs under `cargo bench` only; nothing to do");
            ExitCode::SUCCESS
        }
        Ok(Parsed::Run(options)) => match run(&options) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("benchmark failed: {e}");
                ExitCode::FAILURE
            }
        },
    }
}

fn run(options: &Options) -> BenchResult<()> {
    let base = options.dir.clone().unwrap_or_else(std::env::temp_dir);
    let folder = tempfile::Builder::new()
        .prefix("basalt-bench-")
        .tempdir_in(&base)
        .map_err(|e| format!("creating a folder under {}: {e}", base.display()))?;
    let data = DataSet::new(options);
    print_header(options, &data, folder.path());
    println!("{TABLE_HEADER}");
    let limits = measure_limits(options, folder.path())?;
    let root = folder.path().join("engine");
    // Everything but the puts needs the loaded rows.
    if options.wants_any(&["load", "compact", "compact-tails"])
        || options.wants_any(WARM_READS)
        || options.wants_any(COLD_READS)
    {
        let engine = open_engine(&root, options.cache_bytes, options)?;
        let region =
            engine.open_region(RegionInfo::whole("usertable,,1"), DataSet::table(options))?;
        let load = writes::load(&region, &data, options.load_durability, options.seed)?;
        let ratio = load
            .mb_per_sec()
            .zip(limits.seq_write_mb_s)
            .map(|(mbs, limit)| (mbs / limit, "seq-write"));
        print_line(Outcome { ratio, ..load });
        warm_reads(options, &region, &engine.context().cache, &data, &limits)?;
        drop(region);
        engine.close()?;
    }
    if options.wants_any(COLD_READS) || options.wants_any(PUTS) {
        // One block: nearly every block a read needs is read and decoded again.
        let engine = open_engine(&root, u64::from(options.block_size_bytes), options)?;
        let region =
            engine.open_region(RegionInfo::whole("usertable,,1"), DataSet::table(options))?;
        cold_reads(options, &region, &engine.context().cache, &data, &limits)?;
        let target = put_phase::Target {
            region: &region,
            wal: &engine.context().wal,
        };
        put_phase::run(options, &target, &data, &limits, folder.path())?;
        if options.wants("compact-tails") {
            tails::compaction_tails(&region, &engine.context().jobs, &data, options)?;
        }
        if options.wants("compact") {
            put_phase::major_compaction(&region, &limits)?;
        }
        drop(region);
        engine.close()?;
    }
    print_footer();
    Ok(())
}

fn open_engine(root: &Path, cache_bytes: u64, options: &Options) -> BenchResult<Arc<Engine>> {
    let mut config = StorageConfig {
        block_cache_bytes: cache_bytes,
        ..StorageConfig::default()
    };
    if let Some(mib_s) = options.compaction_mib_s {
        config.compaction_throughput_lower_bytes_per_sec = mib_s << 20;
        config.compaction_throughput_higher_bytes_per_sec = mib_s << 20;
    }
    Ok(Engine::open(
        Arc::new(LocalFs),
        root,
        config,
        Arc::new(SystemClock),
    )?)
}

fn measure_limits(options: &Options, dir: &Path) -> BenchResult<Limits> {
    let mut limits = Limits::default();
    let short_secs = options.phase_secs.min(1.5);
    if options.wants("seq-write") || options.wants("pread") {
        let outcome = limits::seq_write(dir, options.seq_write_mib.max(1), options.seed)?;
        limits.seq_write_mb_s = outcome.mb_per_sec();
        if options.wants("seq-write") {
            print_line(outcome);
        }
    }
    if options.wants("fsync") {
        let outcome = limits::fsync_rate(dir, short_secs, 1)?;
        limits.fsync_per_s = Some(outcome.ops_per_sec());
        print_line(outcome);
        print_line(limits::fsync_rate(dir, short_secs / 2.0, 2)?);
    }
    if options.wants("pread") {
        let outcome = limits::pread_rate(dir, short_secs / 2.0, options.seed)?;
        limits.pread_per_s = Some(outcome.ops_per_sec());
        print_line(outcome);
    }
    limits::remove_seq_file(dir);
    if options.wants("memcpy") {
        let outcome = limits::memcpy_rate(short_secs / 4.0);
        limits.memcpy_mb_s = outcome.mb_per_sec();
        print_line(outcome);
    }
    Ok(limits)
}

/// Reads with the large block cache; the first full scan fills it.
fn warm_reads(
    options: &Options,
    region: &Region,
    cache: &BlockCache,
    data: &DataSet,
    limits: &Limits,
) -> BenchResult<()> {
    let secs = options.phase_secs;
    let vs_memcpy = |o: &Outcome| {
        o.mb_per_sec()
            .zip(limits.memcpy_mb_s)
            .map(|(mbs, limit)| (mbs / limit, "memcpy"))
    };
    if options.wants_any(WARM_READS) {
        let outcome = with_cache(cache, || reads::full_scan("full-scan-cold", region, data))?;
        if options.wants("full-scan-cold") {
            print_line(Outcome {
                ratio: vs_memcpy(&outcome),
                ..outcome
            });
        }
    }
    if options.wants("get-cache") {
        print_line(with_cache(cache, || {
            reads::random_gets("get-cache", region, data, 1, secs, options.seed ^ 1)
        })?);
    }
    if options.wants("get-cache-mt") {
        let threads = options.read_threads;
        let name = format!("get-cache-{threads}");
        print_line(with_cache(cache, || {
            reads::random_gets(&name, region, data, threads, secs, options.seed ^ 8)
        })?);
    }
    if options.wants("scan-100") {
        let outcome = with_cache(cache, || {
            reads::short_scans("scan-100", region, data, 100, secs, options.seed ^ 2)
        })?;
        print_line(Outcome {
            ratio: vs_memcpy(&outcome),
            ..outcome
        });
    }
    if options.wants("full-scan") {
        let outcome = with_cache(cache, || reads::full_scan("full-scan", region, data))?;
        print_line(Outcome {
            ratio: vs_memcpy(&outcome),
            ..outcome
        });
    }
    Ok(())
}

/// Reads with a block cache of one block.
fn cold_reads(
    options: &Options,
    region: &Region,
    cache: &BlockCache,
    data: &DataSet,
    limits: &Limits,
) -> BenchResult<()> {
    let secs = options.phase_secs;
    if options.wants("get-disk") {
        let mut outcome = with_cache(cache, || {
            reads::random_gets("get-disk", region, data, 1, secs, options.seed ^ 3)
        })?;
        outcome.ratio = limits
            .pread_per_s
            .map(|limit| (outcome.ops_per_sec() / limit, "pread"));
        outcome.add_note("the OS page cache still holds the files");
        print_line(outcome);
    }
    if options.wants("scan-100-disk") {
        let outcome = with_cache(cache, || {
            reads::short_scans("scan-100-disk", region, data, 100, secs, options.seed ^ 4)
        })?;
        let ratio = outcome
            .mb_per_sec()
            .zip(limits.memcpy_mb_s)
            .map(|(mbs, limit)| (mbs / limit, "memcpy"));
        print_line(Outcome { ratio, ..outcome });
    }
    Ok(())
}

/// Runs a read workload and notes what the block cache did meanwhile.
fn with_cache(
    cache: &BlockCache,
    workload: impl FnOnce() -> BenchResult<Outcome>,
) -> BenchResult<Outcome> {
    let before = cache.stats();
    let mut outcome = workload()?;
    let after = cache.stats();
    let (hits, misses) = (after.hits - before.hits, after.misses - before.misses);
    outcome.add_note(format!(
        "block cache: {} hits, {} misses ({:.1}% hits), {} blocks / {:.1} MiB held",
        count(hits),
        count(misses),
        100.0 * hits as f64 / (hits + misses).max(1) as f64,
        after.entries,
        after.size_bytes as f64 / 1048576.0
    ));
    Ok(outcome)
}

fn print_header(options: &Options, data: &DataSet, folder: &Path) {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!("Basalt storage engine benchmark");
    if cfg!(debug_assertions) {
        println!(
            "WARNING: built without optimizations; figures are meaningless (use `cargo bench`)"
        );
    }
    println!(
        "rows {} × {} column(s) × {} B values (keys user%012d, family f) = {:.1} MiB logical",
        options.rows,
        data.columns(),
        options.value_size_bytes,
        (options.rows * data.row_bytes()) as f64 / 1048576.0
    );
    println!(
        "block size {} B, compression {}, ROW bloom; block cache {} MiB (warm reads) / one block (disk reads)",
        options.block_size_bytes,
        options.compression.name(),
        options.cache_bytes >> 20
    );
    println!(
        "load {}; put-sync-mt {} threads; timed workloads {} s each; seed {}",
        options.load_durability.name(),
        options.threads,
        options.phase_secs,
        options.seed
    );
    println!("folder {} ({cpus} CPUs)", folder.display());
    println!(
        "NOTE: on shared 2-core machines absolute figures are noisy (3-10× swings); read the \
         ratios against the limits measured in this run"
    );
    println!();
}

fn print_footer() {
    println!();
    println!(
        "MB/s counts row + family + qualifier + value bytes per cell. cpu% is the whole process"
    );
    println!(
        "(background flushes included); 200% = two busy cores. get-disk and scan-100-disk miss the"
    );
    println!("block cache but are served by the OS page cache, not the device.");
}
