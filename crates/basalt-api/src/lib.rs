//! What a program talks to: a [`Connection`] hands out [`Table`]s and an [`Admin`].
//!
//! The embedded database (`basalt-db`) and the network client implement these traits, so
//! code written against an embedded connection runs unchanged against a server. The calls
//! are blocking, like HBase's `Table` and `Admin`.
//!
//! # Layout
//! - [`acl`]: grants as data: permissions, scopes, a user's permissions at a scope.
//! - [`error`]: [`ApiError`], with a small [`ErrorKind`] saying what to do and HBase's
//!   exception name.
//! - [`table`]: data operations on one table.
//! - [`scanner`]: a scan's rows, one at a time or an answer of many (what a server sends in
//!   one response, and checks and counts once).
//! - [`admin`]: namespaces, tables, regions and maintenance.
//! - [`buffered`]: a client-side write buffer over any table.
//! - [`hotspot`]: which regions are hot or idle and why, a pure decision over their writes.
//! - [`load_split`]: whether a region that stays hot splits, and at which key (its load
//!   median), a pure decision over its counters at each split check.
//! - [`keydist`]: a table's row keys sampled, their first bytes, suggested split points.
//! - [`principal`]: who is asking: the user a call runs as, and how it was established.
//! - [`slowlog`]: slow log records and the queries that select them.
//! - [`snapshot`]: snapshots: their description, how one is taken, HBase's exceptions.

pub mod acl;
pub mod admin;
pub mod buffered;
pub mod error;
pub mod hotspot;
pub mod keydist;
pub mod load_split;
pub mod principal;
pub mod scanner;
pub mod slowlog;
pub mod snapshot;
pub mod table;

pub use acl::{Actions, Grants, Permission, PermissionQuery, Scope, UserPermission};
pub use admin::{
    cluster_only, needs_cluster, server_host_port, Admin, ClearedDeadServers, ClusterHealth,
    ClusterStatus, FailedRegion, Inconsistency, InconsistencyKind, PreSplit, QuarantinedItem,
    RegionLocation, RegionReport, RegionState, ServerStatus,
};
pub use buffered::BufferedMutator;
pub use error::{ApiError, ErrorKind, Result};
pub use principal::{AuthMethod, Principal};
pub use scanner::{take_answer, Rows};
pub use slowlog::{SlowLogQuery, SlowLogRecord};
pub use snapshot::{SnapshotDescription, SnapshotOptions};
pub use table::{CheckAndMutateResult, OpenedScan, ResultScanner, Table};

use basalt_types::TableName;
use std::sync::Arc;

/// A connection to a Basalt database, embedded or remote.
pub trait Connection: Send + Sync {
    /// A handle on `name`; fails when the table does not exist.
    fn table(&self, name: &TableName) -> Result<Arc<dyn Table>>;
    fn admin(&self) -> Arc<dyn Admin>;
}
