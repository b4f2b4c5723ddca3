//! What a listener admits, and when it sheds: the settings every listener's configuration
//! section carries (`connections_max`, `connections_per_address_max`, `header_timeout_ms`).

use std::time::Duration;

/// One listener's connection limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Connections open at once. A new connection past it takes the slot of the oldest
    /// connection that has not proven itself (see [`crate::book`]), or is closed at once
    /// when every open connection has.
    pub connections_max: usize,
    /// Connections open at once from one client address (IP), with the same rule among
    /// that address's connections.
    pub per_address_max: usize,
    /// How long a request may take to arrive once its first byte has: a connection still
    /// short of a complete request (HTTP: the request head; Thrift: the whole call;
    /// HTTP/2: the client's preface and settings) this long after that byte is closed.
    pub header_timeout: Duration,
    /// Whether, past a cap with no unproven connection left, the connection idle longest
    /// between requests is closed to make room (HTTP, whose clients reconnect when a
    /// kept-alive connection closes) instead of the new one (Thrift, gRPC).
    pub evict_idle: bool,
}

impl Limits {
    /// A sentence naming what is wrong, if anything.
    pub fn check(&self) -> Result<(), String> {
        if self.connections_max == 0 {
            return Err("connections_max must be at least 1".into());
        }
        if self.per_address_max == 0 {
            return Err("connections_per_address_max must be at least 1".into());
        }
        if self.header_timeout.is_zero() {
            return Err("header_timeout_ms must be at least 1".into());
        }
        Ok(())
    }
}
