//! A region server: serves the regions its cluster's master assigns it.
//!
//! Its files are the cluster's: regions live in the shared store's `data/` folder, where
//! any server can open them, and its write-ahead log in the store's
//! `wal/<host,port,startcode>/`, where whoever takes its regions can read it. It holds no
//! catalog: the master tells it which regions to open and close ([`service`]), and a
//! request for any other region answers `NotServingRegionException`.
//!
//! Life: open the store, register `servers/<name>` in the coordinator under a lease
//! (refused while another live server has the same address), serve; on SIGTERM ask the
//! master to move its regions away, close what is left, end the lease.
//!
//! # Layout
//! - [`config`]: the settings ([`RegionServerConfig`]).
//! - [`name`]: the server name `host,port,startcode`.
//! - [`service`]: `RegionServerService`, the master's calls.
//! - [`grants`]: the grants calls are checked against, followed from the coordinator.
//! - [`native`]: HBase's native protocol for the regions open here (`--hbase-port`),
//!   registered beside the gRPC address.
//! - [`report`]: what the server tells the master about its regions and load.
//! - [`rate`]: requests per second over whole windows, as HBase computes them.
//! - [`run`]: start, register, serve, stop.

pub mod config;
pub mod grants;
pub mod name;
pub mod native;
pub mod rate;
pub mod report;
pub mod run;
pub mod service;

pub use config::RegionServerConfig;
pub use name::ServerName;
