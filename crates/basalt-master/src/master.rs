//! The master's state and the primitive it builds every procedure from: a catalog change
//! committed to the coordinator under the leader's guard, then applied in memory.
//!
//! Only the active master writes. Every write is one transaction that also checks the
//! master still holds its election key (its create revision): a master that lost the
//! election without noticing fails its next write and stands down.

use crate::catalog::Catalog;
use crate::config::MasterConfig;
use crate::error;
use crate::hosts::{RegionHosts, Surroundings, WallClock};
use crate::recoveries::Recoveries;
use crate::rit::Transition;
use crate::servers::Servers;
use basalt_api::Result;
use basalt_coord::{Compare, Coordinator, Op, Txn};
use basalt_storage::fs::FileSystem;
use parking_lot::{Mutex, RwLock};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Operations per coordinator transaction (etcd's default `--max-txn-ops` is 128).
const TXN_OPS_MAX: usize = 120;

pub struct Master {
    pub config: MasterConfig,
    pub coord: Arc<dyn Coordinator>,
    pub fs: Arc<dyn FileSystem>,
    /// This master's `host:port`.
    pub address: String,
    pub cluster_id: Mutex<String>,
    /// The guard of this master's writes while it is active.
    guard: Mutex<Option<Compare>>,
    active: AtomicBool,
    /// Whether this master's lease is before its local deadline (see
    /// [`Master::set_lease_gate`]); none: always.
    lease_gate: Mutex<Option<LeaseGate>>,
    /// Dead servers whose whole log their next incarnation read before it started (one
    /// process holding the data folder's lock): certainly dead, so not sealed.
    pub logs_taken_over: Mutex<std::collections::BTreeSet<String>>,
    /// Opens whose server could not be reached, to drive again (see [`crate::reopen`]).
    pub unreachable_opens: Mutex<crate::reopen::Unreachable>,
    /// Dead servers whose log this master split (or tried to) per region.
    pub logs_split: Mutex<std::collections::BTreeSet<String>>,
    pub catalog: RwLock<Catalog>,
    pub servers: Arc<Servers>,
    /// The calls that open and close regions on region servers (gRPC, or simulated).
    pub hosts: Arc<dyn RegionHosts>,
    /// The wall clock region ids are read from.
    wall_clock: WallClock,
    /// One catalog procedure at a time (DDL, moves, splits, balancing).
    pub procedures: tokio::sync::Mutex<()>,
    pub balancer_on: AtomicBool,
    /// Set from activation until the procedures the previous master left are resumed:
    /// table DDL waits for it (see [`crate::table_steps`]).
    pub resuming: AtomicBool,
    /// Regions moving now: encoded name → what is happening, where, since when.
    pub in_transition: Mutex<BTreeMap<String, Transition>>,
    /// Crash recoveries running and recently finished.
    pub recoveries: Mutex<Recoveries>,
    last_region_id: Mutex<u64>,
    pub runtime: tokio::runtime::Handle,
    /// Wakes whoever waits on [`Master::changed`].
    changes: tokio::sync::Notify,
    /// Where this master serves HBase's native RPC and ZooKeeper responder, once started
    /// ([`crate::native`]).
    pub native_addresses: Mutex<Option<crate::native::Addresses>>,
    /// Each region's writes at the previous split check and its hot streak, for
    /// load-based splits ([`crate::split_check`]).
    pub load_split: Mutex<basalt_api::load_split::LoadSplitTracker>,
    /// The grants (see [`crate::acl`]), read at activation.
    pub grants: Mutex<basalt_api::Grants>,
}

/// Runs blocking work (store calls) off the async workers on a multi-thread runtime; in
/// place on a single-threaded one (a simulation, where another thread would make the
/// order of events depend on the machine).
pub async fn off_workers<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> std::result::Result<T, tokio::task::JoinError> {
    let multi_thread = tokio::runtime::Handle::try_current()
        .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
    match multi_thread {
        true => tokio::task::spawn_blocking(work).await,
        false => Ok(work()),
    }
}

/// Whether a lease is still before its local deadline.
pub type LeaseGate = Arc<dyn Fn() -> bool + Send + Sync>;

impl std::fmt::Debug for Master {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Master")
            .field("address", &self.address)
            .finish()
    }
}

impl Master {
    pub fn new(
        config: MasterConfig,
        coord: Arc<dyn Coordinator>,
        fs: Arc<dyn FileSystem>,
        address: String,
        runtime: tokio::runtime::Handle,
    ) -> Arc<Self> {
        Self::with_surroundings(config, coord, fs, address, runtime, Surroundings::default())
    }

    /// As [`Master::new`], calling region servers and reading the wall clock through
    /// `surroundings` (a simulation's).
    pub fn with_surroundings(
        config: MasterConfig,
        coord: Arc<dyn Coordinator>,
        fs: Arc<dyn FileSystem>,
        address: String,
        runtime: tokio::runtime::Handle,
        surroundings: Surroundings,
    ) -> Arc<Self> {
        Arc::new(Self {
            config,
            coord,
            fs,
            address,
            cluster_id: Mutex::new(String::new()),
            guard: Mutex::new(None),
            active: AtomicBool::new(false),
            lease_gate: Mutex::new(None),
            logs_taken_over: Mutex::new(std::collections::BTreeSet::new()),
            unreachable_opens: Mutex::default(),
            logs_split: Mutex::default(),
            catalog: RwLock::new(Catalog::default()),
            servers: Arc::default(),
            hosts: surroundings.hosts,
            wall_clock: surroundings.wall_clock,
            procedures: tokio::sync::Mutex::new(()),
            balancer_on: AtomicBool::new(true),
            resuming: AtomicBool::new(false),
            in_transition: Mutex::new(BTreeMap::new()),
            recoveries: Mutex::new(Recoveries::default()),
            last_region_id: Mutex::new(0),
            runtime,
            changes: tokio::sync::Notify::new(),
            native_addresses: Mutex::new(None),
            load_split: Mutex::default(),
            grants: Mutex::default(),
        })
    }

    /// Active, and its lease before its local deadline: a master paused past its lease
    /// (whose successor may be active already) acts on nothing when it wakes, not even
    /// the requests waiting in its sockets, before it hears that it lost the election.
    pub fn is_active(&self) -> bool {
        self.active.load(Ordering::Acquire)
            && self.lease_gate.lock().as_ref().is_none_or(|live| live())
    }

    /// Ties [`Master::is_active`] to the lease's local deadline (`live`), as region
    /// servers tie their answers to theirs.
    pub fn set_lease_gate(&self, live: LeaseGate) {
        *self.lease_gate.lock() = Some(live);
    }

    /// Becomes the active master: writes from now on carry `guard`.
    pub fn activate(&self, guard: Compare, catalog: Catalog) {
        *self.catalog.write() = catalog;
        *self.guard.lock() = Some(guard);
        self.active.store(true, Ordering::Release);
        self.note_change();
    }

    /// Tells waiters on [`Master::changed`] that the master's state moved: it became
    /// active, a region server came or went, a region's transition ended.
    pub fn note_change(&self) {
        self.changes.notify_waiters();
    }

    /// Waits until `done(self)` holds, checking again on every [`Master::note_change`]
    /// (and every `recheck` besides, for changes nobody announced), for at most `limit`.
    /// Whether it held.
    pub async fn changed(
        &self,
        done: impl Fn(&Self) -> bool,
        recheck: std::time::Duration,
        limit: std::time::Duration,
    ) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let notified = self.changes.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if done(self) {
                return true;
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return false;
            }
            let _ = tokio::time::timeout(recheck.min(deadline - now), notified).await;
        }
    }

    pub fn stand_down(&self, why: &str) {
        if self.active.swap(false, Ordering::AcqRel) {
            match why {
                "shutting down" => tracing::info!("standing down: shutting down"),
                _ => tracing::error!(reason = why, "standing down: no longer the active master"),
            }
        }
        *self.guard.lock() = None;
    }

    /// Fails unless this master is the active one (naming the active one if known).
    pub fn require_active(&self) -> Result<()> {
        if self.is_active() {
            return Ok(());
        }
        Err(error::not_active(None))
    }

    /// Commits `ops` under the leader's guard (in several transactions past etcd's limit
    /// per transaction). A failed guard means another master is active: stand down.
    pub async fn commit(&self, ops: Vec<Op>) -> Result<()> {
        if ops.is_empty() {
            return Ok(());
        }
        let guard = self
            .guard
            .lock()
            .clone()
            .ok_or_else(|| error::not_active(None))?;
        for chunk in ops.chunks(TXN_OPS_MAX) {
            let txn = Txn {
                compares: vec![guard.clone()],
                success: chunk.to_vec(),
                failure: vec![],
            };
            let result = self
                .coord
                .txn(txn)
                .await
                .map_err(|e| error::coordinator(&e))?;
            if !result.succeeded {
                self.stand_down("a catalog write found another master's election key");
                return Err(error::not_active(None));
            }
        }
        Ok(())
    }

    /// Commits `body` then `tail`, `tail` in the last transaction (with `body` when both
    /// fit in one): whoever finds `tail` applied knows `body` was too. A procedure puts its
    /// record's commit mark in `tail`.
    pub async fn commit_with_tail(&self, mut body: Vec<Op>, tail: Vec<Op>) -> Result<()> {
        if body.len() + tail.len() <= TXN_OPS_MAX {
            body.extend(tail);
            return self.commit(body).await;
        }
        self.commit(body).await?;
        self.commit(tail).await
    }

    /// The wall clock, in ms since the epoch.
    pub fn now_ms(&self) -> i64 {
        (self.wall_clock)() as i64
    }

    /// A fresh region id: the time in ms, above every id handed out before.
    pub fn next_region_id(&self) -> u64 {
        let mut last = self.last_region_id.lock();
        let now = (self.wall_clock)();
        *last = now.max(*last + 1);
        *last
    }

    /// Region `encoded` enters `state` (CRASHED, OPENING, CLOSING, SPLITTING) on `server`:
    /// in transition from now, or still from when it began if it already was (a crashed
    /// region its open finally places, an open driven again), see
    /// [`crate::rit::Transition::next`].
    pub fn begin_transition(&self, encoded: &str, state: &str, server: &str) {
        let mut rit = self.in_transition.lock();
        let transition = Transition::next(rit.get(encoded), state, server);
        rit.insert(encoded.to_string(), transition);
        drop(rit);
        self.note_change();
    }

    /// Region `encoded`'s transition ended (done, failed or given up).
    pub fn end_transition(&self, encoded: &str) {
        self.in_transition.lock().remove(encoded);
        self.note_change();
    }

    /// The transitions of `regions` end: the catalog forgot them (a dropped or truncated
    /// table) or nothing is to happen to them (a disabled table's crashed regions).
    pub fn end_transitions<'a>(&self, regions: impl IntoIterator<Item = &'a String>) {
        let mut rit = self.in_transition.lock();
        for encoded in regions {
            rit.remove(encoded);
        }
        drop(rit);
        self.note_change();
    }

    /// The folder of a table's regions on the shared store.
    pub fn table_dir(&self, table: &basalt_types::TableName) -> std::path::PathBuf {
        self.config
            .store_root
            .join("data")
            .join(table.namespace())
            .join(table.qualifier())
    }

    /// Removes a folder the catalog no longer names (a dropped table, a truncated or
    /// cleaned region): explicit and logged.
    pub fn remove_folder(&self, dir: &std::path::Path) -> Result<()> {
        tracing::info!(folder = %dir.display(), "deleting a folder the catalog no longer names");
        match self.fs.remove_dir_all(dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(error::io(format!("cannot remove {}: {e}", dir.display())))
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_coord::local::LocalCoordinator;
    use basalt_coord::{election, layout};
    use std::time::Duration;

    fn master(coord: &Arc<LocalCoordinator>, address: &str) -> Arc<Master> {
        Master::new(
            MasterConfig::default(),
            coord.clone(),
            Arc::new(basalt_storage::fs::LocalFs),
            address.to_string(),
            tokio::runtime::Handle::current(),
        )
    }

    /// Campaigns under a fresh lease and activates `master` with its guard; the lease.
    async fn elect(coord: &Arc<LocalCoordinator>, master: &Master) -> i64 {
        let lease = coord
            .grant_lease(Duration::from_secs(60))
            .await
            .expect("lease");
        let won = election::campaign(
            coord.as_ref(),
            layout::MASTER_ELECTION,
            master.address.as_bytes(),
            lease,
        )
        .await
        .expect("campaign");
        master.activate(won.guard(), Catalog::default());
        lease
    }

    /// The case of a master paused past its lease: it still believes it is active when it
    /// wakes, and its first catalog write must fail on the guard, not land.
    #[tokio::test]
    async fn a_deposed_master_that_still_believes_it_is_active_commits_nothing() {
        let coord = Arc::new(LocalCoordinator::new());
        let old = master(&coord, "m1:16000");
        let lease = elect(&coord, &old).await;
        old.commit(vec![Op::put("tables/before", "x")])
            .await
            .expect("the active master writes");
        // Its lease goes (its election key with it) and another master is elected.
        coord.revoke_lease(lease).await.expect("revoke");
        let new = master(&coord, "m2:16000");
        elect(&coord, &new).await;
        assert!(old.is_active(), "nothing told the old master yet");
        let refused = old
            .commit(vec![Op::put("tables/stale", "x")])
            .await
            .expect_err("the old master's write fails on its guard");
        assert_eq!(
            refused.kind,
            basalt_api::ErrorKind::RetryElsewhere,
            "{refused}"
        );
        assert!(!old.is_active(), "it stood down");
        assert!(coord.get(b"tables/stale").await.expect("get").is_none());
        // And it writes nothing more (no guard left); the new master does.
        assert!(old
            .commit(vec![Op::put("tables/stale", "x")])
            .await
            .is_err());
        new.commit(vec![Op::put("tables/during", "x")])
            .await
            .expect("the new master writes");
        assert!(coord.get(b"tables/stale").await.expect("get").is_none());
    }
}
