//! HBase's REST gateway ("Stargate") over any [`basalt_api::Connection`].
//!
//! HTTP clients written for HBase's REST server talk to Basalt unchanged: the same paths
//! (`/<table>/schema`, `/<table>/<row>/<family:qualifier>`, `/<table>/scanner`, …), the same
//! bodies (cell sets with base64 keys, columns and values in JSON, XML or protobuf; single
//! values as octet-stream) and the same status codes (404 missing, 400 malformed, 403
//! read-only, 503 unavailable). It is not the web UI or `/metrics` (`basalt-web`).
//!
//! [`start`] binds and serves on the caller's tokio runtime; every call into the
//! connection, which blocks, runs on tokio's blocking pool.
//!
//! With authentication on ([`start_authenticated`]) every request presents a password
//! (Basic, from loopback or over TLS) or a token (Bearer) and runs as its user, so HBase's
//! ACLs apply as on gRPC; a scanner answers only the user who opened it. Always, whatever
//! the authentication: requests must name a host this gateway serves (DNS rebinding), and
//! writes sent by a page of another origin are refused; no CORS header is ever sent.
//!
//! # Layout
//! - [`access`]: Host and Origin checks, authentication, the request's principal.
//! - [`config`]: [`RestConfig`], every limit with its default.
//! - [`server`]: binding, serving, reading requests, graceful shutdown.
//! - [`router`]: from a path to a resource.
//! - [`resource`]: one module per resource (root, namespaces, schema, regions, rows,
//!   writes, checks, multi-get, stateless scan, scanners).
//! - [`rowspec`]: HBase's row-spec grammar, a pure parser.
//! - [`model`]: the models (cell set, schemas, scanner, filter, lists, status).
//! - [`repr`]: media types, content negotiation, XML, protobuf messages, base64.
//! - [`scanners`]: open stateful scanners, their limits and leases.
//! - [`gateway`]: shared state, the request, and answer helpers.
//! - [`url`]: strict percent-decoding and query strings.
//! - [`error`]: [`RestError`] and the HTTP answer of each.

pub mod access;
pub mod config;
pub mod error;
pub mod gateway;
pub mod model;
pub mod repr;
pub mod resource;
pub mod router;
pub mod rowspec;
pub mod scanners;
pub mod server;
pub mod url;

pub use access::RestAuth;
pub use config::RestConfig;
pub use error::RestError;
pub use server::{start, start_authenticated, RestServer};
