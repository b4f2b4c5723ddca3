//! Basalt's network client: [`RemoteConnection`] implements [`basalt_api::Connection`]
//! (and hands out `Table`s and an `Admin`) over gRPC, so code written against the embedded
//! connection runs unchanged against a server.
//!
//! The API is blocking, like the traits: each connection runs a small internal tokio
//! runtime; a call runs there while the calling thread waits. It works from any thread,
//! even inside another runtime (async callers should still prefer `spawn_blocking`, as
//! for any blocking call). Calls failing with a retryable kind — busy, unavailable, retry elsewhere —
//! are retried with exponential backoff. Increments and appends carry a nonce
//! (a random group per connection plus a counter) so the server applies a retried one
//! once. Scans stream from a server-side scanner, `caching` rows per round trip.
//! Single-row calls name the region their row lives in, from a cache of region locations;
//! a server that no longer holds that region for the row says so, and the client locates
//! the row again (see [`locations`]).
//!
//! ```no_run
//! use basalt_api::Connection;
//! use basalt_client::RemoteConnection;
//! use basalt_types::{Get, Put, TableName};
//!
//! let conn = RemoteConnection::connect("127.0.0.1:16000")?;
//! let table = conn.table(&TableName::parse("t1")?)?;
//! table.put(&Put::new("r1").add("cf", "q", "v"))?;
//! let row = table.get(&Get::new("r1"))?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Against a server that requires authentication, give the client credentials; every call
//! presents them (HTTP Basic, or a bearer token from `basalt user token`):
//!
//! ```no_run
//! use basalt_client::{ClientConfig, Credentials, RemoteConnection};
//!
//! let config = ClientConfig::default().with_credentials(Credentials::Password {
//!     user: "alice".into(),
//!     password: std::env::var("BASALT_PASSWORD")?,
//! });
//! let conn = RemoteConnection::connect_with("db1:16000", config)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Layout
//! - [`connection`]: the channel, the runtime, the retry loop.
//! - [`connector`]: the TCP connections under the channel; the credentials every call
//!   presents ([`connector::Presenter`]).
//! - [`table`], [`scanner`], [`admin`]: the API over the wire.
//! - [`users`]: users and tokens through a server's `UserService`, and the first
//!   superuser added with the bootstrap token.
//! - [`config`]: [`ClientConfig`] (timeouts, retries, sizes).
//! - [`locations`]: the region-location cache.

pub mod admin;
mod cluster;
pub mod config;
pub mod connection;
pub mod connector;
pub mod locations;
mod routed;
pub mod scanner;
pub mod table;
pub mod users;

pub use admin::RemoteAdmin;
/// What a client presents: a password, a token (see `basalt-auth`).
pub use basalt_auth::Credentials;
pub use config::ClientConfig;
pub use connection::RemoteConnection;
pub use locations::LocationStats;
pub use table::RemoteTable;
