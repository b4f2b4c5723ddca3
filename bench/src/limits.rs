//! The machine's limits, measured in the same run as the engines: sequential write
//! bandwidth to the same file system, and the rate of small appends each followed by
//! fdatasync (what a synced write costs at best).

use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// MB/s writing `total_mb` in 1 MiB writes, with one fdatasync at the end.
pub fn sequential_write_mb_s(dir: &Path, total_mb: usize) -> std::io::Result<f64> {
    let path = dir.join("limits-seq");
    let mut file = OpenOptions::new().create(true).write(true).truncate(true).open(&path)?;
    let chunk = vec![0x5au8; 1 << 20];
    let begun = Instant::now();
    for _ in 0..total_mb {
        file.write_all(&chunk)?;
    }
    file.sync_data()?;
    let secs = begun.elapsed().as_secs_f64();
    std::fs::remove_file(&path)?;
    Ok(total_mb as f64 * 1.048_576 / secs)
}

/// Appends of 4 KiB, each followed by fdatasync, for `span`: syncs per second.
pub fn fdatasync_per_s(dir: &Path, span: Duration) -> std::io::Result<f64> {
    let path = dir.join("limits-sync");
    let mut file = OpenOptions::new().create(true).append(true).open(&path)?;
    let block = vec![0x5au8; 4096];
    let begun = Instant::now();
    let mut syncs = 0u64;
    while begun.elapsed() < span {
        file.write_all(&block)?;
        file.sync_data()?;
        syncs += 1;
    }
    let secs = begun.elapsed().as_secs_f64();
    std::fs::remove_file(&path)?;
    Ok(syncs as f64 / secs)
}

/// Peak resident memory of this process (VmHWM), in MiB.
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}
