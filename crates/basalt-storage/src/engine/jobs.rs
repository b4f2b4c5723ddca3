//! The queue of background work: flushes and compactions asked for by regions.

use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::time::Duration;

/// Work for the flusher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FlushJob {
    Region(String),
    /// The engine is over its memstore limit: flush whichever region holds the most.
    Largest,
}

/// What the compactor gets when it asks for work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompactionWait {
    /// A region asked for a compaction.
    Region(String),
    /// Nothing asked within the wait: time for periodic checks.
    Idle,
    /// The engine is shutting down.
    Stopping,
}

#[derive(Debug, Default)]
struct Queues {
    flushes: VecDeque<FlushJob>,
    compactions: VecDeque<String>,
    stopping: bool,
}

/// Requests from regions, taken by the engine's worker threads. Duplicate requests for
/// work already queued are dropped.
#[derive(Debug, Default)]
pub struct Jobs {
    queues: Mutex<Queues>,
    changed: Condvar,
}

impl Jobs {
    pub fn request_flush(&self, region: &str) {
        self.push_flush(FlushJob::Region(region.to_string()));
    }

    pub fn request_flush_largest(&self) {
        self.push_flush(FlushJob::Largest);
    }

    fn push_flush(&self, job: FlushJob) {
        let mut queues = self.queues.lock();
        if !queues.flushes.contains(&job) {
            queues.flushes.push_back(job);
            self.changed.notify_all();
        }
    }

    pub fn request_compaction(&self, region: &str) {
        let mut queues = self.queues.lock();
        if !queues.compactions.iter().any(|r| r == region) {
            queues.compactions.push_back(region.to_string());
            self.changed.notify_all();
        }
    }

    /// The next flush; `None` once stopping.
    pub fn next_flush(&self) -> Option<FlushJob> {
        let mut queues = self.queues.lock();
        loop {
            if queues.stopping {
                return None;
            }
            if let Some(job) = queues.flushes.pop_front() {
                return Some(job);
            }
            self.changed.wait(&mut queues);
        }
    }

    /// The next compaction, waiting at most `wait`.
    pub fn next_compaction(&self, wait: Duration) -> CompactionWait {
        let mut queues = self.queues.lock();
        if !queues.stopping && queues.compactions.is_empty() {
            self.changed.wait_for(&mut queues, wait);
        }
        if queues.stopping {
            return CompactionWait::Stopping;
        }
        match queues.compactions.pop_front() {
            Some(region) => CompactionWait::Region(region),
            None => CompactionWait::Idle,
        }
    }

    pub fn stop(&self) {
        self.queues.lock().stopping = true;
        self.changed.notify_all();
    }
}
