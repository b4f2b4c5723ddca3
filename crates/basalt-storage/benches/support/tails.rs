//! `compact-tails`: the tails of gets and puts while a major compaction runs, against the
//! same store settled, and the writes the memstore limit held back meanwhile.
//!
//! First three rounds of random overwrites, each flushed, give the compaction files to
//! merge. Then one reader (random gets of loaded rows) and one writer (random overwrites,
//! SKIP_WAL) run for `--secs` against the settled store, and again while a major
//! compaction runs (as long as it runs, and at least `--secs`). Each line gives p50, p99
//! and p99.9, and the ratio of each tail under compaction to the settled one (the goal:
//! get p99 within 2x); the compaction line gives its time and rate, how long it rested
//! to keep to its pace (`--compaction-mib-s`, 0 for none), and the write stalls.

use super::data::DataSet;
use super::options::Options;
use super::report::{ratio, Latencies};
use super::xorshift::XorShift;
use super::BenchResult;
use basalt_storage::engine::jobs::Jobs;
use basalt_storage::Region;
use basalt_types::{Durability, Get};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What one reader and one writer saw, and the compaction's time if one ran.
struct Tails {
    gets: Latencies,
    puts: Latencies,
    compaction: Option<Duration>,
}

pub fn compaction_tails(
    region: &Region,
    jobs: &Jobs,
    data: &DataSet,
    options: &Options,
) -> BenchResult<()> {
    let mut rng = XorShift::new(options.seed ^ 0x7A11);
    for _ in 0..3 {
        for _ in 0..(data.rows / 10).max(1) {
            let put = data.put(rng.below(data.rows), Durability::SkipWal, &mut rng);
            region.put(&put)?;
        }
        region.flush()?;
    }
    let files = region.metrics().store_files;
    let bytes = region.metrics().store_file_bytes;
    let mut settled = measure(region, data, options, false)?;
    let before = jobs.stats();
    let mut during = measure(region, data, options, true)?;
    let after = jobs.stats();
    let took = during.compaction.unwrap_or_default().as_secs_f64();
    println!(
        "compact-tails: major compaction of {files} file(s), {:.1} MiB in {took:.2} s ({:.0} MB/s), \
         rested {:.2} s to keep to its pace; write stalls {} ({:.2} s)",
        bytes as f64 / 1048576.0,
        bytes as f64 / 1e6 / took.max(1e-9),
        (after.compaction_paced_us - before.compaction_paced_us) as f64 / 1e6,
        after.write_stalls - before.write_stalls,
        (after.write_stall_us - before.write_stall_us) as f64 / 1e6,
    );
    for (what, settled, during) in [
        ("get", &mut settled.gets, &mut during.gets),
        ("put", &mut settled.puts, &mut during.puts),
    ] {
        let s = settled.quantiles_us(&[500, 990, 999]);
        let d = during.quantiles_us(&[500, 990, 999]);
        let (Some(s), Some(d)) = (s, d) else {
            continue;
        };
        println!(
            "compact-tails {what}: settled p50 {:.0} / p99 {:.0} / p99.9 {:.0} µs ({} ops); \
             under compaction p50 {:.0} / p99 {:.0} / p99.9 {:.0} µs ({} ops); p99 {} p99.9 {} of settled",
            s[0],
            s[1],
            s[2],
            settled.len(),
            d[0],
            d[1],
            d[2],
            during.len(),
            ratio(d[1] / s[1]),
            ratio(d[2] / s[2]),
        );
    }
    Ok(())
}

fn measure(
    region: &Region,
    data: &DataSet,
    options: &Options,
    compact: bool,
) -> BenchResult<Tails> {
    let least = Duration::from_secs_f64(options.phase_secs);
    let compacting = AtomicBool::new(compact);
    let started = Instant::now();
    let go_on = || started.elapsed() < least || compacting.load(Ordering::Acquire);
    std::thread::scope(|s| {
        let compaction = compact.then(|| {
            s.spawn(|| {
                let began = Instant::now();
                let outcome = region.compact(true);
                compacting.store(false, Ordering::Release);
                outcome.map(|_| began.elapsed())
            })
        });
        let reader = s.spawn(|| -> BenchResult<Latencies> {
            let mut rng = XorShift::new(options.seed ^ 0x6E75);
            let mut gets = Latencies::default();
            while go_on() {
                let get = Get::new(DataSet::key(rng.below(data.rows)));
                black_box(gets.time(|| region.get(&get))?);
            }
            Ok(gets)
        });
        let writer = s.spawn(|| -> BenchResult<Latencies> {
            let mut rng = XorShift::new(options.seed ^ 0x9075);
            let mut puts = Latencies::default();
            while go_on() {
                let put = data.put(rng.below(data.rows), Durability::SkipWal, &mut rng);
                puts.time(|| region.put(&put))?;
            }
            Ok(puts)
        });
        let compaction = match compaction {
            Some(c) => Some(c.join().expect("the compaction thread panicked")?),
            None => None,
        };
        Ok(Tails {
            gets: reader.join().expect("the reader panicked")?,
            puts: writer.join().expect("the writer panicked")?,
            compaction,
        })
    })
}
