//! HBase's native protocol over any [`basalt_api::Connection`]: HBase's own clients (the
//! Java `hbase-client`, and the native clients written for other languages, such as
//! Python's `hbase-driver`) connect to Basalt changing nothing but their ZooKeeper quorum.
//!
//! A native client finds the cluster in ZooKeeper (`/hbase/master`,
//! `/hbase/meta-region-server`), reads `hbase:meta` to learn which server holds which
//! region, and then talks protobuf RPC to masters (`MasterService`: DDL) and region
//! servers (`ClientService`: Get, Mutate, Scan, Multi; `AdminService`: region info). HBase
//! 2.5+ clients may ask `ClientMetaService` instead of ZooKeeper. In standalone this crate
//! answers all of it from one process; in a cluster each process answers its part
//! ([`topology`]: a region server its own regions, the active master DDL, the registry,
//! `hbase:meta` and ZooKeeper), the same services behind a [`Roles`] and a [`Topology`]:
//!
//! - one RPC port serves every service a server has: the connection header names the
//!   service, so standalone's master and region server are the same address (HBase's
//!   region server port, 16020, by default);
//! - `hbase:meta` is not stored: it is synthesized, as HBase 2.x lays it out, from the
//!   connection's tables and regions each time a client reads it ([`meta`]) — in a
//!   cluster on the active master, from its catalog, naming each region's region server;
//! - a small read-only ZooKeeper responder ([`zookeeper`]) publishes the znodes clients
//!   read, so `basalt standalone` needs no ZooKeeper running beside it.
//!
//! Every length on the wire is checked against a limit before anything is allocated
//! ([`wire::Limits`]); malformed bytes close that one connection with a log line and harm
//! no other. Calls run on a bounded pool of worker threads, because the
//! [`basalt_api::Connection`] calls block.
//!
//! It is SIMPLE authentication only (no SASL, no Kerberos). Cells travel as HBase's region
//! servers send them: a client that names a cell-block codec in its connection header
//! (`KeyValueCodec`, as the Java client does by default; no compressor) sends and gets
//! result cells in cell blocks after the messages ([`service::results`]); a client that
//! names none gets them inline in the protobuf answers. A connection's calls run
//! concurrently and are answered as they finish, as HBase's are (clients match answers
//! by call id).
//!
//! # Layout
//! - [`pb`]: the prost messages, compiled from Basalt's own `proto/hbase/*.proto`.
//! - [`wire`]: the pure codec: preamble, connection header, call frames, answers, limits.
//! - [`client`]: a minimal blocking RPC client for tests, benchmarks and tools.
//! - [`cellblock`]: cell blocks in `KeyValueCodec`'s layout, both ways.
//! - [`error`]: [`RpcError`], an HBase exception by class name, and the crate's errors.
//! - [`service`]: the services: `ClientService` (get, mutate, scan, multi),
//!   `MasterService` (DDL, cluster status), `AdminService` (region info) and
//!   `ClientMetaService` (the registry), with the conversions to and from `basalt_types`.
//! - [`meta`]: `hbase:meta` synthesized from the connection's regions.
//! - [`server`]: the runtime, the listener (`basalt_net`'s), shutdown.
//! - [`topology`]: the seam to a cluster: the services a server answers ([`Roles`]) and
//!   where regions, the master and `hbase:meta` are ([`Topology`]).
//! - [`connection`]: one connection as a task: preface, concurrent calls, answers.
//! - [`zookeeper`]: the read-only ZooKeeper responder for discovery.
//! - [`config`]: the settings, [`HbaseConfig`].

pub mod cellblock;
pub mod client;
pub mod config;
pub mod connection;
pub mod error;
pub mod meta;
pub mod pb;
pub mod server;
pub mod service;
pub mod topology;
pub mod wire;
pub mod zookeeper;

pub use config::HbaseConfig;
pub use error::{HbaseError, RpcError};
pub use server::{start, start_with, HbaseServer, Parts};
pub use topology::{Roles, Topology};
