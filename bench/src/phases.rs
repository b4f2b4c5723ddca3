//! The phases, each run on every engine in turn before the next phase starts.

use crate::engines::{Engine, Result};
use crate::report::Report;
use crate::workload::{key, sorted_key, value, Mix, Op, Rng, ScrambledZipfian, FIELDS, FIELD_BYTES};
use crate::BenchArgs;
use std::time::Instant;

pub fn record(i: u64, salt: u64) -> Vec<Vec<u8>> {
    (0..FIELDS).map(|f| value(i, f, salt)).collect()
}

/// Runs `body` on each engine, recording `units / seconds`.
/// `--only TEXT`: phases whose name lacks TEXT are skipped (the load always runs), to
/// profile one workload.
pub static ONLY: std::sync::OnceLock<String> = std::sync::OnceLock::new();

fn phase(
    engines: &[Box<dyn Engine>],
    report: &mut Report,
    name: &str,
    unit: &str,
    mut body: impl FnMut(&dyn Engine) -> Result<f64>,
) -> Result<()> {
    let wanted = ONLY
        .get()
        .is_none_or(|only| name == "random load" || name.contains(only.as_str()));
    if !wanted {
        return Ok(());
    }
    for engine in engines {
        eprintln!("{name}: {}...", engine.name());
        let begun = Instant::now();
        let units = body(engine.as_ref())?;
        let rate = units / begun.elapsed().as_secs_f64();
        report.figure(name, unit, engine.name(), rate);
    }
    Ok(())
}

/// Whether `--only` asks for the load phases of fresh engines alone, so the main set of
/// phases (and its random load) can be skipped.
pub fn only_fresh_loads() -> bool {
    ONLY.get().is_some_and(|only| {
        !"random load".contains(only.as_str())
            && ["bulk sequential load", "sequential load, put path"]
                .iter()
                .any(|name| name.contains(only.as_str()))
    })
}

pub fn run_all(engines: &[Box<dyn Engine>], args: &BenchArgs, report: &mut Report) -> Result<()> {
    let n = args.records;
    phase(engines, report, "random load", "rows/s", |e| {
        for i in 0..n {
            e.insert(&key(i), &record(i, 0), false)?;
        }
        e.flush()?;
        Ok(n as f64)
    })?;
    for mix in [Mix::C, Mix::B, Mix::A, Mix::F, Mix::E] {
        phase(engines, report, mix.name(), "ops/s", |e| ycsb(e, mix, n, args.ops))?;
    }
    phase(engines, report, "get, uniform keys (block-cache misses)", "ops/s", |e| {
        let mut rng = Rng::new(11);
        for _ in 0..args.ops {
            let bytes = e.read(&key(rng.below(n)))?;
            if bytes != FIELDS * FIELD_BYTES {
                return Err(format!("{}: a read found {bytes} bytes", e.name()));
            }
        }
        Ok(args.ops as f64)
    })?;
    phase(engines, report, "full scan", "MB/s", |e| {
        Ok(e.full_scan()? as f64 / 1e6)
    })?;
    phase(engines, report, "synced updates, 8 threads", "ops/s", |e| {
        synced_updates(e, n, args.sync_ops)
    })?;
    Ok(())
}

fn ycsb(e: &dyn Engine, mix: Mix, records: u64, ops: u64) -> Result<f64> {
    let mut chooser = ScrambledZipfian::new(records);
    let mut rng = Rng::new(42);
    let mut next_insert = records + 1_000_000 * mix as u64;
    for _ in 0..ops {
        match mix.next(&mut rng) {
            Op::Read => {
                e.read(&key(chooser.next(&mut rng)))?;
            }
            Op::Update => {
                let i = chooser.next(&mut rng);
                let f = rng.below(FIELDS as u64) as usize;
                e.update(&key(i), f, &value(i, f, 1), false)?;
            }
            Op::Insert => {
                e.insert(&key(next_insert), &record(next_insert, 0), false)?;
                next_insert += 1;
            }
            Op::Scan(rows) => {
                e.scan(&key(chooser.next(&mut rng)), rows)?;
            }
            Op::ReadModifyWrite => {
                let i = chooser.next(&mut rng);
                e.read(&key(i))?;
                let f = rng.below(FIELDS as u64) as usize;
                e.update(&key(i), f, &value(i, f, 2), false)?;
            }
        }
    }
    Ok(ops as f64)
}

fn synced_updates(e: &dyn Engine, records: u64, ops: u64) -> Result<f64> {
    let per_thread = ops / 8;
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..8u64)
            .map(|t| {
                s.spawn(move || -> Result<()> {
                    let mut rng = Rng::new(100 + t);
                    for _ in 0..per_thread {
                        let i = rng.below(records);
                        e.update(&key(i), 0, &value(i, 0, 3), true)?;
                    }
                    Ok(())
                })
            })
            .collect();
        workers
            .into_iter()
            .try_for_each(|w| w.join().map_err(|_| "a writer panicked".to_string())?)
    })?;
    Ok((per_thread * 8) as f64)
}

/// Records in key order into fresh engines through each engine's bulk path (files written
/// directly: Basalt's bulk loader, RocksDB's `SstFileWriter` + ingestion, fjall's
/// ingestion): MB/s of keys and values, and the share of the machine's sequential write
/// bandwidth.
pub fn bulk_load(
    engines: &[Box<dyn Engine>],
    records: u64,
    seq_mb_s: f64,
    report: &mut Report,
) -> Result<()> {
    let name = "bulk sequential load";
    phase(engines, report, name, "MB/s", |e| {
        e.bulk_load(&mut (0..records).map(|i| (sorted_key(i), record(i, 0))))?;
        Ok(load_mb(records))
    })?;
    report.share_of_limit(name, seq_mb_s);
    Ok(())
}

/// Records in key order into fresh engines through the write path (log, memtable, flush).
pub fn sequential_put_load(
    engines: &[Box<dyn Engine>],
    records: u64,
    seq_mb_s: f64,
    report: &mut Report,
) -> Result<()> {
    let name = "sequential load, put path";
    phase(engines, report, name, "MB/s", |e| {
        for i in 0..records {
            e.insert(&sorted_key(i), &record(i, 0), false)?;
        }
        e.flush()?;
        Ok(load_mb(records))
    })?;
    report.share_of_limit(name, seq_mb_s);
    Ok(())
}

/// MB of keys and values in `records` records.
fn load_mb(records: u64) -> f64 {
    let bytes_per_record = (sorted_key(0).len() + 7) * FIELDS + FIELDS * FIELD_BYTES;
    (records as usize * bytes_per_record) as f64 / 1e6
}
