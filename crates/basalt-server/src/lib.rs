//! Basalt's gRPC server: serves any [`basalt_api::Connection`] through `TableService` and
//! `AdminService` (see `basalt-proto`), plus the services a process adds — a master's
//! `MasterService`, a region server's `RegionServerService` — on the same listener.
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
//! - [`standalone`]: what standalone runs beside its servers ([`standalone::Sidecar`]), and
//!   the stop signal.
//! - [`listener`]: `basalt_net`'s listener for tonic: the HTTP/2 handshake as the proof.
//! - [`auth`]: authentication on connect, a layer in front of every service; it puts
//!   the authenticated principal where [`principal`] takes it.
//! - [`authorize`]: ACL checks on every call when the process switches them on
//!   ([`authorize::AclSlot`]).
//! - [`internal`]: who may call the master's and region servers' own services.
//! - [`users`]: `UserService`, users and tokens through a running master, and the first
//!   superuser made with the bootstrap token; [`users::rules`], who may manage whom.
//! - [`shared`]: state every handler shares; blocking work under the call limit.
//! - [`table_service`], [`admin_service`]: the RPC handlers, one file per family.
//! - [`principal`]: who each call runs as (authenticated, or asserted), for
//!   authorization.
//! - [`slowlog`]: the online slow log, a ring buffer of data calls past a threshold.
//! - [`scanners`]: open scanners with random ids and leases.
//! - [`nonce`]: recent increment/append nonces, so retries are not applied twice.
//! - [`error`]: [`ServerError`] and call statuses.

pub mod admin_service;
pub mod auth;
pub mod authorize;
pub mod config;
pub mod error;
pub mod internal;
pub mod listener;
pub mod nonce;
pub mod principal;
pub mod scanners;
pub mod server;
pub mod shared;
pub mod slowlog;
pub mod standalone;
pub mod table_service;
pub mod users;

pub use config::ServerConfig;
pub use error::ServerError;
pub use server::{bind, start, start_on, start_with, BackgroundServer, ServerHandle};
