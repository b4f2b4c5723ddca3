//! Group commit: many appenders, one writer-and-syncer at a time, one `fdatasync` for all.
//!
//! Appenders add their encoded record to a shared buffer and take a ticket (1, 2, 3, ...).
//! To be acknowledged, an appender waits until `synced >= ticket`. If no one is writing, it
//! becomes the leader: it takes the whole buffer (its own record and everyone else's), writes
//! it, syncs once, publishes the new `synced` and wakes everyone. While a leader syncs, new
//! records pile up in the buffer and the next leader takes them all in one go.
//!
//! | step | buffer         | leader | synced | what happens                                |
//! |------|----------------|--------|--------|---------------------------------------------|
//! | 1    | [1]            | A      | 0      | A takes [1], writes, syncs                   |
//! | 2    | [2, 3, 4]      | A      | 0      | B, C, D append and wait                      |
//! | 3    | [2, 3, 4]      | none   | 1      | A is done; B wakes and leads                 |
//! | 4    | []             | B      | 4      | one sync acknowledges B, C and D             |
//!
//! A new leader may first wait, briefly, for the rest of its group to queue (`gather`): the
//! writers acknowledged by the last sync are usually on their way back with their next record.
//!
//! A failed write or sync poisons the log: the leader returns the I/O error, every waiter not
//! yet covered by `synced` gets [`Error::Poisoned`], and so does every later append.

use super::active::ActiveSegment;
use super::edit::{encode_record, WalEdit};
use super::gather::Gather;
use super::retention::Retention;
use crate::error::{Error, Result};
use parking_lot::{Condvar, Mutex, MutexGuard};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tracing::error;

const LOG_NAME: &str = "write-ahead log";

/// ASYNC_WAL appends that leave at least this much buffered wake the background syncer
/// rather than wait for its next tick: the log reaches the OS in large writes, off the
/// appenders' thread, and the buffer stays small.
pub const ASYNC_HANDOFF_BYTES: usize = 1024 * 1024;

/// A written batch's buffer is kept for reuse unless it grew beyond this.
const SPARE_KEEP_MAX_BYTES: usize = 16 * 1024 * 1024;

#[derive(Debug, Default)]
struct State {
    /// Encoded records waiting for a leader.
    buffer: Vec<u8>,
    /// An emptied earlier buffer, swapped in when a leader takes `buffer`, so appends
    /// reuse its capacity instead of regrowing a buffer from nothing after every batch.
    spare: Vec<u8>,
    /// Highest sequence id per region among the records in `buffer`.
    buffer_regions: HashMap<String, u64>,
    /// Records in `buffer` whose appenders wait for their sync (ASYNC_WAL ones do not).
    buffered_waiters: usize,
    /// Set while a leader gathers its group: the waiters it waits for.
    gathering_for: Option<usize>,
    gather: Gather,
    /// Tickets handed out.
    appended: u64,
    /// Every ticket up to this one is durable.
    synced: u64,
    leader: bool,
    poison: Option<String>,
    closed: bool,
    syncer_stopping: bool,
}

impl State {
    fn check_open(&self) -> Result<()> {
        if self.closed {
            return Err(Error::Closed(LOG_NAME.into()));
        }
        match &self.poison {
            Some(why) => Err(Error::Poisoned(why.clone())),
            None => Ok(()),
        }
    }
}

#[derive(Debug)]
pub struct GroupCommit {
    state: Mutex<State>,
    /// Signalled when a leader finishes.
    done: Condvar,
    /// Signalled when a gathering leader's group has queued.
    gathered: Condvar,
    /// Signalled to stop the background syncer.
    tick: Condvar,
    active: Mutex<ActiveSegment>,
    pub retention: Mutex<Retention>,
    sync_count: AtomicU64,
}

impl GroupCommit {
    pub fn new(active: ActiveSegment, retention: Retention) -> Self {
        Self {
            state: Mutex::new(State::default()),
            done: Condvar::new(),
            gathered: Condvar::new(),
            tick: Condvar::new(),
            active: Mutex::new(active),
            retention: Mutex::new(retention),
            sync_count: AtomicU64::new(0),
        }
    }

    /// Fails if the log no longer accepts appends.
    pub fn check_open(&self) -> Result<()> {
        self.state.lock().check_open()
    }

    /// Encodes `edit` as one record straight into the buffer (no copy in between). Returns
    /// its ticket and the bytes now buffered. A refused edit leaves the buffer as it was.
    /// `waits`: the appender will wait for the record's sync ([`commit`](Self::commit)).
    pub fn enqueue(&self, edit: &WalEdit, waits: bool) -> Result<(u64, usize)> {
        let mut state = self.state.lock();
        state.check_open()?;
        encode_record(edit, &mut state.buffer).map_err(Error::invalid)?;
        match state.buffer_regions.get_mut(edit.region.as_str()) {
            Some(max) => *max = (*max).max(edit.seq_id),
            None => {
                state
                    .buffer_regions
                    .insert(edit.region.clone(), edit.seq_id);
            }
        }
        state.appended += 1;
        if waits {
            state.buffered_waiters += 1;
            if state
                .gathering_for
                .is_some_and(|n| state.buffered_waiters >= n)
            {
                self.gathered.notify_one();
            }
        }
        Ok((state.appended, state.buffer.len()))
    }

    /// Returns once `ticket` is durable, leading a write-and-sync if no one else is. With
    /// `gather`, a leader first waits briefly for the rest of its group (see `gather`).
    pub fn commit(&self, ticket: u64, gather: bool) -> Result<()> {
        let mut state = self.state.lock();
        loop {
            if state.synced >= ticket {
                return Ok(());
            }
            if let Some(why) = &state.poison {
                return Err(Error::Poisoned(why.clone()));
            }
            if !state.leader {
                break;
            }
            self.done.wait(&mut state);
        }
        state.leader = true;
        if gather {
            self.gather_group(&mut state);
        }
        let batch_waiters = std::mem::take(&mut state.buffered_waiters);
        let spare = std::mem::take(&mut state.spare);
        let mut batch = std::mem::replace(&mut state.buffer, spare);
        let regions = std::mem::take(&mut state.buffer_regions);
        let through = state.appended;
        drop(state);

        let mut guard = LeaderGuard {
            commit: self,
            finished: false,
        };
        let began = Instant::now();
        let result = self.write_batch(&batch, regions);
        let took = began.elapsed();
        guard.finished = true;
        drop(guard);

        let mut state = self.state.lock();
        state.leader = false;
        if batch_waiters > 0 {
            let queued = state.buffered_waiters;
            state.gather.after_sync(batch_waiters, queued, took);
        }
        if batch.capacity() <= SPARE_KEEP_MAX_BYTES {
            batch.clear();
            state.spare = batch;
        }
        match &result {
            Ok(()) => state.synced = through,
            Err(e) => {
                error!(error = %e, "the write-ahead log failed; refusing further writes");
                state.poison.get_or_insert_with(|| e.to_string());
            }
        }
        drop(state);
        self.done.notify_all();
        result
    }

    /// Syncs everything appended so far, without gathering.
    pub fn commit_all(&self) -> Result<()> {
        let ticket = self.state.lock().appended;
        self.commit(ticket, false)
    }

    /// Waits, as a new leader, until the last round's synced appenders have queued again or
    /// the last sync's duration has passed (unless recent timeouts make this round skip it).
    fn gather_group(&self, state: &mut MutexGuard<'_, State>) {
        let queued = state.buffered_waiters;
        let Some((appenders, longest)) = state.gather.wait_for(queued) else {
            return;
        };
        let deadline = Instant::now() + longest;
        state.gathering_for = Some(appenders);
        while state.buffered_waiters < appenders {
            if self.gathered.wait_until(state, deadline).timed_out() {
                break;
            }
        }
        state.gathering_for = None;
        let short = state.buffered_waiters < appenders;
        state.gather.gathered(short);
    }

    fn write_batch(&self, batch: &[u8], regions: HashMap<String, u64>) -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        let mut active = self.active.lock();
        let closed = active.write_and_sync(batch, regions)?;
        self.sync_count.fetch_add(1, Ordering::Relaxed);
        if let Some((id, regions)) = closed {
            self.retention.lock().add_closed(id, regions);
        }
        Ok(())
    }

    /// Refuses further appends, then syncs what was accepted. Reports poison if any.
    pub fn close(&self) -> Result<()> {
        self.state.lock().closed = true;
        self.commit_all()?;
        match self.poisoned() {
            Some(why) => Err(Error::Poisoned(why)),
            None => Ok(()),
        }
    }

    pub fn poisoned(&self) -> Option<String> {
        self.state.lock().poison.clone()
    }

    pub fn sync_count(&self) -> u64 {
        self.sync_count.load(Ordering::Relaxed)
    }

    /// For the background syncer: waits up to `interval`, or less if appends leave
    /// [`ASYNC_HANDOFF_BYTES`] or more buffered; false once it should stop.
    pub fn wait_tick(&self, interval: Duration) -> bool {
        let mut state = self.state.lock();
        if !state.syncer_stopping && state.buffer.len() < ASYNC_HANDOFF_BYTES {
            self.tick.wait_for(&mut state, interval);
        }
        !state.syncer_stopping
    }

    /// Wakes the background syncer to write and sync the buffer now.
    pub fn wake_syncer(&self) {
        self.tick.notify_all();
    }

    /// Tells the background syncer to stop.
    pub fn stop_syncer(&self) {
        self.state.lock().syncer_stopping = true;
        self.tick.notify_all();
    }
}

/// Poisons the log if a leader unwinds mid-batch, so waiters get an error instead of hanging.
struct LeaderGuard<'a> {
    commit: &'a GroupCommit,
    finished: bool,
}

impl Drop for LeaderGuard<'_> {
    fn drop(&mut self) {
        if !self.finished {
            let mut state = self.commit.state.lock();
            state.leader = false;
            state
                .poison
                .get_or_insert_with(|| "a log writer panicked mid-batch".into());
            drop(state);
            self.commit.done.notify_all();
        }
    }
}
