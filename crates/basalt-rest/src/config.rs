//! The gateway's settings, with HBase's defaults where HBase has one.

use serde::{Deserialize, Serialize};

/// Everything `[rest]` in `basalt.toml` holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RestConfig {
    /// Address to listen on.
    pub bind: String,
    /// Port; 0 picks a free one (HBase's default is 8080).
    pub port: u16,
    /// Host names this gateway is reached by, besides its bind address, `localhost`,
    /// 127.0.0.1 and ::1 (any IP literal is accepted as Host): a request naming another
    /// host is refused (DNS rebinding), a write sent by a page of another origin too.
    pub hosts: Vec<String>,
    /// Refuse every write with 403 (`hbase.rest.readonly`).
    pub read_only: bool,
    /// Largest request body accepted.
    pub body_max_bytes: usize,
    /// Open stateful scanners per client address.
    pub scanners_per_client_max: usize,
    /// Open stateful scanners in all.
    pub scanners_max: usize,
    /// A scanner untouched this long is closed (HBase: one hour).
    pub scanner_lease_ms: u64,
    /// Cells a scanner returns per request when its model names no batch.
    pub scanner_batch_default: u32,
    /// Cells one response may carry (scanner batch, stateless scan, multi-row get).
    pub response_cells_max: usize,
    /// Open connections at once. Past it a new connection takes the slot of the oldest one
    /// without a complete request head, else of the one idle longest between requests.
    pub connections_max: usize,
    /// Open connections from one client address, with the same rule among its connections.
    pub connections_per_address_max: usize,
    /// A request head must arrive whole within this of its first byte. A kept-alive
    /// connection idle between requests is never closed for it.
    pub header_timeout_ms: u64,
    /// TLS on this listener (`[security] tls_cert_file`, set by the process, not the
    /// file section): served TLS only when set.
    #[serde(skip)]
    pub tls: basalt_net::TlsSlot,
}

impl Default for RestConfig {
    fn default() -> Self {
        Self {
            tls: basalt_net::TlsSlot::default(),
            bind: "127.0.0.1".to_string(),
            port: 8080,
            hosts: Vec::new(),
            read_only: false,
            body_max_bytes: 64 * 1024 * 1024,
            scanners_per_client_max: 100,
            scanners_max: 10_000,
            scanner_lease_ms: 3_600_000,
            scanner_batch_default: 100,
            response_cells_max: 100_000,
            connections_max: 1024,
            connections_per_address_max: 256,
            header_timeout_ms: 10_000,
        }
    }
}

impl RestConfig {
    /// The listener's limits; HTTP clients reconnect when a kept-alive connection closes,
    /// so the longest idle one may make room.
    pub fn connection_limits(&self) -> basalt_net::Limits {
        basalt_net::Limits {
            connections_max: self.connections_max,
            per_address_max: self.connections_per_address_max,
            header_timeout: std::time::Duration::from_millis(self.header_timeout_ms),
            evict_idle: true,
        }
    }
}
