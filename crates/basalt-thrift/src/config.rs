//! The gateway's settings (the `[thrift]` section of `basalt.toml`).

use crate::protocol::{Limits, ProtocolKind};
use crate::transport::{TransportKind, Wire};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The service a gateway serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// HBase's Thrift1 service, `Hbase` (happybase).
    Thrift1,
    /// HBase's Thrift2 service, `THBaseService`.
    Thrift2,
}

/// Where and how the gateway listens, and its limits.
///
/// Connections follow `basalt_net`'s rules: a client holding a connection between calls
/// (happybase's pool, a long scan) is never dropped for being idle; a call must arrive
/// whole within `header_timeout_ms` of its first byte; a connection that has sent nothing
/// yet keeps its slot until a new connection needs it (past `connections_max`, or
/// `connections_per_address_max` for its address); when every slot holds a client that
/// has made a call, a new connection is closed at once.
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
    /// Thrift over HTTP (HBase's `hbase.regionserver.thrift.http`): each call is an HTTP
    /// POST whose body is one message of the protocol, and the reply is the response's
    /// body (`application/x-thrift`). Not with `framed`.
    pub http: bool,
    /// Serve HBase's Thrift2 service (`THBaseService`) instead of Thrift1 (`Hbase`).
    pub thrift2: bool,
    /// `basalt standalone` only: also serve Thrift2 on this port (0 picks a free one),
    /// with this section's other settings but on sockets (`http` is Thrift1's); off when
    /// absent.
    pub thrift2_port: Option<u16>,
    /// Connections open at once (a few kilobytes each while idle; keep it below the
    /// process's file descriptor limit).
    pub connections_max: usize,
    /// Connections open at once from one client address.
    pub connections_per_address_max: usize,
    /// A call must arrive whole within this of its first byte.
    pub header_timeout_ms: u64,
    /// A reply the client does not take within this closes the connection.
    pub write_timeout_ms: u64,
    /// Calls running at once (worker threads); more wait their turn.
    pub workers_max: usize,
    /// A scanner not used for this long is closed.
    pub scanner_lease_ms: u64,
    /// Scanners open at once, over all connections.
    pub scanners_max: usize,
    pub limits: Limits,
    /// TLS on this listener (`[security] tls_cert_file`, set by the process, not the
    /// file section): served TLS only when set.
    #[serde(skip)]
    pub tls: basalt_net::TlsSlot,
}

impl Default for ThriftConfig {
    fn default() -> Self {
        Self {
            tls: basalt_net::TlsSlot::default(),
            bind: "127.0.0.1".to_string(),
            port: 9090,
            framed: false,
            compact: false,
            http: false,
            thrift2: false,
            thrift2_port: None,
            connections_max: 10_000,
            connections_per_address_max: 2_500,
            header_timeout_ms: 10_000,
            write_timeout_ms: 60_000,
            workers_max: 128,
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

    pub fn wire(&self) -> Wire {
        Wire {
            transport: self.transport(),
            protocol: self.protocol(),
            limits: self.limits.clone(),
        }
    }

    /// Which service the gateway serves.
    pub fn flavor(&self) -> Flavor {
        match self.thrift2 {
            true => Flavor::Thrift2,
            false => Flavor::Thrift1,
        }
    }

    /// The settings of standalone's second, Thrift2 gateway, when `thrift2_port` asks for one.
    pub fn thrift2_gateway(&self) -> Option<Self> {
        let port = self.thrift2_port?;
        Some(Self {
            port,
            thrift2: true,
            thrift2_port: None,
            http: false,
            ..self.clone()
        })
    }

    /// Settings that cannot work together.
    pub fn check(&self) -> Result<(), String> {
        if self.http && self.framed {
            return Err(
                "Thrift over HTTP cannot use the framed transport (http and framed are both set)"
                    .into(),
            );
        }
        if self.workers_max == 0 {
            return Err("workers_max must be at least 1".into());
        }
        self.connection_limits().check()
    }

    /// The listener's limits. Idle Thrift clients are never evicted: happybase does not
    /// reconnect a pooled connection the server closed.
    pub fn connection_limits(&self) -> basalt_net::Limits {
        basalt_net::Limits {
            connections_max: self.connections_max,
            per_address_max: self.connections_per_address_max,
            header_timeout: Duration::from_millis(self.header_timeout_ms),
            evict_idle: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_and_framed_do_not_mix() {
        let config = ThriftConfig {
            http: true,
            framed: true,
            ..ThriftConfig::default()
        };
        let e = config.check().expect_err("refused");
        assert!(e.contains("framed"), "{e}");
        let http = ThriftConfig {
            http: true,
            ..ThriftConfig::default()
        };
        assert_eq!(http.check(), Ok(()));
    }

    #[test]
    fn standalone_serves_thrift2_only_when_a_port_is_given() {
        assert_eq!(ThriftConfig::default().thrift2_gateway(), None);
        let config = ThriftConfig {
            http: true,
            compact: true,
            thrift2_port: Some(0),
            ..ThriftConfig::default()
        };
        let thrift2 = config.thrift2_gateway().expect("asked for");
        assert_eq!(thrift2.flavor(), Flavor::Thrift2);
        assert_eq!(thrift2.port, 0);
        assert!(thrift2.compact, "the section's protocol");
        assert!(!thrift2.http, "on sockets: http is Thrift1's");
        assert_eq!(thrift2.thrift2_gateway(), None);
    }
}
