//! The server's settings: where it listens and a limit on everything a client can ask for.
//!
//! Every field has a default (below, and in the `[server]` table of `basalt.toml`); units
//! are last in the names.

use serde::{Deserialize, Serialize};

/// Where the server listens and what it accepts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// Address to listen on (`0.0.0.0` for every interface).
    pub bind: String,
    /// gRPC port (HBase's region server port); 0 picks a free one.
    pub port: u16,
    /// The largest request message accepted; a larger one is refused before it is read.
    pub request_max_bytes: usize,
    /// The largest response message sent.
    pub response_max_bytes: usize,
    /// Cells (put cells, increment/append columns, delete specs) in one request.
    pub cells_per_request_max: usize,
    /// Actions in one batch, gets in one multi-get, mutations in one mutate-many.
    pub actions_per_request_max: usize,
    /// Calls running at once across all connections; past it a call gets "server busy".
    pub calls_max: usize,
    /// Calls running at once on one connection (HTTP/2 streams).
    pub calls_per_connection_max: u32,
    /// Open connections. Past it a new connection takes the slot of the oldest one that has
    /// not completed its HTTP/2 handshake; when all have, it is closed at once.
    pub connections_max: usize,
    /// Open connections from one client address, with the same rule among its connections.
    pub connections_per_address_max: usize,
    /// A connection that began its HTTP/2 handshake must complete it within this (one that
    /// has sent nothing yet keeps its slot until a new connection needs it).
    pub header_timeout_ms: u64,
    /// The server pings a connection every third of this; one that does not answer a ping
    /// within a third of it is closed (so only dead or stalled peers are).
    pub idle_timeout_ms: u64,
    /// A call running longer than this is cancelled (0: no limit).
    pub call_timeout_ms: u64,
    /// A scanner not used for this long is closed and forgotten.
    pub scanner_lease_ms: u64,
    /// Open scanners; past it opening one gets "server busy".
    pub scanners_max: usize,
    /// Rows per scanner response when the scan does not say.
    pub scanner_caching_default: u32,
    /// The most rows in one scanner response, whatever the scan asks.
    pub scanner_caching_max: u32,
    /// A scanner response stops growing past this many bytes (at least one row is sent).
    pub scanner_result_max_bytes: u64,
    /// Recent increment/append nonces remembered to answer retries without re-applying.
    pub nonces_max: usize,
    /// Keep data calls slower than `slowlog_threshold_ms` in the slow log
    /// (`get_slowlog_responses`; HBase's `hbase.regionserver.slowlog.buffer.enabled`).
    pub slowlog_enabled: bool,
    /// Records the slow log keeps; the oldest makes room
    /// (`hbase.regionserver.slowlog.ringbuffer.size`).
    pub slowlog_ring_buffer_size: usize,
    /// A data call running longer is slow (`hbase.ipc.warn.response.time`).
    pub slowlog_threshold_ms: u64,
    /// Who checks each call's credentials (set by the process from `[security]`; none:
    /// every call runs as the user its client names).
    #[serde(skip)]
    pub auth: crate::auth::AuthSlot,
    /// Whether each call is checked against the grants (set by the process from
    /// `[security]`; none: unchecked).
    #[serde(skip)]
    pub acl: crate::authorize::AclSlot,
    /// Also answer this process's own clients through in-memory pipes
    /// ([`basalt_proto::in_process`]): set by a process that runs a master and its region
    /// server together, never read from a file.
    #[serde(skip)]
    pub in_process: bool,
    /// TLS on this listener (`[security] tls_cert_file`, set by the process, not the
    /// file section): served TLS only when set.
    #[serde(skip)]
    pub tls: basalt_net::TlsSlot,
}

impl ServerConfig {
    /// The listener's limits. Connections past the handshake are never evicted: HTTP/2
    /// clients keep one connection for all their calls.
    pub fn connection_limits(&self) -> basalt_net::Limits {
        basalt_net::Limits {
            connections_max: self.connections_max,
            per_address_max: self.connections_per_address_max,
            header_timeout: std::time::Duration::from_millis(self.header_timeout_ms),
            evict_idle: false,
        }
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            tls: basalt_net::TlsSlot::default(),
            bind: "127.0.0.1".to_string(),
            port: 16000,
            request_max_bytes: 64 << 20,
            response_max_bytes: 256 << 20,
            cells_per_request_max: 100_000,
            actions_per_request_max: 10_000,
            calls_max: 256,
            calls_per_connection_max: 128,
            connections_max: 1024,
            connections_per_address_max: 256,
            header_timeout_ms: 10_000,
            idle_timeout_ms: 120_000,
            call_timeout_ms: 600_000,
            scanner_lease_ms: 60_000,
            scanners_max: 10_000,
            scanner_caching_default: 100,
            scanner_caching_max: 10_000,
            scanner_result_max_bytes: 2 << 20,
            nonces_max: 100_000,
            slowlog_enabled: false,
            slowlog_ring_buffer_size: 256,
            slowlog_threshold_ms: 10_000,
            auth: Default::default(),
            acl: Default::default(),
            in_process: false,
        }
    }
}
