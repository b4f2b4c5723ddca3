//! The block-encoding table: Basalt alone, one fresh database per DATA_BLOCK_ENCODING,
//! each loaded with the same records (random order, a flush, a major compaction, so each
//! holds one file of the same cells), then each measure taken on every encoding in turn,
//! so the encodings meet the same machine. Each figure is printed beside its ratio to NONE
//! and to PREFIX from the same run: bytes of the store file, and CPU times (lower is
//! better) of the load, the compaction (decode + encode every cell), uniform gets, YCSB
//! E's short scans and a full scan.

use crate::engines::basalt::Basalt;
use crate::engines::{Engine, Result, Settings};
use crate::phases::record;
use crate::workload::{key, Rng, FIELDS, FIELD_BYTES};
use crate::BenchArgs;
use basalt_types::DataBlockEncoding;
use std::fmt::Write;
use std::path::Path;
use std::time::Instant;

const ENCODINGS: [DataBlockEncoding; 5] = [
    DataBlockEncoding::None,
    DataBlockEncoding::Prefix,
    DataBlockEncoding::Diff,
    DataBlockEncoding::FastDiff,
    DataBlockEncoding::RowIndexV1,
];

/// Bytes of the store files under `dir`.
fn store_file_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| {
            let path = e.path();
            if path.is_dir() {
                store_file_bytes(&path)
            } else if path.extension().is_some_and(|x| x == "hfile") {
                e.metadata().map_or(0, |m| m.len())
            } else {
                0
            }
        })
        .sum()
}

/// One measure: its name, unit and a figure per encoding.
struct Row {
    name: &'static str,
    unit: &'static str,
    figures: Vec<f64>,
}

/// CPU seconds this process has used (user + system, all threads), from
/// `/proc/self/stat` in clock ticks of 1/100 s; `None` where that file is not there.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) closed by the last ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let ticks = |i: usize| fields.get(i)?.parse::<f64>().ok();
    Some((ticks(11)? + ticks(12)?) / 100.0)
}

/// Runs `body` on each database in turn; the figure is CPU time (the process's, so flush
/// and compaction threads count) per unit it returns, in µs. CPU time rather than wall
/// time: on a shared machine other work stretches the wall clock, not this process's CPU
/// seconds (wall time where CPU time cannot be read).
fn timed(dbs: &[Basalt], mut body: impl FnMut(&Basalt) -> Result<f64>) -> Result<Vec<f64>> {
    dbs.iter()
        .map(|db| {
            let (begun, cpu) = (Instant::now(), cpu_seconds());
            let units = body(db)?;
            let spent = match (cpu, cpu_seconds()) {
                (Some(before), Some(after)) => after - before,
                _ => begun.elapsed().as_secs_f64(),
            };
            Ok(spent * 1e6 / units)
        })
        .collect()
}

pub fn run(args: &BenchArgs, settings: Settings) -> Result<String> {
    let n = args.records;
    let mut dbs = Vec::new();
    for encoding in ENCODINGS {
        let dir = args.dir.join("encodings").join(encoding.name());
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        dbs.push(Basalt::open_with(&dir, settings, encoding)?);
    }
    let mut rows = Vec::new();
    eprintln!("encodings: random load...");
    let load = timed(&dbs, |db| {
        for i in 0..n {
            db.insert(&key(i), &record(i, 0), false)?;
        }
        db.flush()?;
        Ok(n as f64)
    })?;
    rows.push(Row {
        name: "random load + flush",
        unit: "cpu µs/row",
        figures: load,
    });
    eprintln!("encodings: major compactions...");
    let compact = timed(&dbs, |db| {
        db.major_compact()?;
        Ok(n as f64)
    })?;
    rows.push(Row {
        name: "major compaction",
        unit: "cpu µs/row",
        figures: compact,
    });
    // The table's own folder: files a compaction replaced may be kept elsewhere.
    let table_dir = |e: &DataBlockEncoding| {
        args.dir
            .join("encodings")
            .join(e.name())
            .join("data/default/usertable")
    };
    let sizes = ENCODINGS
        .iter()
        .map(|e| store_file_bytes(&table_dir(e)) as f64 / 1e6)
        .collect();
    rows.push(Row {
        name: "store files",
        unit: "MB",
        figures: sizes,
    });
    eprintln!("encodings: gets...");
    let gets = timed(&dbs, |db| {
        let mut rng = Rng::new(11);
        for _ in 0..args.ops {
            let bytes = db.read(&key(rng.below(n)))?;
            if bytes != FIELDS * FIELD_BYTES {
                return Err(format!("a read found {bytes} bytes"));
            }
        }
        Ok(args.ops as f64)
    })?;
    rows.push(Row {
        name: "get, uniform keys",
        unit: "cpu µs/op",
        figures: gets,
    });
    eprintln!("encodings: short scans...");
    let scans = timed(&dbs, |db| {
        let mut rng = Rng::new(12);
        let ops = (args.ops / 10).max(1);
        for _ in 0..ops {
            let rows = 1 + rng.below(100) as usize;
            db.scan(&key(rng.below(n)), rows)?;
        }
        Ok(ops as f64)
    })?;
    rows.push(Row {
        name: "scan 1-100 rows (YCSB E's)",
        unit: "cpu µs/op",
        figures: scans,
    });
    eprintln!("encodings: full scans...");
    let full = timed(&dbs, |db| {
        db.full_scan()?;
        Ok(1e6)
    })?;
    rows.push(Row {
        name: "full scan",
        unit: "cpu s",
        figures: full,
    });
    drop(dbs);
    Ok(render(n, &rows))
}

fn render(records: u64, rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nBasalt's DATA_BLOCK_ENCODING, {records} records; each figure (CPU time of the process for the timed rows), then its ratio to NONE / to PREFIX (lower is cheaper)\n"
    );
    let _ = write!(out, "| {:<28} | {:<10} |", "measure", "unit");
    for e in ENCODINGS {
        let _ = write!(out, " {:>24} |", e.name());
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "|{}", "---|".repeat(2 + ENCODINGS.len()));
    for row in rows {
        let _ = write!(out, "| {:<28} | {:<10} |", row.name, row.unit);
        let (none, prefix) = (row.figures[0], row.figures[1]);
        for v in &row.figures {
            let ratio = |base: f64| if base > 0.0 { v / base } else { f64::NAN };
            let cell = format!("{v:.2} ({:.2}x / {:.2}x)", ratio(none), ratio(prefix));
            let _ = write!(out, " {cell:>24} |");
        }
        let _ = writeln!(out);
    }
    out
}
