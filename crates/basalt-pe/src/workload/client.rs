//! One client of a run: its table handle, its rows, its random stream, its counts.
//!
//! Client `i` of `n` owns rows `[i × rows, (i + 1) × rows)` of a table of `n × rows` rows;
//! sequential commands walk their own rows, random commands pick from all of them.

use crate::options::PeOptions;
use crate::rng::Rng;
use crate::stats::{ClientStats, Outcome};
use basalt_api::Table;
use indicatif::ProgressBar;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Progress is published every this many operations (the bar is shared by every client).
const PROGRESS_EVERY_OPS: u64 = 256;

/// What the clients of one command share.
#[derive(Debug)]
pub struct Shared {
    /// Set when a client fails: the others stop at their next operation.
    pub stop: AtomicBool,
    /// YCSB: the next record number to insert.
    pub next_insert: AtomicU64,
    /// YCSB: records inserted so far (reads choose below it).
    pub inserted: AtomicU64,
}

impl Shared {
    pub fn new(options: &PeOptions) -> Self {
        Self {
            stop: AtomicBool::new(false),
            next_insert: AtomicU64::new(options.total_rows()),
            inserted: AtomicU64::new(options.total_rows()),
        }
    }
}

pub struct Client<'a> {
    pub index: u32,
    pub table: Arc<dyn Table>,
    pub options: &'a PeOptions,
    pub rng: Rng,
    pub shared: &'a Shared,
    stats: ClientStats,
    progress: &'a ProgressBar,
    unpublished_ops: u64,
}

impl<'a> Client<'a> {
    pub fn new(
        index: u32,
        table: Arc<dyn Table>,
        options: &'a PeOptions,
        shared: &'a Shared,
        progress: &'a ProgressBar,
    ) -> Self {
        Self {
            index,
            table,
            options,
            rng: Rng::for_client(options.seed, index),
            shared,
            stats: ClientStats::default(),
            progress,
            unpublished_ops: 0,
        }
    }

    /// The first row this client owns.
    pub fn first_row(&self) -> u64 {
        u64::from(self.index) * self.options.rows_per_client
    }

    /// This client's rows, in order.
    pub fn own_rows(&self) -> std::ops::Range<u64> {
        let first = self.first_row();
        first..first + self.options.rows_per_client
    }

    /// A row of the whole table, uniformly.
    pub fn random_row(&mut self) -> u64 {
        self.rng.below(self.options.total_rows())
    }

    /// Whether another client failed and this one should stop.
    pub fn stopped(&self) -> bool {
        self.shared.stop.load(Ordering::Relaxed)
    }

    /// Counts one operation begun at `started`.
    pub fn record(
        &mut self,
        kind: Option<&'static str>,
        started: Instant,
        bytes: u64,
        misses: u64,
    ) {
        let outcome = Outcome {
            latency: started.elapsed(),
            bytes,
            misses,
        };
        self.stats.record(kind, outcome);
        self.unpublished_ops += 1;
        if self.unpublished_ops >= PROGRESS_EVERY_OPS {
            self.progress.inc(self.unpublished_ops);
            self.unpublished_ops = 0;
        }
    }

    /// The client's counts, publishing the last progress.
    pub fn finish(self) -> ClientStats {
        self.progress.inc(self.unpublished_ops);
        self.stats
    }
}
