//! Request metrics of the embedded database: a count and a latency histogram per kind of
//! request, fed by the embedded [`Table`](basalt_api::Table), which every front end in a
//! standalone server (gRPC, gateways, shell in process) goes through.
//!
//! Engine gauges (memstore, block cache, files, queues, log syncs) are not kept here: they
//! are read from the engine when rendered ([`crate::Database::engine`]).
//!
//! # Layout
//! - [`histogram`]: the fixed-bucket latency histogram.

pub mod histogram;

use histogram::{Histogram, HistogramSnapshot};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// A kind of request, as counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    Get,
    /// Opening a scanner.
    Scan,
    /// One call for a scanner's next rows: a row taken alone, or one answer of many rows
    /// (a server's response, HBase's `ScanNext` per RPC).
    ScanNext,
    Put,
    Delete,
    Increment,
    Append,
    CheckAndMutate,
    MutateRow,
    Batch,
}

impl Op {
    pub const ALL: [Op; 10] = [
        Op::Get,
        Op::Scan,
        Op::ScanNext,
        Op::Put,
        Op::Delete,
        Op::Increment,
        Op::Append,
        Op::CheckAndMutate,
        Op::MutateRow,
        Op::Batch,
    ];

    /// The lower-case name used in Prometheus labels.
    pub fn name(self) -> &'static str {
        match self {
            Op::Get => "get",
            Op::Scan => "scan",
            Op::ScanNext => "scan_next",
            Op::Put => "put",
            Op::Delete => "delete",
            Op::Increment => "increment",
            Op::Append => "append",
            Op::CheckAndMutate => "check_and_mutate",
            Op::MutateRow => "mutate_row",
            Op::Batch => "batch",
        }
    }

    /// HBase's JMX prefix for the op (`Get_num_ops`, `ScanNext_99th_percentile`, ...).
    pub fn jmx_name(self) -> &'static str {
        match self {
            Op::Get => "Get",
            Op::Scan => "Scan",
            Op::ScanNext => "ScanNext",
            Op::Put => "Put",
            Op::Delete => "Delete",
            Op::Increment => "Increment",
            Op::Append => "Append",
            Op::CheckAndMutate => "CheckAndMutate",
            Op::MutateRow => "Mutate",
            Op::Batch => "Multi",
        }
    }

    /// Whether the op reads (HBase's read requests) rather than writes.
    pub fn is_read(self) -> bool {
        matches!(self, Op::Get | Op::Scan | Op::ScanNext)
    }

    fn index(self) -> usize {
        self as usize
    }
}

#[derive(Debug, Default)]
struct OpMetrics {
    latency: Histogram,
    errors: AtomicU64,
}

/// The request metrics of one database.
#[derive(Debug, Default)]
pub struct Metrics {
    ops: [OpMetrics; Op::ALL.len()],
}

impl Metrics {
    /// Records one request of kind `op` that began at `started`.
    pub fn record<T, E>(&self, op: Op, started: Instant, result: &Result<T, E>) {
        let entry = &self.ops[op.index()];
        entry.latency.record(started.elapsed());
        if result.is_err() {
            entry.errors.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn snapshot(&self, op: Op) -> OpSnapshot {
        let entry = &self.ops[op.index()];
        OpSnapshot {
            op,
            latency: entry.latency.snapshot(),
            errors: entry.errors.load(Ordering::Relaxed),
        }
    }

    /// Every kind, in [`Op::ALL`] order.
    pub fn snapshots(&self) -> Vec<OpSnapshot> {
        Op::ALL.iter().map(|&op| self.snapshot(op)).collect()
    }
}

/// One kind's metrics at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpSnapshot {
    pub op: Op,
    /// Requests (successful or not) with their latencies.
    pub latency: HistogramSnapshot,
    pub errors: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_are_counted_separately_with_their_errors() {
        let m = Metrics::default();
        let ok: Result<(), ()> = Ok(());
        m.record(Op::Get, Instant::now(), &ok);
        m.record(Op::Get, Instant::now(), &Err::<(), _>(()));
        m.record(Op::Put, Instant::now(), &ok);
        assert_eq!(m.snapshot(Op::Get).latency.count, 2);
        assert_eq!(m.snapshot(Op::Get).errors, 1);
        assert_eq!(m.snapshot(Op::Put).latency.count, 1);
        assert_eq!(m.snapshot(Op::Scan).latency.count, 0);
        assert!(Op::ALL.iter().enumerate().all(|(i, op)| op.index() == i));
    }
}
