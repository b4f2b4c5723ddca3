//! [`Counting`]: a [`Coordinator`] that counts what passes through it, by who asks (the
//! masters or the region servers), so that a run reads as the load it puts on etcd:
//! transactions and their operations, bytes written, reads, keys listed, watch events
//! delivered, lease grants and keep-alives.
//!
//! Counts only; the answers are the inner coordinator's, unchanged, but a transaction
//! yields once before it answers, as a round trip to etcd lets other tasks run. Watch events are
//! counted as they are handed to the watcher (a task forwards them).

use basalt_coord::{CoordFuture, Coordinator, Op, Txn, TxnResult, WatchStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// What is counted, in the order [`Load`] holds them.
pub const METRICS: [&str; 13] = [
    "txns",
    "puts",
    "deletes",
    "put_bytes",
    "gets",
    "lists",
    "listed_keys",
    "listed_bytes",
    "watches",
    "watch_events",
    "watch_bytes",
    "lease_grants",
    "keep_alives",
];

#[derive(Debug, Clone, Copy)]
pub enum Metric {
    Txns,
    Puts,
    Deletes,
    PutBytes,
    Gets,
    Lists,
    ListedKeys,
    ListedBytes,
    Watches,
    WatchEvents,
    WatchBytes,
    LeaseGrants,
    KeepAlives,
}

/// Who asks the coordinator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Masters,
    Servers,
}

pub const ROLES: [Role; 2] = [Role::Masters, Role::Servers];

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Masters => "masters",
            Role::Servers => "servers",
        }
    }
}

/// Counts of one role.
#[derive(Debug, Default)]
pub struct Counters([AtomicU64; METRICS.len()]);

impl Counters {
    fn add(&self, metric: Metric, n: u64) {
        self.0[metric as usize].fetch_add(n, Ordering::Relaxed);
    }

    pub fn load(&self) -> Load {
        Load(std::array::from_fn(|i| self.0[i].load(Ordering::Relaxed)))
    }
}

/// A snapshot of counts (or the difference of two).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Load(pub [u64; METRICS.len()]);

impl Load {
    pub fn get(&self, metric: Metric) -> u64 {
        self.0[metric as usize]
    }

    pub fn minus(&self, earlier: &Load) -> Load {
        Load(std::array::from_fn(|i| {
            self.0[i].saturating_sub(earlier.0[i])
        }))
    }

    pub fn plus(&self, other: &Load) -> Load {
        Load(std::array::from_fn(|i| self.0[i] + other.0[i]))
    }

    /// Each count the larger of the two.
    pub fn max(&self, other: &Load) -> Load {
        Load(std::array::from_fn(|i| self.0[i].max(other.0[i])))
    }
}

/// The counters of every role.
#[derive(Debug, Default)]
pub struct Stats {
    masters: Counters,
    servers: Counters,
}

impl Stats {
    pub fn of(&self, role: Role) -> &Counters {
        match role {
            Role::Masters => &self.masters,
            Role::Servers => &self.servers,
        }
    }

    /// Both roles' counts now.
    pub fn load(&self) -> [Load; 2] {
        [self.masters.load(), self.servers.load()]
    }
}

/// The counting coordinator one role uses.
#[derive(Debug, Clone)]
pub struct Counting {
    inner: Arc<dyn Coordinator>,
    stats: Arc<Stats>,
    role: Role,
}

impl Counting {
    pub fn new(inner: Arc<dyn Coordinator>, stats: Arc<Stats>, role: Role) -> Self {
        Self { inner, stats, role }
    }

    fn add(&self, metric: Metric, n: u64) {
        self.stats.of(self.role).add(metric, n);
    }
}

fn len(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

impl Coordinator for Counting {
    fn get(&self, key: &[u8]) -> CoordFuture<'_, Option<basalt_coord::KeyValue>> {
        self.add(Metric::Gets, 1);
        self.inner.get(key)
    }

    fn list(&self, prefix: &[u8]) -> CoordFuture<'_, basalt_coord::Listing> {
        self.add(Metric::Lists, 1);
        let listing = self.inner.list(prefix);
        Box::pin(async move {
            let listing = listing.await?;
            self.add(Metric::ListedKeys, len(listing.kvs.len()));
            let bytes: usize = listing
                .kvs
                .iter()
                .map(|kv| kv.key.len() + kv.value.len())
                .sum();
            self.add(Metric::ListedBytes, len(bytes));
            Ok(listing)
        })
    }

    fn txn(&self, txn: Txn) -> CoordFuture<'_, TxnResult> {
        self.add(Metric::Txns, 1);
        let round_trip = tokio::task::yield_now();
        for op in txn.success.iter().chain(&txn.failure) {
            match op {
                Op::Put { key, value, .. } => {
                    self.add(Metric::Puts, 1);
                    self.add(Metric::PutBytes, len(key.len() + value.len()));
                }
                Op::Delete { .. } | Op::DeletePrefix { .. } => self.add(Metric::Deletes, 1),
            }
        }
        let applied = self.inner.txn(txn);
        Box::pin(async move {
            // A round trip: others run meanwhile (the in-process coordinator answers at
            // once, and a long run of transactions would starve its watchers).
            round_trip.await;
            applied.await
        })
    }

    fn grant_lease(&self, ttl: Duration) -> CoordFuture<'_, i64> {
        self.add(Metric::LeaseGrants, 1);
        self.inner.grant_lease(ttl)
    }

    fn keep_alive(&self, lease: i64) -> CoordFuture<'_, Duration> {
        self.add(Metric::KeepAlives, 1);
        self.inner.keep_alive(lease)
    }

    fn revoke_lease(&self, lease: i64) -> CoordFuture<'_, ()> {
        self.inner.revoke_lease(lease)
    }

    fn watch(&self, prefix: &[u8], after: i64) -> CoordFuture<'_, WatchStream> {
        self.add(Metric::Watches, 1);
        let inner = self.inner.watch(prefix, after);
        Box::pin(async move {
            let mut events = inner.await?;
            let (tx, rx) = tokio::sync::mpsc::channel(256);
            let stats = self.stats.clone();
            let role = self.role;
            tokio::spawn(async move {
                while let Some(event) = events.recv().await {
                    if let Ok(event) = &event {
                        let counters = stats.of(role);
                        counters.add(Metric::WatchEvents, 1);
                        counters.add(
                            Metric::WatchBytes,
                            len(event.kv.key.len() + event.kv.value.len()),
                        );
                    }
                    if tx.send(event).await.is_err() {
                        return;
                    }
                }
            });
            Ok(rx)
        })
    }

    fn describe(&self) -> String {
        format!("counting {}", self.inner.describe())
    }
}
