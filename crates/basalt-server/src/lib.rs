//! Basalt's gRPC server: serves any [`basalt_api::Connection`] — in standalone mode the
//! embedded database — through `TableService` and `AdminService` (see `basalt-proto`).
//!
//! What it is not: a region server among many. Standalone mode hosts master and region
//! server in one process; routing, assignment and etcd come later, behind the same
//! services.
//!
//! Every limit is in [`ServerConfig`]: request size (refused before it is read), cells and
//! operations per request, calls at once (past it: "server busy", not a queue), connections
//! (in all and per client address; handshake timeout; keep-alive pings), scanners and their
//! leases, remembered nonces.
//!
//! # Layout
//! - [`config`]: [`ServerConfig`] and its defaults.
//! - [`server`]: [`start`] / [`ServerHandle`] on a tokio runtime, [`BackgroundServer`] on
//!   its own.
//! - [`standalone`]: open the database, serve it, shut down cleanly on a signal.
//! - [`listener`]: `basalt_net`'s listener for tonic: the HTTP/2 handshake as the proof.
//! - [`shared`]: state every handler shares; blocking work under the call limit.
//! - [`table_service`], [`admin_service`]: the RPC handlers, one file per family.
//! - [`scanners`]: open scanners with random ids and leases.
//! - [`nonce`]: recent increment/append nonces, so retries are not applied twice.
//! - [`error`]: [`ServerError`] and call statuses.

pub mod admin_service;
pub mod config;
pub mod error;
pub mod listener;
pub mod nonce;
pub mod scanners;
pub mod server;
pub mod shared;
pub mod standalone;
pub mod table_service;

pub use config::ServerConfig;
pub use error::ServerError;
pub use server::{start, start_with, BackgroundServer, ServerHandle};
pub use standalone::StandaloneConfig;
