//! The machine's limits, measured in the same run as the workloads so that each workload
//! can be read as a fraction of what the disk, the page cache and memory allow *right now*
//! (shared machines swing several-fold from one minute to the next).

use super::report::{Latencies, Outcome, Progress, Timer};
use super::xorshift::XorShift;
use std::fs::{File, OpenOptions};
use std::hint::black_box;
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Duration;

/// The limits measured; `None` where the limit was not measured (see `--only`).
#[derive(Debug, Default, Clone, Copy)]
pub struct Limits {
    pub seq_write_mb_s: Option<f64>,
    pub fsync_per_s: Option<f64>,
    pub pread_per_s: Option<f64>,
    pub memcpy_mb_s: Option<f64>,
}

const CHUNK_BYTES: usize = 1 << 20;
const SEQ_FILE: &str = "limit-seq-write.bin";

/// Writes `mib` MiB to a new file in 1 MiB chunks (buffered, as the engine writes its
/// files), then `fdatasync`s once: the bandwidth a flush or compaction could reach.
pub fn seq_write(dir: &Path, mib: u64, seed: u64) -> io::Result<Outcome> {
    let mut chunk = vec![0u8; CHUNK_BYTES];
    XorShift::new(seed).fill(&mut chunk);
    let mut file = File::create(dir.join(SEQ_FILE))?;
    let mut latencies = Latencies::with_capacity(mib as usize);
    let mut progress = Progress::new("seq-write");
    let timer = Timer::start();
    for i in 0..mib {
        latencies.time(|| file.write_all(&chunk))?;
        progress.tick_now(i, Some(mib));
    }
    file.sync_data()?;
    let (wall, cpu) = timer.stop();
    Ok(Outcome {
        name: "seq-write".into(),
        unit: "MiB",
        ops: mib,
        wall,
        cpu,
        bytes: Some(mib * CHUNK_BYTES as u64),
        latencies,
        ratio: None,
        note: Some(
            "latency = one buffered 1 MiB write; the closing fdatasync is in the rate".into(),
        ),
    })
}

/// `writers` threads each append 128-byte records to their own new file, `fdatasync` after
/// each, for `secs`. One writer is what a WAL without group commit can reach. Two writers
/// show whether the disk answers concurrent syncs faster: on these VMs a lone syncer often
/// waits ~4 ms (a timer tick) per sync while two concurrent syncers get ~0.2 ms each.
pub fn fsync_rate(dir: &Path, secs: f64, writers: usize) -> io::Result<Outcome> {
    let budget = Duration::from_secs_f64(secs);
    let timer = Timer::start();
    let per_writer: Vec<io::Result<Latencies>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..writers)
            .map(|w| {
                s.spawn(move || sync_appends(&dir.join(format!("limit-fsync-{w}.bin")), budget))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("an fsync thread panicked"))
            .collect()
    });
    let (wall, cpu) = timer.stop();
    let mut latencies = Latencies::default();
    for writer in per_writer {
        latencies.merge(writer?);
    }
    let (name, note) = match writers {
        1 => (
            "fsync".to_string(),
            "128 B append + fdatasync, one writer".to_string(),
        ),
        n => (
            format!("fsync-x{n}"),
            format!("{n} writers at once, each on its own file; op/s is their sum"),
        ),
    };
    Ok(Outcome {
        name,
        unit: "sync",
        ops: latencies.len() as u64,
        wall,
        cpu,
        bytes: None,
        latencies,
        ratio: None,
        note: Some(note),
    })
}

/// One writer overwrites 128-byte records in a file whose blocks were written (zeros) and
/// synced first, `fdatasync` after each, for `secs`: a sync that commits data only, no
/// file-size or block-allocation change. The floor of a synced put into a preallocated or
/// reused log segment.
pub fn fsync_prealloc_rate(dir: &Path, secs: f64) -> io::Result<Outcome> {
    const FILE_BYTES: u64 = 8 << 20;
    let path = dir.join("limit-fsync-prealloc.bin");
    let file = File::create(&path)?;
    let zeros = vec![0u8; CHUNK_BYTES];
    for at in (0..FILE_BYTES).step_by(CHUNK_BYTES) {
        file.write_all_at(&zeros, at)?;
    }
    file.sync_all()?;
    let record = [0x5Au8; 128];
    let mut latencies = Latencies::default();
    let budget = Duration::from_secs_f64(secs);
    let timer = Timer::start();
    let mut at = 0;
    while timer.elapsed() < budget {
        latencies.time(|| {
            file.write_all_at(&record, at)
                .and_then(|()| file.sync_data())
        })?;
        at = (at + 128) % FILE_BYTES;
    }
    let (wall, cpu) = timer.stop();
    drop(file);
    std::fs::remove_file(&path)?;
    Ok(Outcome {
        name: "fsync-prealloc".into(),
        unit: "sync",
        ops: latencies.len() as u64,
        wall,
        cpu,
        bytes: None,
        latencies,
        ratio: None,
        note: Some("128 B overwrite of a preallocated file + fdatasync, one writer".into()),
    })
}

fn sync_appends(path: &Path, budget: Duration) -> io::Result<Latencies> {
    let mut file = File::create(path)?;
    let record = [0x5Au8; 128];
    let mut latencies = Latencies::default();
    let started = std::time::Instant::now();
    while started.elapsed() < budget {
        latencies.time(|| file.write_all(&record).and_then(|()| file.sync_data()))?;
    }
    drop(file);
    std::fs::remove_file(path)?;
    Ok(latencies)
}

/// Random 4 KiB `pread`s of the sequential-write file, which was just written and so sits
/// in the OS page cache: the floor of a block read that misses the engine's block cache.
pub fn pread_rate(dir: &Path, secs: f64, seed: u64) -> io::Result<Outcome> {
    let file = OpenOptions::new().read(true).open(dir.join(SEQ_FILE))?;
    let pages = file.metadata()?.len() / 4096;
    if pages == 0 {
        return Err(io::Error::other("the sequential-write file is empty"));
    }
    let mut rng = XorShift::new(seed);
    let mut buf = vec![0u8; 4096];
    let mut latencies = Latencies::default();
    let timer = Timer::start();
    let budget = Duration::from_secs_f64(secs);
    while timer.elapsed() < budget {
        let offset = rng.below(pages) * 4096;
        latencies.time(|| file.read_exact_at(&mut buf, offset))?;
        black_box(&buf);
    }
    let (wall, cpu) = timer.stop();
    Ok(Outcome {
        name: "pread".into(),
        unit: "read",
        ops: latencies.len() as u64,
        wall,
        cpu,
        bytes: Some(latencies.len() as u64 * 4096),
        latencies,
        ratio: None,
        note: Some("random 4 KiB pread, file in the OS page cache".into()),
    })
}

/// Removes the sequential-write file (after `pread_rate` used it).
pub fn remove_seq_file(dir: &Path) {
    let _ = std::fs::remove_file(dir.join(SEQ_FILE));
}

/// Copies a 64 MiB buffer into another, repeatedly, for `secs`: one thread's memory
/// bandwidth, the ceiling of any CPU-bound scan.
pub fn memcpy_rate(secs: f64) -> Outcome {
    const BYTES: usize = 64 << 20;
    let src = vec![0xC3u8; BYTES];
    let mut dst = vec![0u8; BYTES];
    dst.copy_from_slice(&src); // fault the pages in before timing
    let mut latencies = Latencies::default();
    let timer = Timer::start();
    let budget = Duration::from_secs_f64(secs);
    while timer.elapsed() < budget {
        latencies.time(|| dst.copy_from_slice(black_box(&src)));
        black_box(&dst);
    }
    let (wall, cpu) = timer.stop();
    let copies = latencies.len() as u64;
    Outcome {
        name: "memcpy".into(),
        unit: "copy",
        ops: copies,
        wall,
        cpu,
        bytes: Some(copies * BYTES as u64),
        latencies,
        ratio: None,
        note: Some("64 MiB copy, one thread".into()),
    }
}
