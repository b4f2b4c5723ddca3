//! [`LocalCoordinator`]: the coordinator in one process (standalone mode and tests).
//!
//! One mutex over the [`store::Store`] (keys, revision, leases, history). Leases count
//! down on the monotonic clock; an expired lease's keys go at the next call that looks
//! (every call expires what is due first) or when the reaper task wakes at the next
//! expiry, whichever comes first, so a watcher sees the deletes without anyone polling.
//! Watches read the bounded history: each is a task that sends what it has not sent yet,
//! then waits for the revision to move.
//!
//! [`LocalCoordinator::new`] keeps everything in memory. [`LocalCoordinator::open`] keeps
//! it in a folder as well: every change (a transaction, a revoke, an expiry) is appended
//! to a journal and synced, still under the mutex, before the call returns or anyone can
//! read it; the revision and every key's create/mod revision and version survive a
//! restart. What does not survive: leases (their keys are deleted at one new revision
//! when the folder is opened, as etcd would expire them) and the watch history (a watch
//! from before the reopened revision ends `Compacted`). A failed append or sync stops the
//! coordinator: every later call answers `Unavailable` (what was written is in doubt) and
//! the folder must be opened again. The sync runs on the caller's thread, inside the
//! call; a commit costs one `fdatasync`.
//!
//! # Layout
//! - this file: the [`Coordinator`] implementation, the reaper and the watch tasks.
//! - `store`: the core, a plain data structure with etcd's rules; no I/O.
//! - `durable`: the folder (lock, open and replay, commit, snapshot).
//! - `journal`, `snapshot`: the two files' encodings; `codec`: bytes they share.

mod codec;
mod durable;
mod journal;
mod snapshot;
mod store;

pub use durable::DurableOptions;

pub(crate) use store::whole_seconds;
pub use store::HISTORY_EVENTS_MAX;

use crate::{
    CoordError, CoordFuture, Coordinator, KeyValue, Listing, Result, Txn, TxnResult, WatchStream,
};
use durable::Folder;
use parking_lot::Mutex;
use std::path::Path;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};
use store::Store;
use tokio::sync::{mpsc, watch, Notify};
use tokio::task::JoinHandle;

/// How many events a watch's channel buffers before its task waits for the reader.
const WATCH_CHANNEL_EVENTS: usize = 256;
/// The longest the reaper sleeps without checking that its coordinator still exists.
const REAPER_IDLE_MAX: Duration = Duration::from_secs(1);

/// The in-process coordinator. Clones share one store.
#[derive(Debug, Clone)]
pub struct LocalCoordinator {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    state: Mutex<State>,
    /// The store's revision, for watch tasks to wait on.
    revision: watch::Sender<i64>,
    /// Woken when a lease is granted (the next expiry may have moved earlier).
    /// Shared with the reaper, which holds no strong reference while it waits (so that
    /// dropping the last coordinator closes its folder at once).
    leases_changed: Arc<Notify>,
    reaper: Mutex<Option<JoinHandle<()>>>,
    /// Kept in a folder: a change syncs its journal.
    durable: bool,
}

/// The store, and the folder that keeps it when the coordinator is durable.
#[derive(Debug)]
struct State {
    store: Store,
    folder: Option<Folder>,
    /// Why the folder stopped taking changes; every call fails from then on.
    failed: Option<String>,
}

/// The most a transaction may put (keys and values), so that a journal record stays far
/// below its own limit.
const TXN_PUT_BYTES_MAX: usize = 64 << 20;

impl Default for LocalCoordinator {
    fn default() -> Self {
        Self::new()
    }
}

impl LocalCoordinator {
    /// An empty store keeping the last [`HISTORY_EVENTS_MAX`] events for watches.
    pub fn new() -> Self {
        Self::with_history(HISTORY_EVENTS_MAX)
    }

    /// An empty store keeping the last `history_events_max` events for watches; a watch
    /// from further back gets `Compacted`.
    pub fn with_history(history_events_max: usize) -> Self {
        Self::from_state(Store::new(history_events_max), None)
    }

    /// The durable coordinator kept in `dir` (created when absent), with the default
    /// [`DurableOptions`]. One process at a time: a second open of the same folder fails
    /// while the first coordinator (or a watch on it) lives. Fails, naming the file, the
    /// offset and the cause, when a file is damaged anywhere but a torn last record.
    pub fn open(dir: &Path) -> Result<Self> {
        Self::open_with(dir, DurableOptions::default())
    }

    /// [`LocalCoordinator::open`] with explicit snapshot bounds and history.
    pub fn open_with(dir: &Path, options: DurableOptions) -> Result<Self> {
        let (folder, store) = Folder::open(dir, options)?;
        Ok(Self::from_state(store, Some(folder)))
    }

    fn from_state(store: Store, folder: Option<Folder>) -> Self {
        let (revision, _) = watch::channel(store.revision());
        let durable = folder.is_some();
        Self {
            inner: Arc::new(Inner {
                durable,
                state: Mutex::new(State {
                    store,
                    folder,
                    failed: None,
                }),
                revision,
                leases_changed: Arc::new(Notify::new()),
                reaper: Mutex::new(None),
            }),
        }
    }

    /// Forgets the history below `revision` (etcd's Compact): watches must start at
    /// `revision` or later.
    pub fn compact(&self, revision: i64) -> Result<()> {
        self.inner.with_store(|store| store.compact(revision))?
    }

    /// The store's current revision.
    pub fn revision(&self) -> i64 {
        self.inner.state.lock().store.revision()
    }

    /// Starts the reaper on the current tokio runtime unless one runs already.
    fn ensure_reaper(&self) {
        let mut reaper = self.inner.reaper.lock();
        if reaper.as_ref().is_some_and(|task| !task.is_finished()) {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            *reaper = Some(runtime.spawn(reap(Arc::downgrade(&self.inner))));
        }
    }
}

impl Inner {
    /// Runs `f` on the store after expiring what is due, makes what changed durable when
    /// the coordinator has a folder, and wakes the watchers when the revision moved. A
    /// durable coordinator's sync runs off the async workers on a multi-thread runtime
    /// (`block_in_place`), so that other tasks of the process (a region server starting
    /// beside its master) are not held up by it.
    fn with_store<R>(&self, f: impl FnOnce(&mut Store) -> R) -> Result<R> {
        let multi_thread = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        match self.durable && multi_thread {
            true => tokio::task::block_in_place(|| self.with_store_now(f)),
            false => self.with_store_now(f),
        }
    }

    fn with_store_now<R>(&self, f: impl FnOnce(&mut Store) -> R) -> Result<R> {
        let mut state = self.state.lock();
        let State {
            store,
            folder,
            failed,
        } = &mut *state;
        if let Some(why) = failed {
            return Err(CoordError::Unavailable(why.clone()));
        }
        let before = store.revision();
        store.expire(now());
        let result = f(store);
        if let Some(folder) = folder {
            let changes = store.take_unsaved();
            if !changes.is_empty() {
                if let Err(error) = folder.commit(changes, store) {
                    tracing::error!(%error, "the coordinator's journal failed; it stops");
                    let why = format!("the coordinator's journal failed ({error}): reopen it");
                    *failed = Some(why.clone());
                    return Err(CoordError::Unavailable(why));
                }
            }
        }
        let after = store.revision();
        if after != before {
            self.revision.send_replace(after);
        }
        Ok(result)
    }
}

impl Drop for Inner {
    /// Wakes the reaper, which then finds its coordinator gone and ends.
    fn drop(&mut self) {
        self.leases_changed.notify_one();
    }
}

/// The time leases count down on: tokio's clock, so that a runtime whose time is paused
/// (a deterministic simulation) moves lease expiry with it; the monotonic clock otherwise.
fn now() -> Instant {
    tokio::time::Instant::now().into_std()
}

/// Expires leases when they fall due, so that watchers see their keys go.
async fn reap(inner: Weak<Inner>) {
    loop {
        let Some(strong) = inner.upgrade() else {
            return;
        };
        let Ok(next) = strong.with_store(|store| store.next_expiry()) else {
            return;
        };
        let wake = now() + REAPER_IDLE_MAX;
        let wake = next.map_or(wake, |next| next.min(wake));
        let leases_changed = strong.leases_changed.clone();
        drop(strong);
        let notified = leases_changed.notified();
        tokio::select! {
            biased;
            _ = notified => {}
            _ = tokio::time::sleep_until(wake.into()) => {}
        }
    }
}

impl Coordinator for LocalCoordinator {
    fn get(&self, key: &[u8]) -> CoordFuture<'_, Option<KeyValue>> {
        let kv = self.inner.with_store(|store| store.get(key));
        Box::pin(async move { kv })
    }

    fn list(&self, prefix: &[u8]) -> CoordFuture<'_, Listing> {
        let listing = self.inner.with_store(|store| store.list(prefix));
        Box::pin(async move { listing })
    }

    fn txn(&self, txn: Txn) -> CoordFuture<'_, TxnResult> {
        let result =
            check_size(&txn).and_then(|()| self.inner.with_store(|store| store.txn(&txn))?);
        Box::pin(async move { result })
    }

    fn grant_lease(&self, ttl: Duration) -> CoordFuture<'_, i64> {
        Box::pin(async move {
            self.ensure_reaper();
            let id = self.inner.with_store(|store| store.grant(ttl, now()))?;
            self.inner.leases_changed.notify_one();
            Ok(id)
        })
    }

    fn keep_alive(&self, lease: i64) -> CoordFuture<'_, Duration> {
        let result = self
            .inner
            .with_store(|store| store.keep_alive(lease, now()))
            .and_then(|r| r);
        Box::pin(async move { result })
    }

    fn revoke_lease(&self, lease: i64) -> CoordFuture<'_, ()> {
        let result = self
            .inner
            .with_store(|store| store.revoke(lease))
            .and_then(|r| r);
        Box::pin(async move { result })
    }

    fn watch(&self, prefix: &[u8], after: i64) -> CoordFuture<'_, WatchStream> {
        let prefix = prefix.to_vec();
        Box::pin(async move {
            // Leases must expire while the watcher waits, not only when someone calls.
            self.ensure_reaper();
            let (tx, rx) = mpsc::channel(WATCH_CHANNEL_EVENTS);
            tokio::spawn(forward(self.inner.clone(), prefix, after, tx));
            Ok(rx)
        })
    }

    fn describe(&self) -> String {
        "local".to_string()
    }
}

/// Refuses a transaction whose puts exceed [`TXN_PUT_BYTES_MAX`] (etcd has such a limit
/// too, far lower).
fn check_size(txn: &Txn) -> Result<()> {
    let bytes: usize = txn
        .success
        .iter()
        .chain(&txn.failure)
        .map(|op| match op {
            crate::Op::Put { key, value, .. } => key.len() + value.len(),
            crate::Op::Delete { key } => key.len(),
            crate::Op::DeletePrefix { prefix } => prefix.len(),
        })
        .sum();
    if bytes > TXN_PUT_BYTES_MAX {
        return Err(CoordError::Refused(format!(
            "a transaction of {bytes} bytes is above the limit of {TXN_PUT_BYTES_MAX}"
        )));
    }
    Ok(())
}

/// A watch's task: sends every change under `prefix` above `after`, in order, until the
/// reader goes away or the history no longer reaches back far enough (`Compacted`).
async fn forward(
    inner: Arc<Inner>,
    prefix: Vec<u8>,
    mut after: i64,
    tx: mpsc::Sender<Result<crate::WatchEvent>>,
) {
    let mut revision = inner.revision.subscribe();
    loop {
        // Marked seen before reading, so a change made after the read wakes the wait.
        revision.borrow_and_update();
        // The revision read at goes with the batch: nothing under the prefix changed up to
        // it, so the watch resumes from there (a quiet prefix on a busy store does not fall
        // behind the bounded history).
        let batch = inner
            .with_store(|store| {
                store
                    .events_after(&prefix, after)
                    .map(|events| (events, store.revision()))
            })
            .and_then(|r| r);
        match batch {
            Err(error) => {
                if let CoordError::Compacted { .. } = error {
                    tracing::debug!(%error, "local watch fell behind the history");
                }
                let _ = tx.send(Err(error)).await;
                return;
            }
            Ok((events, read_at)) => {
                for event in events {
                    after = event.kv.mod_revision;
                    if tx.send(Ok(event)).await.is_err() {
                        return;
                    }
                }
                after = after.max(read_at);
            }
        }
        tokio::select! {
            biased;
            changed = revision.changed() => {
                if changed.is_err() {
                    return;
                }
            }
            _ = tx.closed() => return,
        }
    }
}
