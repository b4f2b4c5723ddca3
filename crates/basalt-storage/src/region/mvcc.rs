//! Multi-version concurrency control: sequence ids and the read point.
//!
//! Every write takes the next sequence id; its cells carry it. The read point is the
//! highest id below which every write is complete; readers see cells at or below the read
//! point only, so a row mutation is visible whole or not at all.
//!
//! | writes begun | completed | read point |
//! |--------------|-----------|------------|
//! | 5, 6, 7      | 6         | 4 (5 still running) |
//! | 5, 6, 7      | 5, 6      | 6 |
//! | 5, 6, 7      | 5, 6, 7   | 7 |

use parking_lot::{Condvar, Mutex};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Debug)]
pub struct Mvcc {
    state: Mutex<State>,
    advanced: Condvar,
    read_point: AtomicU64,
}

#[derive(Debug)]
struct State {
    next_seq: u64,
    running: BTreeSet<u64>,
}

impl Mvcc {
    /// Starts after `last_seq`, the highest id already used (in files or the log).
    pub fn new(last_seq: u64) -> Self {
        Self {
            state: Mutex::new(State {
                next_seq: last_seq + 1,
                running: BTreeSet::new(),
            }),
            advanced: Condvar::new(),
            read_point: AtomicU64::new(last_seq),
        }
    }

    /// Takes the next sequence id for a write.
    pub fn begin(&self) -> u64 {
        let mut state = self.state.lock();
        let seq = state.next_seq;
        state.next_seq += 1;
        state.running.insert(seq);
        seq
    }

    /// Marks a write complete (applied, or abandoned after a failure) and advances the read
    /// point as far as every earlier write allows.
    pub fn complete(&self, seq: u64) {
        let mut state = self.state.lock();
        state.running.remove(&seq);
        let read_point = match state.running.first() {
            Some(oldest) => oldest - 1,
            None => state.next_seq - 1,
        };
        self.read_point.store(read_point, Ordering::Release);
        self.advanced.notify_all();
    }

    /// Completes `seq` and waits until readers can see it.
    pub fn complete_and_wait(&self, seq: u64) {
        self.complete(seq);
        let mut state = self.state.lock();
        while self.read_point.load(Ordering::Acquire) < seq {
            self.advanced.wait(&mut state);
        }
    }

    pub fn read_point(&self) -> u64 {
        self.read_point.load(Ordering::Acquire)
    }

    /// The highest sequence id handed out so far.
    pub fn last_seq(&self) -> u64 {
        self.state.lock().next_seq - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn read_point_waits_for_the_oldest_running_write() {
        let mvcc = Mvcc::new(4);
        let (a, b, c) = (mvcc.begin(), mvcc.begin(), mvcc.begin());
        assert_eq!((a, b, c), (5, 6, 7));
        mvcc.complete(b);
        assert_eq!(mvcc.read_point(), 4);
        mvcc.complete(a);
        assert_eq!(mvcc.read_point(), 6);
        mvcc.complete(c);
        assert_eq!(mvcc.read_point(), 7);
    }

    #[test]
    fn complete_and_wait_returns_once_visible() {
        let mvcc = Arc::new(Mvcc::new(0));
        let first = mvcc.begin();
        let second = mvcc.begin();
        let waiter = {
            let mvcc = mvcc.clone();
            std::thread::spawn(move || {
                mvcc.complete_and_wait(second);
                mvcc.read_point()
            })
        };
        mvcc.complete(first);
        assert_eq!(waiter.join().expect("no panic"), 2);
    }
}
