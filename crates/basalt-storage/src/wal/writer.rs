//! Group commit: many appenders, one writer-and-syncer at a time, one `fdatasync` for all.
//!
//! Appenders add their encoded record to a shared buffer and take a ticket (1, 2, 3, ...).
//! To be acknowledged, an appender waits until `resolved >= ticket`. If no one is writing,
//! it becomes the leader: it takes the whole buffer (its own record and everyone else's),
//! writes it, syncs once, publishes the new `resolved` and wakes everyone. While a leader
//! syncs, new records pile up in the buffer and the next leader takes them all in one go.
//!
//! | step | buffer         | leader | resolved | what happens                              |
//! |------|----------------|--------|----------|-------------------------------------------|
//! | 1    | [1]            | A      | 0        | A takes [1], writes, syncs                 |
//! | 2    | [2, 3, 4]      | A      | 0        | B, C, D append and wait                    |
//! | 3    | [2, 3, 4]      | none   | 1        | A is done; B wakes and leads               |
//! | 4    | []             | B      | 4        | one sync acknowledges B, C and D           |
//!
//! A new leader may first wait, briefly, for the rest of its group to queue (`gather`): the
//! writers acknowledged by the last sync are usually on their way back with their next record.
//!
//! A batch refused for lack of space (see `active`) resolves its tickets without
//! acknowledging them: each of its waiters gets the [`Error::NoSpace`], its ASYNC_WAL
//! records (acknowledged already) go back into the buffer for the next batch, and the log
//! goes on (`outcome`). Any other failed write, and every failed sync, poisons the log: the
//! leader returns the I/O error, every waiter not yet resolved gets [`Error::Poisoned`],
//! and so does every later append.

use super::active::{ActiveSegment, Failure};
use super::edit::{encode_segment_record, WalEdit};
use super::gather::Gather;
use super::outcome::{requeue, Outcomes, Refusal};
use super::retention::Retention;
use crate::error::{Error, Result};
use parking_lot::{Condvar, Mutex, MutexGuard};
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tracing::{debug, error, info, warn};

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
    /// Byte ranges in `buffer` of the ASYNC_WAL records no one waits for.
    buffer_async: Vec<Range<usize>>,
    /// Highest sequence id per region among the records in `buffer`.
    buffer_regions: HashMap<String, u64>,
    /// Records in `buffer` whose appenders wait for their sync (ASYNC_WAL ones do not).
    buffered_waiters: usize,
    /// Set while a leader gathers its group: the waiters it waits for.
    gathering_for: Option<usize>,
    gather: Gather,
    /// Tickets handed out.
    appended: u64,
    /// Every ticket up to this one is resolved: durable, unless `outcomes` says refused.
    resolved: u64,
    outcomes: Outcomes,
    /// Batches are being refused for lack of space (logged when it starts and ends).
    refusing: bool,
    leader: bool,
    poison: Option<String>,
    closed: bool,
    syncer_stopping: bool,
    /// Regions whose tables keep their logs (`WAL_RETENTION_SECS`): a time mark precedes
    /// their edits (see [`WalEdit::time_mark`]).
    retained: HashSet<String>,
    /// The millisecond of the last time mark put in the buffer (0: none yet).
    last_mark_ms: u64,
}

/// Milliseconds since the Unix epoch (0 if the clock is before it).
fn wall_clock_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// How an appender waits for its record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Until it is synced (SYNC_WAL and stronger).
    Synced,
    /// Not at all (ASYNC_WAL), unless more than this is buffered unsynced.
    UnlessBufferOver(usize),
}

/// A record taken into the buffer.
#[derive(Debug, Clone, Copy)]
pub struct Enqueued {
    pub ticket: u64,
    /// Bytes now buffered.
    pub buffered: usize,
    /// The appender must [`GroupCommit::commit`] its ticket (and only then may it count
    /// the record as logged).
    pub must_commit: bool,
}

impl State {
    /// What the waiter of resolved `ticket` learns.
    fn outcome(&mut self, ticket: u64) -> Result<()> {
        match self.outcomes.take(ticket) {
            Some(refusal) => Err(refusal.error()),
            None => Ok(()),
        }
    }

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

    /// Whether `region`'s segments are kept (moved to the archive) once flushed, and its
    /// edits preceded by time marks.
    pub fn set_retained(&self, region: &str, retained: bool) {
        let mut state = self.state.lock();
        if retained {
            state.retained.insert(region.to_string());
        } else {
            state.retained.remove(region);
        }
    }

    /// The regions whose segments are kept.
    pub fn retained(&self) -> HashSet<String> {
        self.state.lock().retained.clone()
    }

    /// Fails if the log no longer accepts appends.
    pub fn check_open(&self) -> Result<()> {
        self.state.lock().check_open()
    }

    /// Encodes `edit` as one record straight into the buffer (no copy in between). A
    /// refused edit leaves the buffer as it was.
    pub fn enqueue(&self, edit: &WalEdit, wait: Wait) -> Result<Enqueued> {
        let mut state = self.state.lock();
        state.check_open()?;
        let start = state.buffer.len();
        if state.retained.contains(edit.region.as_str()) {
            // Read under the lock: every record after the mark is logged at or after it.
            let now_ms = wall_clock_ms();
            if now_ms > state.last_mark_ms {
                encode_segment_record(&WalEdit::time_mark(now_ms), 0, &mut state.buffer)
                    .map_err(Error::invalid)?;
                state.last_mark_ms = now_ms;
            }
        }
        if let Err(e) = encode_segment_record(edit, 0, &mut state.buffer) {
            state.buffer.truncate(start);
            return Err(Error::invalid(e));
        }
        match state.buffer_regions.get_mut(edit.region.as_str()) {
            Some(max) => *max = (*max).max(edit.seq_id),
            None => {
                state
                    .buffer_regions
                    .insert(edit.region.clone(), edit.seq_id);
            }
        }
        state.appended += 1;
        let ticket = state.appended;
        let buffered = state.buffer.len();
        let must_commit = match wait {
            Wait::Synced => true,
            Wait::UnlessBufferOver(max) => buffered > max,
        };
        if wait == Wait::Synced {
            state.buffered_waiters += 1;
            if state
                .gathering_for
                .is_some_and(|n| state.buffered_waiters >= n)
            {
                self.gathered.notify_one();
            }
        }
        if must_commit {
            state.outcomes.wait_for(ticket);
        } else {
            state.buffer_async.push(start..buffered);
        }
        Ok(Enqueued {
            ticket,
            buffered,
            must_commit,
        })
    }

    /// Returns once `ticket` (taken by [`enqueue`](Self::enqueue) with `must_commit`) is
    /// durable, leading a write-and-sync if no one else is; fails if its batch was refused
    /// or the log is poisoned. With `gather`, a leader first waits briefly for the rest of
    /// its group (see `gather`).
    pub fn commit(&self, ticket: u64, gather: bool) -> Result<()> {
        let mut state = self.state.lock();
        loop {
            if state.resolved >= ticket {
                return state.outcome(ticket);
            }
            if let Some(why) = &state.poison {
                let why = why.clone();
                state.outcomes.take(ticket);
                return Err(Error::Poisoned(why));
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
        let batch_async = std::mem::take(&mut state.buffer_async);
        let regions = std::mem::take(&mut state.buffer_regions);
        let tickets = state.resolved + 1..=state.appended;
        drop(state);

        let mut guard = LeaderGuard {
            commit: self,
            finished: false,
        };
        let began = Instant::now();
        let result = self.write_batch(&mut batch, &regions);
        let took = began.elapsed();
        guard.finished = true;
        drop(guard);

        let mut state = self.state.lock();
        state.leader = false;
        if batch_waiters > 0 {
            let queued = state.buffered_waiters;
            state.gather.after_sync(batch_waiters, queued, took);
        }
        let result = match result {
            Ok(()) => {
                if std::mem::take(&mut state.refusing) {
                    info!("space is back: the write-ahead log accepts writes again");
                }
                state.resolved = *tickets.end();
                state.outcomes.take(ticket);
                Ok(())
            }
            Err(Failure::Refused(e)) => {
                // The batch's time mark went with it: the next retained edit logs one.
                state.last_mark_ms = 0;
                self.refuse(&mut state, &e, tickets, &batch, &batch_async, &regions);
                state.outcomes.take(ticket);
                Err(e)
            }
            Err(Failure::Fatal(e)) => {
                error!(error = %e, "the write-ahead log failed; refusing further writes");
                state.poison.get_or_insert_with(|| e.to_string());
                state.outcomes.take(ticket);
                Err(e)
            }
        };
        if batch.capacity() <= SPARE_KEEP_MAX_BYTES {
            batch.clear();
            state.spare = batch;
        }
        drop(state);
        self.done.notify_all();
        result
    }

    /// Resolves a batch refused for lack of space: its waiters will get `error`, its
    /// ASYNC_WAL records go back into the buffer (as one more ticket, so that syncing
    /// everything appended includes them).
    fn refuse(
        &self,
        state: &mut State,
        error: &Error,
        tickets: std::ops::RangeInclusive<u64>,
        batch: &[u8],
        batch_async: &[Range<usize>],
        regions: &HashMap<String, u64>,
    ) {
        if !state.refusing {
            state.refusing = true;
            error!(error = %error, "the disk is full: the write-ahead log refuses writes until space is freed");
        } else {
            debug!(error = %error, "a batch was refused: the disk is still full");
        }
        state.outcomes.refuse(tickets.clone(), &Refusal::new(error));
        state.resolved = *tickets.end();
        let state = &mut *state;
        let put_back = requeue(
            batch,
            batch_async,
            regions,
            &mut state.buffer,
            &mut state.buffer_async,
            &mut state.buffer_regions,
        );
        if put_back > 0 {
            state.appended += 1;
            debug!(
                records = put_back,
                "ASYNC_WAL records of the refused batch wait for the next one"
            );
        }
    }

    /// Syncs everything appended so far, without gathering.
    pub fn commit_all(&self) -> Result<()> {
        let mut state = self.state.lock();
        let ticket = state.appended;
        if state.resolved >= ticket {
            return Ok(());
        }
        state.outcomes.wait_for(ticket);
        drop(state);
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

    fn write_batch(
        &self,
        batch: &mut [u8],
        regions: &HashMap<String, u64>,
    ) -> std::result::Result<(), Failure> {
        if batch.is_empty() {
            return Ok(());
        }
        let mut active = self.active.lock();
        let result = active.write_and_sync(batch, regions);
        if result.is_ok() {
            self.sync_count.fetch_add(1, Ordering::Relaxed);
        }
        let closed = active.take_closed();
        if !closed.is_empty() {
            let mut retention = self.retention.lock();
            for (id, regions) in closed {
                retention.add_closed(id, regions);
            }
        }
        result
    }

    /// Refuses further appends, then syncs what was accepted. Reports poison if any.
    pub fn close(&self) -> Result<()> {
        self.state.lock().closed = true;
        if let Err(e) = self.commit_all() {
            let unlogged = self.state.lock().buffer.len();
            if unlogged > 0 {
                warn!(bytes = unlogged, error = %e, "closing the log: ASYNC_WAL edits could not be logged");
            }
            return Err(e);
        }
        match self.poisoned() {
            Some(why) => Err(Error::Poisoned(why)),
            None => Ok(()),
        }
    }

    pub fn poisoned(&self) -> Option<String> {
        self.state.lock().poison.clone()
    }

    /// Whether the last batch was refused for lack of space.
    pub fn refusing(&self) -> bool {
        self.state.lock().refusing
    }

    /// Tickets still waited for (nothing may stay behind once appenders are done).
    pub fn waiting_len(&self) -> usize {
        self.state.lock().outcomes.waiting_len()
    }

    pub fn sync_count(&self) -> u64 {
        self.sync_count.load(Ordering::Relaxed)
    }

    /// For the background syncer: waits up to `interval`, or less if appends leave
    /// [`ASYNC_HANDOFF_BYTES`] or more buffered (unless `backing_off`, after a refused
    /// batch); false once it should stop.
    pub fn wait_tick(&self, interval: Duration, backing_off: bool) -> bool {
        let mut state = self.state.lock();
        if !state.syncer_stopping && (backing_off || state.buffer.len() < ASYNC_HANDOFF_BYTES) {
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
