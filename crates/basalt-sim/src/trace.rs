//! [`Trace`]: what happened in a run, in order, each line stamped with the simulated time.
//! Two runs of one seed give the same lines, byte for byte; the digest (FNV-1a over every
//! line) says so without keeping them (a full-scale run keeps only the digest).

use parking_lot::Mutex;
use std::fmt::Display;
use tokio::time::Instant;

#[derive(Debug)]
pub struct Trace {
    start: Instant,
    keep: bool,
    inner: Mutex<Lines>,
}

#[derive(Debug)]
struct Lines {
    lines: Vec<String>,
    count: u64,
    digest: u64,
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

impl Trace {
    /// A trace starting now (simulated time); `keep` keeps every line, else only the digest.
    pub fn new(keep: bool) -> Self {
        Self {
            start: Instant::now(),
            keep,
            inner: Mutex::new(Lines {
                lines: Vec::new(),
                count: 0,
                digest: FNV_OFFSET,
            }),
        }
    }

    /// Simulated time since the start.
    pub fn elapsed(&self) -> std::time::Duration {
        Instant::now() - self.start
    }

    /// Records one event, stamped with the simulated time in ms.
    pub fn record(&self, what: impl Display) {
        let elapsed = self.elapsed();
        let line = format!(
            "{:>7}.{:03} {what}",
            elapsed.as_millis(),
            elapsed.subsec_micros() % 1000
        );
        let mut inner = self.inner.lock();
        for byte in line.bytes().chain(std::iter::once(b'\n')) {
            inner.digest = (inner.digest ^ u64::from(byte)).wrapping_mul(FNV_PRIME);
        }
        inner.count += 1;
        if self.keep {
            inner.lines.push(line);
        }
    }

    pub fn digest(&self) -> u64 {
        self.inner.lock().digest
    }

    pub fn count(&self) -> u64 {
        self.inner.lock().count
    }

    /// The lines kept (none unless kept).
    pub fn lines(&self) -> Vec<String> {
        self.inner.lock().lines.clone()
    }
}
