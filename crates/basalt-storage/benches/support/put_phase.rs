//! The random-put workloads, then the flush and the major compaction they leave to do.
//!
//! The synced puts are interleaved with the fsync limit, in slices (fsync, 1 writer,
//! T writers, fsync, ...), so that their ratio to the fsync rate compares figures taken in
//! the same seconds: this disk's sync latency swings from 0.2 ms to 4 ms within a minute
//! when neighbours are busy.

use super::data::DataSet;
use super::limits::{self, Limits};
use super::memory::{memstore_note, resident_bytes};
use super::options::Options;
use super::report::{absorb, print_line, ratio, Outcome};
use super::writes::{random_puts, PutRun};
use super::BenchResult;
use basalt_storage::wal::Wal;
use basalt_storage::Region;
use basalt_types::Durability;
use std::path::Path;
use std::time::Instant;

/// Slices each synced workload (and the fsync limit next to them) is cut into.
const SLICES: u64 = 4;

/// Where the puts go, and the log whose syncs they wait on.
pub struct Target<'a> {
    pub region: &'a Region,
    pub wal: &'a Wal,
}

pub fn run(
    options: &Options,
    target: &Target,
    data: &DataSet,
    limits: &Limits,
    dir: &Path,
) -> BenchResult<()> {
    let region = target.region;
    if options.wants("put-skip") {
        let run = PutRun {
            name: "put-skip",
            durability: Durability::SkipWal,
            threads: 1,
            secs: options.phase_secs,
            seed: options.seed ^ 5,
        };
        let resident_before = resident_bytes();
        let mut outcome = random_puts(region, data, &run)?;
        outcome.add_note(memstore_note(region, resident_before));
        print_line(outcome);
    }
    let mt_name = format!("put-sync-{}", options.threads);
    let synced: Vec<(&str, usize)> = [("put-sync-1", 1), ("put-sync-mt", options.threads)]
        .into_iter()
        .filter(|(name, _)| options.wants(name))
        .map(|(name, threads)| (if threads == 1 { name } else { mt_name.as_str() }, threads))
        .collect();
    if !synced.is_empty() {
        synced_puts(options, target, data, limits, dir, &synced)?;
    }
    if options.wants_any(&["put-skip", "put-sync-1", "put-sync-mt"]) {
        flush_after_puts(region, limits)?;
    }
    Ok(())
}

/// The synced puts, interleaved with the fsync limit.
fn synced_puts(
    options: &Options,
    target: &Target,
    data: &DataSet,
    limits: &Limits,
    dir: &Path,
    synced: &[(&str, usize)],
) -> BenchResult<()> {
    let region = target.region;
    let slice_secs = options.phase_secs / SLICES as f64;
    let mut fsync: Option<Outcome> = None;
    let mut prealloc: Option<Outcome> = None;
    let mut puts: Vec<Option<Outcome>> = synced.iter().map(|_| None).collect();
    let mut syncs = vec![0u64; synced.len()];
    for slice in 0..SLICES {
        if options.wants("fsync") {
            absorb(&mut fsync, limits::fsync_rate(dir, slice_secs, 1)?);
            absorb(&mut prealloc, limits::fsync_prealloc_rate(dir, slice_secs)?);
        }
        for (k, (name, threads)) in synced.iter().enumerate() {
            let run = PutRun {
                name,
                durability: Durability::SyncWal,
                threads: *threads,
                secs: slice_secs,
                seed: options.seed ^ ((slice << 8) | (k as u64 + 6)),
            };
            let before = target.wal.sync_count();
            absorb(&mut puts[k], random_puts(region, data, &run)?);
            syncs[k] += target.wal.sync_count() - before;
        }
    }
    // Ratios against the interleaved rate when there is one, else the one from the start.
    let fsync_per_s = fsync
        .as_ref()
        .map(Outcome::ops_per_sec)
        .or(limits.fsync_per_s);
    let append_ref = Reference::of(&mut fsync, "fsync-interleaved");
    let prealloc_ref = Reference::of(&mut prealloc, "fsync-prealloc-interleaved");
    for (outcome, name) in [
        (fsync, "fsync-interleaved"),
        (prealloc, "fsync-prealloc-int"),
    ] {
        if let Some(mut outcome) = outcome {
            outcome.name = name.into();
            outcome.add_note(format!(
                "measured in {SLICES} slices between the synced puts' slices"
            ));
            print_line(outcome);
        }
    }
    for (outcome, syncs) in puts.into_iter().zip(syncs) {
        let Some(mut outcome) = outcome else { continue };
        outcome.add_note(format!(
            "{} log syncs, {:.1} puts per sync, {:.0} µs per sync",
            syncs,
            outcome.ops as f64 / syncs.max(1) as f64,
            outcome.wall.as_secs_f64() * 1e6 / syncs.max(1) as f64
        ));
        // Medians resist the disk's multi-millisecond stalls that swing the rate ratio.
        let (p50, p99) = (outcome.latencies.p50_us(), outcome.latencies.p99_us());
        for reference in append_ref.iter().chain(&prealloc_ref) {
            if let (Some(p50), Some(p99)) = (p50, p99) {
                outcome.add_note(reference.compare(p50, p99));
            }
        }
        let ratio = fsync_per_s.map(|limit| (outcome.ops_per_sec() / limit, "fsync"));
        print_line(Outcome { ratio, ..outcome });
    }
    Ok(())
}

/// A sync measured beside the synced puts: its p50 and p99, to read theirs against.
struct Reference {
    name: &'static str,
    p50_us: f64,
    p99_us: f64,
}

impl Reference {
    fn of(outcome: &mut Option<Outcome>, name: &'static str) -> Option<Self> {
        let latencies = &mut outcome.as_mut()?.latencies;
        Some(Self {
            name,
            p50_us: latencies.p50_us()?,
            p99_us: latencies.p99_us()?,
        })
    }

    fn compare(&self, p50_us: f64, p99_us: f64) -> String {
        format!(
            "p50 = {} and p99 = {} of {}'s",
            ratio(p50_us / self.p50_us),
            ratio(p99_us / self.p99_us),
            self.name
        )
    }
}

/// Flushes what the puts left in the memstore, and says how fast that went.
fn flush_after_puts(region: &Region, limits: &Limits) -> BenchResult<()> {
    let memstore_bytes = region.memstore_size_bytes();
    if memstore_bytes == 0 {
        return Ok(());
    }
    let started = Instant::now();
    region.flush()?;
    let secs = started.elapsed().as_secs_f64();
    let mb_s = memstore_bytes as f64 / 1e6 / secs.max(1e-9);
    let vs = limits.seq_write_mb_s.map_or(String::new(), |limit| {
        format!(" = {} of seq-write", ratio(mb_s / limit))
    });
    println!(
        "flush after the puts: {:.1} MiB of memstore in {secs:.2} s, {mb_s:.0} MB/s{vs}; {} store file(s) now",
        memstore_bytes as f64 / 1048576.0,
        region.metrics().store_files,
    );
    Ok(())
}

/// Major-compacts the region (the load's file and the puts' flushes) and says how fast
/// the inputs were rewritten.
pub fn major_compaction(region: &Region, limits: &Limits) -> BenchResult<()> {
    let before = region.metrics();
    let started = Instant::now();
    region.compact(true)?;
    let secs = started.elapsed().as_secs_f64();
    let after = region.metrics();
    let mb_s = before.store_file_bytes as f64 / 1e6 / secs.max(1e-9);
    let vs = limits.seq_write_mb_s.map_or(String::new(), |limit| {
        format!(" = {} of seq-write", ratio(mb_s / limit))
    });
    println!(
        "compact (major): {} file(s), {:.1} MiB in {secs:.2} s, {mb_s:.0} MB/s read{vs}; {} file(s), {:.1} MiB out",
        before.store_files,
        before.store_file_bytes as f64 / 1048576.0,
        after.store_files,
        after.store_file_bytes as f64 / 1048576.0,
    );
    Ok(())
}
