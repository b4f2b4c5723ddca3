//! Read workloads: random gets, short scans from random rows, and full scans.

use super::data::{result_bytes, DataSet};
use super::report::{Latencies, Outcome, Progress, Timer};
use super::xorshift::XorShift;
use super::BenchResult;
use basalt_storage::Region;
use basalt_types::{Get, Scan};
use std::hint::black_box;
use std::time::Duration;

/// Random gets of loaded rows for `secs`. Every row exists: a get that finds nothing is
/// counted and reported as a bug.
pub fn random_gets(
    name: &str,
    region: &Region,
    data: &DataSet,
    secs: f64,
    seed: u64,
) -> BenchResult<Outcome> {
    let mut rng = XorShift::new(seed);
    let mut latencies = Latencies::default();
    let mut progress = Progress::new("get");
    let (mut bytes, mut missing) = (0u64, 0u64);
    let budget = Duration::from_secs_f64(secs);
    let timer = Timer::start();
    while timer.elapsed() < budget {
        let get = Get::new(DataSet::key(rng.below(data.rows)));
        let row = latencies.time(|| region.get(&get))?;
        bytes += result_bytes(&row);
        missing += u64::from(row.is_empty());
        black_box(row);
        progress.tick(latencies.len() as u64, None);
    }
    let (wall, cpu) = timer.stop();
    let note = (missing > 0).then(|| format!("BUG: {missing} gets of loaded rows found nothing"));
    Ok(Outcome {
        name: name.into(),
        unit: "get",
        ops: latencies.len() as u64,
        wall,
        cpu,
        bytes: Some(bytes),
        latencies,
        ratio: None,
        note,
    })
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
