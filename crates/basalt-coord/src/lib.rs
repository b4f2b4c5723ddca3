//! The coordinator: the small, strongly consistent store a cluster agrees through.
//!
//! Basalt does no consensus of its own. Everything a cluster must agree on (which master is
//! active, which region servers live, the catalog, who owns a region) is a key in a
//! [`Coordinator`]: etcd in a cluster, [`LocalCoordinator`] in one process (standalone and
//! tests). Both give the same guarantees a caller relies on:
//! - every change bumps one global **revision**; a key remembers the revision that created
//!   it and the one that last changed it, so a revision is a fencing token;
//! - a [`Txn`] applies its success or failure operations atomically, after checking all
//!   its [`Compare`]s at once;
//! - a key put under a **lease** disappears when the lease is not kept alive (expiry at
//!   the coordinator is a *lower bound*: a holder's own deadline, [`LeaseKeeper`], is the
//!   safe side);
//! - a **watch** delivers every change under a prefix from a revision, in order; a watch
//!   that breaks ends with an error and the caller lists again.
//!
//! All keys a caller passes are relative to the coordinator's prefix (one per cluster).
//!
//! # Layout
//! - this file: the trait and its plain-data requests and answers.
//! - `local`: [`LocalCoordinator`], in process, in memory or durable in a folder.
//! - `etcd`: [`EtcdCoordinator`], etcd's v3 gRPC API.
//! - `election`: one leader among candidates, on leases and create revisions.
//! - `keeper`: [`LeaseKeeper`], a lease kept alive with a local deadline.
//! - `boot_clock`: [`boot_clock::BootInstant`], the clock those deadlines are on (it counts
//!   suspended time).
//! - `testing` (feature `testing`): `testing::EtcdCluster`, a real 3-member etcd.

pub mod boot_clock;
pub mod election;
pub mod etcd;
pub mod keeper;
pub mod local;
#[cfg(feature = "testing")]
pub mod testing;

pub use election::{campaign, leader, Leadership};
pub use etcd::EtcdCoordinator;
pub use keeper::{LeaseKeeper, LeaseState};
pub use local::{DurableOptions, LocalCoordinator};

pub mod layout;

use std::fmt::Debug;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

pub type Result<T> = std::result::Result<T, CoordError>;

/// What went wrong talking to the coordinator.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum CoordError {
    /// No endpoint answered (names them and the cause).
    #[error("the coordinator is unreachable: {0}")]
    Unavailable(String),
    /// The lease is gone (expired or revoked).
    #[error("lease {0:x} is gone (expired or revoked)")]
    LeaseGone(i64),
    /// A watch's start revision was compacted away: list again.
    #[error("revision {requested} was compacted (oldest kept: {compacted})")]
    Compacted { requested: i64, compacted: i64 },
    /// The coordinator refused the request (too large, quota exceeded, bad argument).
    #[error("the coordinator refused the request: {0}")]
    Refused(String),
    /// The in-process coordinator's folder holds bytes it cannot read (names the file,
    /// the offset and the cause); it refuses to open rather than lose a committed change.
    #[error("{file} is damaged at offset {offset}: {cause}")]
    Damaged {
        file: String,
        offset: u64,
        cause: String,
    },
    /// The in-process coordinator's folder cannot be used: an I/O error, a folder in use
    /// by another process, a newer format.
    #[error("{0}")]
    Storage(String),
}

/// A boxed future, so that the trait stays object safe.
pub type CoordFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>;

/// One stored key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyValue {
    pub key: Vec<u8>,
    pub value: Vec<u8>,
    /// The revision that created the key (0 for a key that does not exist, in compares).
    pub create_revision: i64,
    /// The revision of its last change.
    pub mod_revision: i64,
    /// Changes since it was created (1 after the create).
    pub version: i64,
    /// The lease it lives under, 0 for none.
    pub lease: i64,
}

/// What a [`Compare`] looks at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Version(i64),
    CreateRevision(i64),
    ModRevision(i64),
    Value(Vec<u8>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    Equal,
    NotEqual,
    Less,
    Greater,
}

/// One condition of a transaction. A missing key has version, create and mod revision 0
/// (so `Version(0) Equal` means "absent"); a value compare on a missing key fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compare {
    pub key: Vec<u8>,
    pub op: CompareOp,
    pub target: Target,
}

impl Compare {
    pub fn absent(key: impl Into<Vec<u8>>) -> Self {
        Self {
            key: key.into(),
            op: CompareOp::Equal,
            target: Target::Version(0),
        }
    }
    pub fn mod_revision(key: impl Into<Vec<u8>>, revision: i64) -> Self {
        Self {
            key: key.into(),
            op: CompareOp::Equal,
            target: Target::ModRevision(revision),
        }
    }
    pub fn create_revision(key: impl Into<Vec<u8>>, revision: i64) -> Self {
        Self {
            key: key.into(),
            op: CompareOp::Equal,
            target: Target::CreateRevision(revision),
        }
    }
    pub fn value(key: impl Into<Vec<u8>>, value: impl Into<Vec<u8>>) -> Self {
        Self {
            key: key.into(),
            op: CompareOp::Equal,
            target: Target::Value(value.into()),
        }
    }
}

/// One change of a transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Sets a key; under a lease when `lease` is not 0.
    Put {
        key: Vec<u8>,
        value: Vec<u8>,
        lease: i64,
    },
    Delete {
        key: Vec<u8>,
    },
    /// Deletes every key starting with `prefix`.
    DeletePrefix {
        prefix: Vec<u8>,
    },
}

impl Op {
    pub fn put(key: impl Into<Vec<u8>>, value: impl Into<Vec<u8>>) -> Self {
        Op::Put {
            key: key.into(),
            value: value.into(),
            lease: 0,
        }
    }
    pub fn delete(key: impl Into<Vec<u8>>) -> Self {
        Op::Delete { key: key.into() }
    }
}

/// Compares checked together; `success` applied when all hold, `failure` otherwise.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Txn {
    pub compares: Vec<Compare>,
    pub success: Vec<Op>,
    pub failure: Vec<Op>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxnResult {
    pub succeeded: bool,
    /// The store's revision after the transaction.
    pub revision: i64,
}

/// Keys under a prefix at one revision.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    pub kvs: Vec<KeyValue>,
    pub revision: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    Put,
    Delete,
}

/// One change seen by a watch. For a delete, `kv` holds the key and the deleting revision
/// as `mod_revision`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchEvent {
    pub kind: EventKind,
    pub kv: KeyValue,
}

/// Changes under a prefix, in revision order. Ends with an `Err` (or closes) when the
/// watch breaks: the caller lists again.
pub type WatchStream = tokio::sync::mpsc::Receiver<Result<WatchEvent>>;

/// The coordinator's operations (etcd's v3 API, trimmed to what Basalt needs).
pub trait Coordinator: Send + Sync + Debug {
    fn get(&self, key: &[u8]) -> CoordFuture<'_, Option<KeyValue>>;
    /// Every key starting with `prefix`, sorted by key, and the revision they were read at.
    fn list(&self, prefix: &[u8]) -> CoordFuture<'_, Listing>;
    /// `Unavailable` from a transaction does not say whether it was applied (the answer
    /// may be what was lost): a caller reads back, and its compares make a retry safe.
    fn txn(&self, txn: Txn) -> CoordFuture<'_, TxnResult>;
    /// A new lease of `ttl` (whole seconds, at least 1), its id.
    fn grant_lease(&self, ttl: Duration) -> CoordFuture<'_, i64>;
    /// Renews a lease once; its TTL as the coordinator now counts it. `LeaseGone` when it
    /// expired or was revoked.
    fn keep_alive(&self, lease: i64) -> CoordFuture<'_, Duration>;
    /// Ends a lease now, deleting its keys.
    fn revoke_lease(&self, lease: i64) -> CoordFuture<'_, ()>;
    /// Changes under `prefix` after revision `after` (every change with a higher revision).
    /// When the coordinator no longer keeps the history from `after + 1`, the stream's first
    /// item is `Err(Compacted)` (and it ends): list again and watch from the listing.
    fn watch(&self, prefix: &[u8], after: i64) -> CoordFuture<'_, WatchStream>;
    /// What this coordinator is, for logs and errors ("etcd 127.0.0.1:2379,…", "local").
    fn describe(&self) -> String;
}
