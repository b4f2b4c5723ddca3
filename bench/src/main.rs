//! The side-by-side engine bench: YCSB-style workloads against Basalt's embedded database,
//! RocksDB and fjall at equal settings, interleaved phase by phase in one run, each figure
//! printed with its ratio to RocksDB, beside the machine's limits measured in the same run.
//!
//! cd bench && cargo run --release -- [--records N] [--ops N]
//!     [--sync-ops N] [--cache-mb N] [--dir DIR] [--engines basalt,rocksdb,fjall]
//!     [--compression none|lz4] [--encoding none|prefix|fast_diff]

mod encodings;
mod engines;
mod limits;
mod phases;
mod report;
mod workload;

use engines::{Engine, KeyLayout, Settings};
use report::Report;
use std::path::PathBuf;
use std::time::Duration;

#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Args {
    records: u64,
    ops: u64,
    sync_ops: u64,
    cache_mb: u64,
    dir: PathBuf,
    engines: Vec<String>,
    lz4: bool,
    keys: KeyLayout,
    encodings_table: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        records: 100_000,
        ops: 100_000,
        sync_ops: 4_000,
        cache_mb: 32,
        dir: std::env::temp_dir().join(format!("basalt-bench-{}", std::process::id())),
        engines: ["basalt", "rocksdb", "fjall"]
            .into_iter()
            .filter(|e| compiled_in(e))
            .map(str::to_string)
            .collect(),
        lz4: false,
        keys: KeyLayout::Whole,
        encodings_table: true,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--help" || flag == "-h" {
            println!("{}", HELP);
            std::process::exit(0);
        }
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = || value.parse::<u64>().map_err(|e| format!("{flag} {value}: {e}"));
        match flag.as_str() {
            "--records" => args.records = number()?,
            "--ops" => args.ops = number()?,
            "--sync-ops" => args.sync_ops = number()?,
            "--cache-mb" => args.cache_mb = number()?,
            "--dir" => args.dir = PathBuf::from(&value),
            "--engines" => args.engines = value.split(',').map(str::to_string).collect(),
            "--compression" => {
                args.lz4 = match value.to_ascii_lowercase().as_str() {
                    "none" => false,
                    "lz4" => true,
                    other => return Err(format!("--compression {other}: expected none or lz4")),
                }
            }
            "--encoding" => args.keys = KeyLayout::parse(&value)?,
            "--encodings-table" => {
                args.encodings_table = match value.as_str() {
                    "yes" => true,
                    "no" => false,
                    other => return Err(format!("--encodings-table {other}: expected yes or no")),
                }
            }
            "--only" => {
                let _ = phases::ONLY.set(value.clone());
            }
            other => return Err(format!("unknown flag {other}; see --help")),
        }
    }
    Ok(args)
}

const HELP: &str = "basalt-bench: Basalt vs RocksDB vs fjall, same workloads, same settings, one run

  --records N      YCSB records (10 fields x 100 bytes) [100000]
  --ops N          operations per workload [100000]
  --sync-ops N     synced single puts, 8 threads [4000]
  --cache-mb N     block cache per engine [32]; memtables 64 MiB, blocks 64 KiB
  --compression C  data blocks on every engine: none or lz4 [none]
  --encoding E     keys in data blocks: none (Basalt NONE; RocksDB and fjall restart at every
                   key), prefix (Basalt PREFIX; the others' default prefix deltas) or
                   fast_diff (Basalt FAST_DIFF; the others as for prefix) [none]
  --encodings-table yes|no  end a full run with the block-encoding table [yes]
  --dir DIR        where the engines keep their files [a fresh temp folder]
  --engines LIST   comma-separated subset of basalt,rocksdb,fjall
  --only TEXT      run only the phases whose name holds TEXT (and the load), e.g. \"ycsb C\";
                   `--only encodings`: only the block-encoding table (Basalt alone, one
                   database per DATA_BLOCK_ENCODING), which every full run prints too";

/// Whether the engine `name` was built in (RocksDB and fjall are default features).
fn compiled_in(name: &str) -> bool {
    match name {
        "rocksdb" => cfg!(feature = "rocksdb"),
        "fjall" => cfg!(feature = "fjall"),
        _ => true,
    }
}

fn open(name: &str, dir: &std::path::Path, s: Settings) -> Result<Box<dyn Engine>, String> {
    let path = dir.join(name);
    std::fs::create_dir_all(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(match name {
        "basalt" => Box::new(engines::basalt::Basalt::open(&path, s)?),
        #[cfg(feature = "rocksdb")]
        "rocksdb" => Box::new(engines::rocks::Rocks::open(&path, s)?),
        #[cfg(feature = "fjall")]
        "fjall" => Box::new(engines::fjall::Fjall::open(&path, s)?),
        other => return Err(format!("unknown engine {other}")),
    })
}

/// Fresh instances of every engine under `<dir>/<folder>`.
fn open_all(args: &Args, folder: &str, s: Settings) -> Result<Vec<Box<dyn Engine>>, String> {
    args.engines
        .iter()
        .map(|name| open(name, &args.dir.join(folder), s))
        .collect()
}

fn main() {
    if let Err(e) = run() {
        eprintln!("basalt-bench: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    std::fs::create_dir_all(&args.dir).map_err(|e| e.to_string())?;
    let settings = Settings {
        block_bytes: 64 << 10,
        cache_bytes: args.cache_mb << 20,
        memtable_bytes: 64 << 20,
        lz4: args.lz4,
        keys: args.keys,
    };
    if phases::ONLY.get().is_some_and(|only| only == "encodings") {
        print!("{}", encodings::run(&args, settings)?);
        let _ = std::fs::remove_dir_all(&args.dir);
        return Ok(());
    }
    let mut report = Report::new(args.engines.clone());
    for name in &args.engines {
        let probe = open(name, &args.dir.join("configuration"), settings)?;
        report.configuration(probe.name(), probe.configuration());
    }
    let _ = std::fs::remove_dir_all(args.dir.join("configuration"));
    eprintln!("measuring the machine's limits...");
    let seq = limits::sequential_write_mb_s(&args.dir, 256).map_err(|e| e.to_string())?;
    let syncs =
        limits::fdatasync_per_s(&args.dir, Duration::from_secs(2)).map_err(|e| e.to_string())?;
    report.limit("sequential write (MB/s)", seq);
    report.limit("append 4 KiB + fdatasync (/s)", syncs);

    if !phases::only_fresh_loads() {
        let main = open_all(&args, "main", settings)?;
        phases::run_all(&main, &args, &mut report)?;
        drop(main);
    }

    let bulk = open_all(&args, "bulk", settings)?;
    phases::bulk_load(&bulk, args.records, seq, &mut report)?;
    drop(bulk);
    let sequential = open_all(&args, "sequential", settings)?;
    phases::sequential_put_load(&sequential, args.records, seq, &mut report)?;
    drop(sequential);

    report.rss_mib = limits::peak_rss_mib();
    report.allocator = if cfg!(feature = "mimalloc") {
        "mimalloc (Basalt, fjall); RocksDB's C++ allocates with the system malloc"
    } else {
        "the system malloc for every engine"
    };
    print!("{}", report.render(&args.records, &args.ops));
    if phases::ONLY.get().is_none() && args.encodings_table {
        print!("{}", encodings::run(&args, settings)?);
    }
    let _ = std::fs::remove_dir_all(&args.dir);
    Ok(())
}

pub(crate) use Args as BenchArgs;
