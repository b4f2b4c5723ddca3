//! The master's state and the primitive it builds every procedure from: a catalog change
//! committed to the coordinator under the leader's guard, then applied in memory.
//!
//! Only the active master writes. Every write is one transaction that also checks the
//! master still holds its election key (its create revision): a master that lost the
//! election without noticing fails its next write and stands down.

use crate::catalog::Catalog;
use crate::config::MasterConfig;
use crate::error;
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
    pub catalog: RwLock<Catalog>,
    pub servers: Servers,
    /// One catalog procedure at a time (DDL, moves, splits, balancing).
    pub procedures: tokio::sync::Mutex<()>,
    pub balancer_on: AtomicBool,
    /// Regions moving now: encoded name → what is happening, where, since when.
    pub in_transition: Mutex<BTreeMap<String, Transition>>,
    /// Crash recoveries running and recently finished.
    pub recoveries: Mutex<Recoveries>,
    last_region_id: Mutex<u64>,
    pub runtime: tokio::runtime::Handle,
    /// Wakes whoever waits on [`Master::changed`].
    changes: tokio::sync::Notify,
}

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
        Arc::new(Self {
            config,
            coord,
            fs,
            address,
            cluster_id: Mutex::new(String::new()),
            guard: Mutex::new(None),
            active: AtomicBool::new(false),
            catalog: RwLock::new(Catalog::default()),
            servers: Servers::default(),
            procedures: tokio::sync::Mutex::new(()),
            balancer_on: AtomicBool::new(true),
            in_transition: Mutex::new(BTreeMap::new()),
            recoveries: Mutex::new(Recoveries::default()),
            last_region_id: Mutex::new(0),
            runtime,
            changes: tokio::sync::Notify::new(),
        })
    }

    pub fn is_active(&self) -> bool {
        self.active.load(Ordering::Acquire)
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

    /// A fresh region id: the time in ms, above every id handed out before.
    pub fn next_region_id(&self) -> u64 {
        let mut last = self.last_region_id.lock();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(0))
            .unwrap_or(0);
        *last = now.max(*last + 1);
        *last
    }

    /// Region `encoded` enters `state` (OPENING, CLOSING, SPLITTING) on `server` now.
    pub fn begin_transition(&self, encoded: &str, state: &str, server: &str) {
        let transition = Transition::new(state, server);
        self.in_transition
            .lock()
            .insert(encoded.to_string(), transition);
        self.note_change();
    }

    /// Region `encoded`'s transition ended (done, failed or given up).
    pub fn end_transition(&self, encoded: &str) {
        self.in_transition.lock().remove(encoded);
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
