//! The queue of background work: flushes and compactions asked for by regions, and
//! flushes to try again later (after a full disk).

use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

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
    /// Flushes queued once their time comes.
    delayed_flushes: Vec<(Instant, String)>,
    compactions: VecDeque<String>,
    stopping: bool,
}

/// Requests from regions, taken by the engine's worker threads. Duplicate requests for
/// work already queued are dropped.
#[derive(Debug, Default)]
pub struct Jobs {
    queues: Mutex<Queues>,
    changed: Condvar,
    flushes_running: AtomicU64,
    compactions_running: AtomicU64,
    write_stalls: AtomicU64,
    write_stall_us: AtomicU64,
    compaction_paced_us: AtomicU64,
}

/// The queues and the work in progress at one moment, for metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct JobStats {
    pub flush_queue_length: usize,
    pub compaction_queue_length: usize,
    /// Flushes running now, background or requested.
    pub flushes_running: u64,
    pub compactions_running: u64,
    /// Writes that waited for flushes to bring the memstores under their global limit.
    pub write_stalls: u64,
    /// How long they waited, in total (µs).
    pub write_stall_us: u64,
    /// How long compactions waited to keep to their pace, in total (µs).
    pub compaction_paced_us: u64,
}

/// Counts one flush or compaction as running while it lives.
#[derive(Debug)]
pub struct Running<'a>(&'a AtomicU64);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Jobs {
    pub fn request_flush(&self, region: &str) {
        self.push_flush(FlushJob::Region(region.to_string()));
    }

    pub fn request_flush_largest(&self) {
        self.push_flush(FlushJob::Largest);
    }

    /// Queues a flush of `region` once `delay` has passed (one per region: a later
    /// request replaces an earlier one).
    pub fn request_flush_after(&self, region: &str, delay: Duration) {
        let mut queues = self.queues.lock();
        queues.delayed_flushes.retain(|(_, r)| r != region);
        queues
            .delayed_flushes
            .push((Instant::now() + delay, region.to_string()));
        self.changed.notify_all();
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
            let now = Instant::now();
            let (due, later): (Vec<_>, Vec<_>) = std::mem::take(&mut queues.delayed_flushes)
                .into_iter()
                .partition(|(at, _)| *at <= now);
            queues.delayed_flushes = later;
            for (_, region) in due {
                let job = FlushJob::Region(region);
                if !queues.flushes.contains(&job) {
                    queues.flushes.push_back(job);
                }
            }
            if let Some(job) = queues.flushes.pop_front() {
                return Some(job);
            }
            match queues.delayed_flushes.iter().map(|(at, _)| *at).min() {
                Some(next) => {
                    self.changed.wait_until(&mut queues, next);
                }
                None => self.changed.wait(&mut queues),
            }
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

    /// Marks a flush as running until the guard drops.
    pub fn flush_running(&self) -> Running<'_> {
        self.flushes_running.fetch_add(1, Ordering::Relaxed);
        Running(&self.flushes_running)
    }

    /// Marks a compaction as running until the guard drops.
    pub fn compaction_running(&self) -> Running<'_> {
        self.compactions_running.fetch_add(1, Ordering::Relaxed);
        Running(&self.compactions_running)
    }

    pub fn stats(&self) -> JobStats {
        let queues = self.queues.lock();
        JobStats {
            flush_queue_length: queues.flushes.len() + queues.delayed_flushes.len(),
            compaction_queue_length: queues.compactions.len(),
            flushes_running: self.flushes_running.load(Ordering::Relaxed),
            compactions_running: self.compactions_running.load(Ordering::Relaxed),
            write_stalls: self.write_stalls.load(Ordering::Relaxed),
            write_stall_us: self.write_stall_us.load(Ordering::Relaxed),
            compaction_paced_us: self.compaction_paced_us.load(Ordering::Relaxed),
        }
    }

    /// Counts a write that waited `waited` on the memstore limit (a write stall).
    pub fn note_write_stall(&self, waited: Duration) {
        self.write_stalls.fetch_add(1, Ordering::Relaxed);
        self.write_stall_us
            .fetch_add(waited.as_micros() as u64, Ordering::Relaxed);
    }

    /// Waits `pause` for a compaction keeping to its pace, or less if the engine stops.
    pub fn pace_compaction(&self, pause: Duration) {
        let start = Instant::now();
        let deadline = start + pause;
        let mut queues = self.queues.lock();
        while !queues.stopping && !self.changed.wait_until(&mut queues, deadline).timed_out() {}
        drop(queues);
        self.compaction_paced_us
            .fetch_add(start.elapsed().as_micros() as u64, Ordering::Relaxed);
    }

    pub fn stop(&self) {
        self.queues.lock().stopping = true;
        self.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compactions_rest_outlasts_other_news_and_ends_when_the_engine_stops() {
        let jobs = std::sync::Arc::new(Jobs::default());
        let resting = jobs.clone();
        let short = std::thread::spawn(move || {
            let start = Instant::now();
            resting.pace_compaction(Duration::from_millis(200));
            start.elapsed()
        });
        // A flush request wakes every waiter; the rest goes on to its end.
        jobs.request_flush("r");
        assert!(short.join().expect("rested") >= Duration::from_millis(200));
        let resting = jobs.clone();
        let long = std::thread::spawn(move || {
            let start = Instant::now();
            resting.pace_compaction(Duration::from_secs(600));
            start.elapsed()
        });
        jobs.stop();
        assert!(long.join().expect("rested") < Duration::from_secs(300));
        let stats = jobs.stats();
        assert!(stats.compaction_paced_us >= 200_000, "{stats:?}");
    }

    #[test]
    fn stats_count_queued_and_running_work() {
        let jobs = Jobs::default();
        jobs.request_flush("a");
        jobs.request_flush("a");
        jobs.request_compaction("b");
        let running = jobs.compaction_running();
        let stats = jobs.stats();
        assert_eq!(stats.flush_queue_length, 1, "duplicates are dropped");
        assert_eq!(stats.compaction_queue_length, 1);
        assert_eq!(stats.compactions_running, 1);
        drop(running);
        assert_eq!(jobs.stats().compactions_running, 0);
        assert_eq!(jobs.stats().flushes_running, 0);
    }

    #[test]
    fn a_delayed_flush_comes_once_its_time_has_come() {
        let jobs = Jobs::default();
        let began = Instant::now();
        jobs.request_flush_after("late", Duration::from_millis(50));
        jobs.request_flush_after("late", Duration::from_millis(60));
        assert_eq!(jobs.stats().flush_queue_length, 1, "one per region");
        jobs.request_flush("now");
        assert_eq!(jobs.next_flush(), Some(FlushJob::Region("now".into())));
        assert_eq!(jobs.next_flush(), Some(FlushJob::Region("late".into())));
        assert!(began.elapsed() >= Duration::from_millis(60));
        jobs.stop();
        assert_eq!(jobs.next_flush(), None);
    }
}
