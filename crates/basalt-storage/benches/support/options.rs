//! The command line: `cargo bench -p basalt-storage --bench engine -- [options]`.

use basalt_types::{Compression, Durability};
use std::path::PathBuf;

/// Every workload, in the order they run, with what `--only` calls it.
pub const WORKLOADS: &[(&str, &str)] = &[
    (
        "seq-write",
        "limit: 1 MiB buffered writes, one fdatasync at the end",
    ),
    (
        "fsync",
        "limit: 128 B append + fdatasync; one writer, then two at once",
    ),
    (
        "pread",
        "limit: random 4 KiB pread of a file in the OS page cache",
    ),
    ("memcpy", "limit: memcpy bandwidth of one thread"),
    ("load", "sorted keys, --load-durability, then a flush"),
    (
        "full-scan-cold",
        "every row, block cache empty (files in the OS page cache)",
    ),
    (
        "get-cache",
        "random gets, block cache warm and large enough",
    ),
    ("get-cache-mt", "the same from --read-threads threads"),
    (
        "scan-100",
        "100-row scans from random start rows, block cache warm",
    ),
    ("full-scan", "every row, block cache warm"),
    (
        "get-disk",
        "random gets, block cache of one block (OS page cache warm)",
    ),
    ("scan-100-disk", "100-row scans, block cache of one block"),
    ("put-skip", "random puts, SKIP_WAL, 1 thread"),
    ("put-sync-1", "random puts, SYNC_WAL, 1 thread"),
    (
        "put-sync-mt",
        "random puts, SYNC_WAL, --threads threads (group commit)",
    ),
    (
        "compact-tails",
        "get and put p99/p99.9 while a major compaction runs, against the store settled",
    ),
    (
        "compact",
        "major compaction of the load's file and the puts' flushes",
    ),
];

/// What to run and how big.
#[derive(Debug, Clone)]
pub struct Options {
    pub rows: u64,
    pub value_size_bytes: usize,
    pub columns: usize,
    pub threads: usize,
    /// Readers of get-cache-mt.
    pub read_threads: usize,
    /// Where the fresh engine folder goes (a temporary folder under it).
    pub dir: Option<PathBuf>,
    /// Workload names; `None` runs them all.
    pub only: Option<Vec<String>>,
    /// How long each timed workload runs.
    pub phase_secs: f64,
    pub seq_write_mib: u64,
    pub block_size_bytes: u32,
    pub cache_bytes: u64,
    pub compression: Compression,
    pub load_durability: Durability,
    pub seed: u64,
    /// Compaction pace in MiB/s (0: none); `None` keeps the engine's default bounds.
    pub compaction_mib_s: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            rows: 200_000,
            value_size_bytes: 100,
            columns: 1,
            threads: 8,
            read_threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            dir: None,
            only: None,
            phase_secs: 2.0,
            seq_write_mib: 256,
            block_size_bytes: 64 * 1024,
            cache_bytes: 256 * 1024 * 1024,
            compression: Compression::None,
            load_durability: Durability::SkipWal,
            seed: 0x5EED_BA5A,
            compaction_mib_s: None,
        }
    }
}

impl Options {
    /// Whether `--only` selects `name` (or there is no `--only`).
    pub fn wants(&self, name: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|only| only.iter().any(|n| n == name))
    }

    /// Whether any of `names` runs.
    pub fn wants_any(&self, names: &[&str]) -> bool {
        names.iter().any(|n| self.wants(n))
    }
}

/// What the command line asks for.
pub enum Parsed {
    Run(Options),
    Help,
    /// Built by `cargo test --all-targets` or run without `--bench`: nothing to measure.
    NotABenchRun,
}

/// Parses the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Parsed, String> {
    let mut options = Options::default();
    let mut bench_flag = false;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        // A value never starts with "--": cargo appends `--bench` after the user's options.
        let mut value = |what: &str| {
            args.next()
                .filter(|v| !v.starts_with("--"))
                .ok_or_else(|| format!("{arg} needs {what}"))
        };
        match arg.as_str() {
            "--bench" => bench_flag = true,
            "-h" | "--help" => return Ok(Parsed::Help),
            "--quick" => {
                options.rows = 50_000;
                options.phase_secs = 0.5;
                options.seq_write_mib = 64;
            }
            "--rows" => options.rows = number(&arg, &value("a row count")?)?,
            "--value-size" => options.value_size_bytes = number(&arg, &value("bytes")?)?,
            "--columns" => options.columns = number(&arg, &value("a column count")?)?,
            "--threads" => options.threads = number(&arg, &value("a thread count")?)?,
            "--read-threads" => options.read_threads = number(&arg, &value("a thread count")?)?,
            "--secs" => options.phase_secs = number(&arg, &value("seconds")?)?,
            "--seq-write-mib" => options.seq_write_mib = number(&arg, &value("MiB")?)?,
            "--block-size" => options.block_size_bytes = number(&arg, &value("bytes")?)?,
            "--cache-mib" => options.cache_bytes = number::<u64>(&arg, &value("MiB")?)? << 20,
            "--seed" => options.seed = number(&arg, &value("a number")?)?,
            "--compaction-mib-s" => {
                options.compaction_mib_s = Some(number(&arg, &value("MiB/s")?)?);
            }
            "--dir" => options.dir = Some(PathBuf::from(value("a folder")?)),
            "--compression" => {
                options.compression =
                    Compression::parse(&value("a codec")?).map_err(|e| e.to_string())?;
            }
            "--load-durability" => {
                options.load_durability = Durability::parse(&value("SKIP_WAL or ASYNC_WAL")?)
                    .map_err(|e| e.to_string())?;
            }
            "--only" => options.only = Some(workload_names(&value("workload names")?)?),
            // libtest flags cargo may pass (e.g. `cargo bench -- --nocapture` habits).
            "--nocapture" | "--quiet" | "-q" => {}
            other => return Err(format!("unknown option '{other}'")),
        }
    }
    if !bench_flag {
        return Ok(Parsed::NotABenchRun);
    }
    validate(&options)?;
    Ok(Parsed::Run(options))
}

fn validate(options: &Options) -> Result<(), String> {
    if [
        options.rows,
        options.columns as u64,
        options.threads as u64,
        options.read_threads as u64,
    ]
    .contains(&0)
    {
        return Err("--rows, --columns, --threads and --read-threads must be positive".into());
    }
    if !(options.phase_secs > 0.0 && options.phase_secs.is_finite()) {
        return Err("--secs must be a positive number".into());
    }
    Ok(())
}

fn number<T: std::str::FromStr>(flag: &str, text: &str) -> Result<T, String> {
    let cleaned: String = text.chars().filter(|c| *c != '_').collect();
    cleaned
        .parse()
        .map_err(|_| format!("{flag}: '{text}' is not a valid number"))
}

fn workload_names(list: &str) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let name = if name == "limits" { None } else { Some(name) };
        match name {
            None => names.extend(WORKLOADS[..4].iter().map(|(n, _)| n.to_string())),
            Some(n) if WORKLOADS.iter().any(|(w, _)| *w == n) => names.push(n.to_string()),
            Some(n) => return Err(format!("--only: unknown workload '{n}' (see --help)")),
        }
    }
    Ok(names)
}

/// The `--help` text.
pub fn usage() -> String {
    let d = Options::default();
    let flags = [
        ("--rows N", format!("rows loaded ({})", d.rows)),
        (
            "--value-size B",
            format!("bytes per value ({})", d.value_size_bytes),
        ),
        (
            "--columns C",
            format!("columns per row, one family ({})", d.columns),
        ),
        (
            "--threads T",
            format!("writers of put-sync-mt ({})", d.threads),
        ),
        (
            "--read-threads R",
            format!("readers of get-cache-mt ({})", d.read_threads),
        ),
        (
            "--secs S",
            format!("length of each timed workload ({})", d.phase_secs),
        ),
        (
            "--seq-write-mib M",
            format!("size of the seq-write limit test ({})", d.seq_write_mib),
        ),
        (
            "--block-size B",
            format!("HFile block size ({})", d.block_size_bytes),
        ),
        (
            "--cache-mib M",
            format!("block cache of the warm reads ({})", d.cache_bytes >> 20),
        ),
        (
            "--compression C",
            "NONE, LZ4, SNAPPY, ZSTD or GZ (NONE)".into(),
        ),
        (
            "--load-durability D",
            "SKIP_WAL or ASYNC_WAL for the load (SKIP_WAL)".into(),
        ),
        (
            "--dir PATH",
            "make the engine folder under PATH (the temp folder)".into(),
        ),
        (
            "--only A,B,...",
            "run only these workloads; 'limits' = the four limits".into(),
        ),
        (
            "--quick",
            "50 000 rows, 0.5 s workloads, 64 MiB sequential write".into(),
        ),
        (
            "--seed N",
            format!("seed of the key and value generator ({})", d.seed),
        ),
        (
            "--compaction-mib-s N",
            "compaction pace, 0 for none (the engine's: 50-100 by pressure)".into(),
        ),
    ];
    let mut text = String::from("Basalt storage engine benchmark\n\n");
    text.push_str("usage: cargo bench -p basalt-storage --bench engine -- [options]\n\noptions:\n");
    for (flag, what) in flags {
        text.push_str(&format!("  {flag:<21} {what}\n"));
    }
    text.push_str("\nworkloads:\n");
    for (name, what) in WORKLOADS {
        text.push_str(&format!("  {name:<21} {what}\n"));
    }
    text
}
