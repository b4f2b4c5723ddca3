//! The gateway's settings (the `[thrift]` section of `basalt.toml`).

use crate::protocol::{Limits, ProtocolKind};
use crate::transport::TransportKind;
use serde::{Deserialize, Serialize};

/// Where and how the gateway listens, and its limits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ThriftConfig {
    /// Address to listen on.
    pub bind: String,
    /// Port; 0 picks a free one (HBase's default is 9090).
    pub port: u16,
    /// Framed transport instead of buffered (HBase's `-f`).
    pub framed: bool,
    /// Compact protocol instead of binary (HBase's `-c`).
    pub compact: bool,
    /// Connections served at once (each has a thread); more are closed at once.
    pub connections_max: usize,
    /// A connection silent for this long is closed.
    pub idle_timeout_ms: u64,
    /// A scanner not used for this long is closed.
    pub scanner_lease_ms: u64,
    /// Scanners open at once, over all connections.
    pub scanners_max: usize,
    pub limits: Limits,
}

impl Default for ThriftConfig {
    fn default() -> Self {
        Self {
            bind: "127.0.0.1".to_string(),
            port: 9090,
            framed: false,
            compact: false,
            connections_max: 1000,
            idle_timeout_ms: 600_000,
            scanner_lease_ms: 60_000,
            scanners_max: 10_000,
            limits: Limits::default(),
        }
    }
}

impl ThriftConfig {
    pub fn transport(&self) -> TransportKind {
        match self.framed {
            true => TransportKind::Framed,
            false => TransportKind::Buffered,
        }
    }

    pub fn protocol(&self) -> ProtocolKind {
        match self.compact {
            true => ProtocolKind::Compact,
            false => ProtocolKind::Binary,
        }
    }
}
