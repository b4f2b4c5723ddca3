//! What clients count while they run: per operation, its latency, the bytes it moved and
//! whether it missed (a read that found no row). Clients count alone; the runner merges.

use crate::histogram::Histogram;
use std::collections::BTreeMap;
use std::time::Duration;

/// Counts of one kind of operation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpStats {
    pub latency: Histogram,
    /// Value bytes written or read.
    pub bytes: u64,
    /// Reads that found nothing.
    pub misses: u64,
}

impl OpStats {
    pub fn ops(&self) -> u64 {
        self.latency.count()
    }

    fn record(&mut self, latency_us: u64, bytes: u64, misses: u64) {
        self.latency.record(latency_us);
        self.bytes += bytes;
        self.misses += misses;
    }

    pub fn merge(&mut self, other: &OpStats) {
        self.latency.merge(&other.latency);
        self.bytes += other.bytes;
        self.misses += other.misses;
    }
}

/// One client's counts, overall and per named kind (YCSB's read, update, …).
#[derive(Debug, Clone, Default)]
pub struct ClientStats {
    pub total: OpStats,
    pub kinds: BTreeMap<&'static str, OpStats>,
}

/// One outcome to count.
#[derive(Debug, Clone, Copy)]
pub struct Outcome {
    pub latency: Duration,
    pub bytes: u64,
    /// Rows asked for and not found.
    pub misses: u64,
}

impl ClientStats {
    pub fn record(&mut self, kind: Option<&'static str>, outcome: Outcome) {
        let latency_us = u64::try_from(outcome.latency.as_micros()).unwrap_or(u64::MAX);
        self.total.record(latency_us, outcome.bytes, outcome.misses);
        if let Some(kind) = kind {
            self.kinds
                .entry(kind)
                .or_default()
                .record(latency_us, outcome.bytes, outcome.misses);
        }
    }

    pub fn merge(&mut self, other: &ClientStats) {
        self.total.merge(&other.total);
        for (kind, stats) in &other.kinds {
            self.kinds.entry(kind).or_default().merge(stats);
        }
    }
}

/// One command's merged counts and its wall-clock time.
#[derive(Debug, Clone)]
pub struct PhaseStats {
    pub command: &'static str,
    pub elapsed: Duration,
    pub stats: ClientStats,
    /// CPU seconds the server used during the phase, when it could be read.
    pub server_cpu_secs: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_total_both_count() {
        let mut a = ClientStats::default();
        let hit = Outcome {
            latency: Duration::from_micros(10),
            bytes: 100,
            misses: 0,
        };
        let miss = Outcome {
            latency: Duration::from_micros(20),
            bytes: 0,
            misses: 1,
        };
        a.record(Some("read"), hit);
        a.record(Some("read"), miss);
        let mut b = ClientStats::default();
        b.record(Some("update"), hit);
        a.merge(&b);
        assert_eq!(a.total.ops(), 3);
        assert_eq!(a.total.bytes, 200);
        assert_eq!(a.total.misses, 1);
        assert_eq!(a.kinds["read"].ops(), 2);
        assert_eq!(a.kinds["update"].ops(), 1);
    }
}
