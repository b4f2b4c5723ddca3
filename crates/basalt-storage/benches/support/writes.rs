//! Write workloads: the sorted load and random puts from one or many threads.

use super::data::DataSet;
use super::memory::{memstore_note, resident_bytes};
use super::report::{Latencies, Outcome, Progress, Timer};
use super::xorshift::XorShift;
use super::BenchResult;
use basalt_storage::Region;
use basalt_types::Durability;
use std::sync::Barrier;
use std::time::{Duration, Instant};

/// Puts rows `0..rows` in key order, then flushes: the rate includes the flush, since a
/// load is done when its data is in files.
pub fn load(
    region: &Region,
    data: &DataSet,
    durability: Durability,
    seed: u64,
) -> BenchResult<Outcome> {
    let mut rng = XorShift::new(seed);
    let mut latencies = Latencies::with_capacity(data.rows as usize);
    let mut progress = Progress::new("load");
    let resident_before = resident_bytes();
    let timer = Timer::start();
    for i in 0..data.rows {
        let put = data.put(i, durability, &mut rng);
        latencies.time(|| region.put(&put))?;
        progress.tick(i, Some(data.rows));
    }
    let memory = memstore_note(region, resident_before);
    let flush_started = Instant::now();
    region.flush()?;
    let flush = flush_started.elapsed();
    let (wall, cpu) = timer.stop();
    let metrics = region.metrics();
    let logical = data.rows * data.row_bytes();
    let note = format!(
        "{}, final flush {:.2} s; {} store file(s), {:.1} MiB on disk = {:.2}× the logical {:.1} MiB; before the flush: {memory}",
        durability.name(),
        flush.as_secs_f64(),
        metrics.store_files,
        metrics.store_file_bytes as f64 / 1048576.0,
        metrics.store_file_bytes as f64 / logical.max(1) as f64,
        logical as f64 / 1048576.0,
    );
    Ok(Outcome {
        name: "load".into(),
        unit: "row",
        ops: data.rows,
        wall,
        cpu,
        bytes: Some(logical),
        latencies,
        ratio: None,
        note: Some(note),
    })
}

/// One run of random puts.
pub struct PutRun<'a> {
    pub name: &'a str,
    pub durability: Durability,
    pub threads: usize,
    pub secs: f64,
    pub seed: u64,
}

/// Random puts over the loaded key range (overwrites) from `run.threads` threads for
/// `run.secs`.
pub fn random_puts(region: &Region, data: &DataSet, run: &PutRun) -> BenchResult<Outcome> {
    let PutRun {
        name,
        durability,
        threads,
        secs,
        seed,
    } = *run;
    let budget = Duration::from_secs_f64(secs);
    let start = Barrier::new(threads + 1);
    let (per_thread, wall, cpu) = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let start = &start;
                s.spawn(move || -> BenchResult<Latencies> {
                    let mut rng =
                        XorShift::new(seed ^ (t as u64 + 1).wrapping_mul(0x1234_5678_9ABC));
                    let mut latencies = Latencies::default();
                    start.wait();
                    let began = Instant::now();
                    let mut progress = Progress::new("put");
                    while began.elapsed() < budget {
                        let put = data.put(rng.below(data.rows), durability, &mut rng);
                        latencies.time(|| region.put(&put))?;
                        if t == 0 {
                            progress.tick(latencies.len() as u64, None);
                        }
                    }
                    Ok(latencies)
                })
            })
            .collect();
        start.wait();
        let timer = Timer::start();
        let per_thread: Vec<BenchResult<Latencies>> = workers
            .into_iter()
            .map(|w| w.join().expect("a put thread panicked"))
            .collect();
        let (wall, cpu) = timer.stop();
        (per_thread, wall, cpu)
    });
    let mut latencies = Latencies::default();
    for thread in per_thread {
        latencies.merge(thread?);
    }
    Ok(Outcome {
        name: name.into(),
        unit: "put",
        ops: latencies.len() as u64,
        wall,
        cpu,
        bytes: None,
        latencies,
        ratio: None,
        note: Some(format!(
            "{}, {threads} thread(s), {} column(s) per put",
            durability.name(),
            data.columns()
        )),
    })
}
