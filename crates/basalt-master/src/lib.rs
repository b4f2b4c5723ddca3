//! The master of a Basalt cluster: the catalog, DDL, assignment, balancing.
//!
//! Several masters may run; one is active, elected through the coordinator, the others
//! stand by and answer where the active one is. The active master owns the catalog (kept
//! in the coordinator, changed only by transactions guarded by its election key), decides
//! where every region opens (the pure [`planner`]), and carries it out by calling the
//! region servers. No data moves through it: clients ask it where regions are
//! ([`basalt_api::Admin::locate_region`]) and go to the region servers.
//!
//! # Layout
//! - [`acl`]: the grants (HBase's `hbase:acl`) in the coordinator.
//! - [`config`]: the settings ([`MasterConfig`]).
//! - [`master`]: the state, and catalog writes under the leader's guard.
//! - [`catalog`]: the catalog in memory and its coordinator encoding.
//! - [`planner`]: where regions go (assignment, balancing, draining), decisions as data.
//! - [`assignment`]: opening, closing and moving regions; balancing; draining.
//! - [`ddl`]: namespaces and tables.
//! - [`dead_logs`]: a dead server's log archived once every region it held reopened.
//! - [`dead_servers`]: `clear_deadservers`, refused while a crash recovery runs.
//! - [`decommission`]: decommissioned servers (no region goes there), kept in the
//!   coordinator.
//! - [`rit`]: regions in transition, the stuck ones and the warnings about them.
//! - [`recoveries`]: crash recoveries running and finished, with their durations.
//! - [`recovered_flush`]: regions serving recovered edits not flushed yet; their logs released once flushed.
//! - [`reopen`]: opens that never reached their server, driven again.
//! - [`log_split`]: a dead server's sealed log split per region before its regions reopen.
//! - [`regions`]: locations, reports, flushes, compactions, splits, merges.
//! - [`procs`]: splits and merges recorded as procedures, resumed by the next master
//!   (with the table procedures, whose records it finds beside them).
//! - [`table_procs`]: create, delete, truncate and modify table and restore snapshot as
//!   recorded procedures (HBase's `CreateTableProcedure`, …): the record and which way a
//!   new master takes it.
//! - [`table_steps`]: their idempotent steps, run by the DDL call and by a new master.
//! - [`seal`]: a dead server's log sealed before any region replays it.
//! - [`janitor`]: split and merged parents removed once nothing refers to them.
//! - [`servers`]: the live region servers and channels to them.
//! - [`liveness`]: a server whose port refuses connections is dead at once, not at its
//!   lease's expiry.
//! - [`hosts`]: the seam assignment calls region servers through ([`hosts::RegionHosts`]:
//!   gRPC, or a simulation's servers), and the wall clock region ids come from.
//! - [`slowlog`]: the region servers' slow logs, gathered and cleared.
//! - [`admin`], [`connection`], [`service`]: what the master serves.
//! - [`native`]: HBase's native protocol (`--hbase-port`): `MasterService`, the registry,
//!   `hbase:meta` synthesized from the catalog alone with each region's native address, and
//!   the ZooKeeper responder naming the active master and the live region servers;
//!   [`native::active`]: each master's native address in the coordinator, which a standby
//!   reads to name the active master.
//! - [`split_check`]: automatic splits of regions past their size, and of load-split
//!   tables' regions that stayed hot, at their load median (and, on the same tick, the
//!   cleaner of expired snapshots).
//! - [`snapshots`]: snapshots, clones and restores coordinated by the master: servers
//!   flush, the master links the committed files and writes the manifest.
//! - [`store_info`]: namespaces and retired regions described on the store (for
//!   `basalt hbck rebuild-meta`).
//! - [`rebuild`]: the catalog rebuilt from the store alone (`basalt hbck rebuild-meta`):
//!   reading the store, the pure plan, and writing it into the coordinator.
//! - [`status`]: `status` and cluster information.
//! - [`unknown_folders`]: region folders the catalog does not name, set aside at activation.
//! - [`run`]: election, reconciliation, the server watch and the balancer loop.
//! - [`error`]: HBase's exceptions.
//! - `src/bin/planner-timing.rs`: the [`planner`]'s wall time at up to 100,000 regions
//!   and 1,000 servers (`cargo run --release -p basalt-master --bin planner-timing`).

pub mod acl;
pub mod admin;
pub mod assignment;
pub mod catalog;
pub mod config;
pub mod connection;
pub mod ddl;
pub mod dead_logs;
pub mod dead_servers;
pub mod decommission;
pub mod error;
pub mod hosts;
pub mod janitor;
pub mod liveness;
pub mod log_split;
pub mod master;
pub mod native;
pub mod planner;
pub mod procs;
pub mod rebuild;
pub mod recovered_flush;
pub mod recoveries;
pub mod regions;
pub mod reopen;
pub mod rit;
pub mod run;
pub mod seal;
pub mod servers;
pub mod service;
pub mod slowlog;
pub mod snapshots;
pub mod split_check;
pub mod status;
pub mod store_info;
pub mod table_procs;
pub mod table_steps;
pub mod unknown_folders;

pub use config::MasterConfig;
pub use master::Master;

/// The cluster protocol this build speaks; region servers of another are refused.
pub const PROTOCOL: u32 = 1;
