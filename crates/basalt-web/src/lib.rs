//! The web UI and metrics endpoints of every Basalt process: pages for people, `/metrics`
//! and `/jmx` for machines.
//!
//! - A cluster's master (16010) and region servers (16030) show what they answer over
//!   RPC, read from their own services as any client would ([`start_master`],
//!   [`start_region_server`], [`source`], [`remote`]).
//! - `basalt standalone` (16010), a master and a region server in one process, shows the
//!   standalone pages read the same way: its region server's report and a client of its
//!   master ([`start_standalone`]).
//! - An embedded [`basalt_db::Database`] can serve the same pages in process ([`start`]).
//!
//! It is not the REST gateway (`basalt-rest`), which is a client of any connection and can
//! run elsewhere.
//!
//! Pages are rendered on the server, with no script, from a typed HTML builder that
//! escapes every text and attribute value ([`html`]); every response carries a strict
//! Content-Security-Policy, `X-Frame-Options: DENY` and `X-Content-Type-Options: nosniff`.
//! Row keys are shown as the HBase shell prints them (`\x00`), then escaped.
//!
//! ```text
//! /  /master-status     home: version, uptime, server load, tables, cache, tasks, errors
//! /table.jsp?name=T     schema, heat map (&heat=reads), hot spots, regions and their keys,
//!                       key distribution, data browser (&start=KEY&rows=N)
//! /rs-status            the region server: requests and latencies, memory, regions
//!                       (a region server's home; a cluster master has none)
//! /conf  /logs          effective configuration, recent log lines
//! /metrics /prometheus  Prometheus text exposition 0.0.4
//! /jmx                  HBase-style JMX JSON
//! ```
//!
//! With authentication required ([`ServerInfo::auth`]) the pages need a superuser's
//! session (a sign-in form at `/login`, a cookie, a CSRF token on every POST) and the
//! metrics a session or a token; always, requests must name a host the server serves and
//! a POST from another origin is refused ([`access`]).
//!
//! ```text
//! /login /logout        sign in (POST user and password), sign out (POST the CSRF token)
//! ```
//!
//! # Layout
//! - [`access`]: Host and Origin checks, sign-in, sessions, CSRF tokens.
//! - [`server`]: routes, security headers, start and shutdown ([`start`], [`WebServer`]),
//!   over `basalt_net`'s listener (connection caps, header timeout).
//! - `pages`: one module per page; [`layout`]: the frame they share; [`html`]: the
//!   escaping builder; `basalt.css`: the stylesheet, served from the binary.
//! - [`source`]: where pages read from, by kind of process ([`source::Role`]).
//! - [`snapshot`]: what pages and metrics show of one server, read from the database in
//!   one pass; [`remote`]: the same, and a master's cluster view, read over RPC.
//! - [`metrics`]: the Prometheus and JMX renderings.
//! - [`heat`]: per-region rates sampled into a bounded ring, the table page's heat map
//!   and hot-spot flags, and their metrics.
//! - [`logs`]: the `tracing` layer keeping recent log lines for the logs page.
//! - [`query`]: query strings with limits; [`units`]: sizes, durations, times.
//! - [`error`]: [`WebError`] and the status each failure answers with.

pub mod access;
pub mod error;
pub mod heat;
pub mod html;
pub mod layout;
pub mod logs;
pub mod metrics;
pub(crate) mod pages;
pub mod query;
pub mod remote;
pub mod server;
pub mod snapshot;
pub mod source;
pub mod units;

pub use error::WebError;
pub use logs::{LogBuffer, LogLayer};
pub use server::{
    start, start_master, start_region_server, start_standalone, start_with, WebServer,
};

use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

/// The `[web]` settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WebConfig {
    /// Whether standalone starts the web UI.
    pub enabled: bool,
    /// Address to listen on.
    pub bind: String,
    /// Port; 0 picks a free one.
    pub port: u16,
    /// Log lines kept in memory for the logs page.
    pub log_lines_max: usize,
    /// Open connections at once. Past it a new connection takes the slot of the oldest one
    /// without a complete request head, else of the one idle longest between requests.
    pub connections_max: usize,
    /// Open connections from one client address, with the same rule among its connections.
    pub connections_per_address_max: usize,
    /// A request head must arrive whole within this of its first byte. A kept-alive
    /// connection idle between requests is never closed for it.
    pub header_timeout_ms: u64,
    /// Per-region rates, the heat map and hot-spot flags (`[web.heat]`).
    pub heat: heat::HeatConfig,
    /// Host names the UI is reached by, besides its bind address, `localhost`, 127.0.0.1
    /// and ::1 (IP literals are accepted as Host): other names are refused (DNS
    /// rebinding), and forms posted from other origins.
    pub hosts: Vec<String>,
    /// How long a sign-in lasts (authentication required).
    pub session_ttl_ms: u64,
    /// Signed-in sessions kept at once; past it the soonest to expire ends.
    pub sessions_max: usize,
    /// TLS on this listener (`[security] tls_cert_file`, set by the process, not the
    /// file section): served TLS only when set.
    #[serde(skip)]
    pub tls: basalt_net::TlsSlot,
}

impl Default for WebConfig {
    fn default() -> Self {
        Self {
            tls: basalt_net::TlsSlot::default(),
            enabled: true,
            bind: "127.0.0.1".to_string(),
            port: 16010,
            log_lines_max: 1000,
            connections_max: 256,
            connections_per_address_max: 64,
            header_timeout_ms: 10_000,
            heat: heat::HeatConfig::default(),
            hosts: Vec::new(),
            session_ttl_ms: 8 * 3600 * 1000,
            sessions_max: 10_000,
        }
    }
}

impl WebConfig {
    /// The listener's limits; browsers reconnect when a kept-alive connection closes, so
    /// the longest idle one may make room.
    pub fn connection_limits(&self) -> basalt_net::Limits {
        basalt_net::Limits {
            connections_max: self.connections_max,
            per_address_max: self.connections_per_address_max,
            header_timeout: Duration::from_millis(self.header_timeout_ms),
            evict_idle: true,
        }
    }
}

/// What the pages say about the server itself.
#[derive(Debug, Clone)]
pub struct ServerInfo {
    pub version: String,
    pub started: SystemTime,
    pub data_dir: PathBuf,
    /// Where clients connect (the gRPC address); set once known (a server on port 0
    /// learns its port after the web UI starts).
    pub grpc_addr: Arc<OnceLock<String>>,
    /// The region server's name, as region reports give it.
    pub server_name: String,
    /// The effective configuration, as text (TOML).
    pub config_text: String,
    /// Recent log lines; fed by [`LogBuffer::layer`] when installed.
    pub logs: Arc<LogBuffer>,
    /// Checks sign-ins and tokens when authentication is required; None: the pages are
    /// open (authentication off).
    pub auth: Option<Arc<basalt_auth::Authenticator>>,
}

impl ServerInfo {
    /// Started now, with no gRPC address yet, no configuration text and an empty log
    /// buffer.
    pub fn new(version: &str, data_dir: PathBuf) -> Self {
        Self {
            version: version.to_string(),
            started: SystemTime::now(),
            data_dir,
            grpc_addr: Arc::new(OnceLock::new()),
            server_name: basalt_db::meta::SERVER_NAME.to_string(),
            config_text: String::new(),
            logs: Arc::new(LogBuffer::default()),
            auth: None,
        }
    }

    /// The gRPC address, or a dash while unknown.
    pub fn grpc_addr(&self) -> &str {
        self.grpc_addr.get().map_or("-", String::as_str)
    }

    pub fn uptime(&self) -> Duration {
        self.started.elapsed().unwrap_or_default()
    }
}
