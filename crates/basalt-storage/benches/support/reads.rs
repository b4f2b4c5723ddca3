//! Read workloads: random gets, short scans from random rows, and full scans.

use super::data::{result_bytes, DataSet};
use super::report::{Latencies, Outcome, Progress, Timer};
use super::xorshift::XorShift;
use super::BenchResult;
use basalt_storage::Region;
use basalt_types::{Get, Scan};
use std::hint::black_box;
use std::time::Duration;

/// Random gets of loaded rows from `threads` threads for `secs`. Every row exists: a get
/// that finds nothing is counted and reported as a bug.
pub fn random_gets(
    name: &str,
    region: &Region,
    data: &DataSet,
    threads: usize,
    secs: f64,
    seed: u64,
) -> BenchResult<Outcome> {
    let budget = Duration::from_secs_f64(secs);
    let timer = Timer::start();
    let per_thread: Vec<BenchResult<GetTally>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let seed = seed ^ (t as u64).wrapping_mul(0x9E37_79B9);
                s.spawn(move || get_loop(region, data, budget, seed, t == 0))
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a get thread panicked"))
            .collect()
    });
    let (wall, cpu) = timer.stop();
    let mut total = GetTally::default();
    for tally in per_thread {
        let tally = tally?;
        total.latencies.merge(tally.latencies);
        total.bytes += tally.bytes;
        total.missing += tally.missing;
    }
    let mut outcome = Outcome {
        name: name.into(),
        unit: "get",
        ops: total.latencies.len() as u64,
        wall,
        cpu,
        bytes: Some(total.bytes),
        latencies: total.latencies,
        ratio: None,
        note: None,
    };
    if threads > 1 {
        outcome.add_note(format!("{threads} threads"));
    }
    if total.missing > 0 {
        outcome.add_note(format!(
            "BUG: {} gets of loaded rows found nothing",
            total.missing
        ));
    }
    Ok(outcome)
}

#[derive(Default)]
struct GetTally {
    latencies: Latencies,
    bytes: u64,
    missing: u64,
}

fn get_loop(
    region: &Region,
    data: &DataSet,
    budget: Duration,
    seed: u64,
    report: bool,
) -> BenchResult<GetTally> {
    let mut rng = XorShift::new(seed);
    let mut tally = GetTally::default();
    let mut progress = Progress::new("get");
    let started = std::time::Instant::now();
    while started.elapsed() < budget {
        let get = Get::new(DataSet::key(rng.below(data.rows)));
        let row = tally.latencies.time(|| region.get(&get))?;
        tally.bytes += result_bytes(&row);
        tally.missing += u64::from(row.is_empty());
        black_box(row);
        if report {
            progress.tick(tally.latencies.len() as u64, None);
        }
    }
    Ok(tally)
}

/// Scans of up to `rows_per_scan` rows from random start rows for `secs`; latency is the
/// whole scan (open, every row, drop).
pub fn short_scans(
    name: &str,
    region: &Region,
    data: &DataSet,
    rows_per_scan: u64,
    secs: f64,
    seed: u64,
) -> BenchResult<Outcome> {
    let mut rng = XorShift::new(seed);
    let mut latencies = Latencies::default();
    let mut progress = Progress::new("scan");
    let (mut bytes, mut rows) = (0u64, 0u64);
    let budget = Duration::from_secs_f64(secs);
    let timer = Timer::start();
    while timer.elapsed() < budget {
        let scan = Scan::new()
            .start(DataSet::key(rng.below(data.rows)))
            .limit(rows_per_scan);
        latencies.time(|| -> BenchResult<()> {
            let mut scanner = region.scanner(&scan)?;
            while let Some(row) = scanner.next_row()? {
                rows += 1;
                bytes += result_bytes(&row);
                black_box(row);
            }
            Ok(())
        })?;
        progress.tick(latencies.len() as u64, None);
    }
    let (wall, cpu) = timer.stop();
    let scans = latencies.len() as u64;
    let note = format!(
        "{:.1} rows per scan on average, {} rows/s",
        rows as f64 / scans.max(1) as f64,
        super::report::count_f(rows as f64 / wall.as_secs_f64().max(1e-9))
    );
    Ok(Outcome {
        name: name.into(),
        unit: "scan",
        ops: scans,
        wall,
        cpu,
        bytes: Some(bytes),
        latencies,
        ratio: None,
        note: Some(note),
    })
}

/// One scan of every row; latency is per row (a `next_row` call).
pub fn full_scan(name: &str, region: &Region, data: &DataSet) -> BenchResult<Outcome> {
    let mut latencies = Latencies::with_capacity(data.rows as usize);
    let mut progress = Progress::new("full scan");
    let mut bytes = 0u64;
    let timer = Timer::start();
    let mut scanner = region.scanner(&Scan::new())?;
    while let Some(row) = latencies.time(|| scanner.next_row())? {
        bytes += result_bytes(&row);
        black_box(row);
        progress.tick(latencies.len() as u64, Some(data.rows));
    }
    drop(scanner);
    let (wall, cpu) = timer.stop();
    // The last `next_row` (the one that found the end) is not a row.
    let rows = latencies.len().saturating_sub(1) as u64;
    let note =
        (rows != data.rows).then(|| format!("BUG?: scanned {rows} rows, loaded {}", data.rows));
    Ok(Outcome {
        name: name.into(),
        unit: "row",
        ops: rows,
        wall,
        cpu,
        bytes: Some(bytes),
        latencies,
        ratio: None,
        note,
    })
}
