//! Basalt's embedded database: tables, namespaces and regions on the region engine, with
//! the catalog in `hbase:meta`.
//!
//! Open a folder with [`Database::open`], then use [`EmbeddedConnection`] like any
//! [`basalt_api::Connection`]: the same `Table` and `Admin` calls work against a server.
//! Tables are cut into regions by row key; every operation is routed to the region
//! holding its row, scans cross regions in both directions, and regions split as they grow.
//!
//! # Layout
//! - [`database`]: opening and closing; [`recovery`]: start-up, catalog first, then
//!   clean-up that moves aside and never deletes.
//! - [`acl`]: the grants (HBase's `hbase:acl`), in `DATA/acl.grants`.
//! - [`health`]: regions that failed to open (FAILED_OPEN), the quarantine, catalog
//!   disagreements; [`hbck`]: `basalt hbck`'s checks and fixes on a data folder.
//! - [`connection`], [`table`], [`scanner`], [`admin`]: the API implemented in process.
//! - [`bulk_load`]: rows in order written straight into store files, adopted at once;
//!   its `writers`: the pool of threads writing one lane (region and family) each.
//! - [`split`]: automatic (by size, or by load for load-split tables) and requested splits,
//!   merges, and the janitor that cleans up after them.
//! - [`snapshot`]: snapshots, clones and restores: a table's files at one point, kept as
//!   links (nothing copied, nothing lost while a snapshot or clone names it); the cleaner of
//!   expired snapshots.
//! - [`meta`]: `hbase:meta`, the catalog as a table.
//! - [`catalog`]: the catalog in memory, and routing.
//! - [`host`]: a region server's database: only the regions the master opened here.
//! - [`host_recovery`]: opening a dead server's region here, its edits read from that
//!   server's log first.
//! - [`lease_gate`]: a region server answers only while its coordinator lease is live.
//! - [`lock`]: one process per data folder.
//! - [`metrics`]: request counts and latency histograms.
//! - [`failpoint`]: named crash points for recovery tests.
//! - [`error`]: engine errors as API errors with HBase's exception names.

pub mod acl;
pub mod admin;
pub mod bulk_load;
pub mod catalog;
pub mod connection;
pub mod database;
pub mod error;
pub mod failpoint;
pub mod hbck;
pub mod health;
pub mod host;
pub mod host_recovery;
pub mod lease_gate;
pub mod lock;
pub mod meta;
pub mod metrics;
pub mod recovery;
pub mod scanner;
pub mod snapshot;
pub mod split;
pub mod table;

pub use basalt_storage::quarantine;
pub use connection::EmbeddedConnection;
pub use database::Database;

use basalt_storage::StorageConfig;

/// Settings of an embedded database.
#[derive(Debug, Clone, PartialEq)]
pub struct DbConfig {
    pub storage: StorageConfig,
    /// How often regions are checked for splitting and parents for cleaning.
    pub split_check_interval_ms: u64,
}

impl Default for DbConfig {
    fn default() -> Self {
        Self {
            storage: StorageConfig::default(),
            split_check_interval_ms: 1000,
        }
    }
}
