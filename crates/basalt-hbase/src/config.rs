//! The native protocol's settings (the `[hbase]` section of `basalt.toml`).

use crate::wire::Limits;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Where the RPC port and the ZooKeeper responder listen, and their limits.
///
/// Connections follow `basalt_net`'s rules, as the Thrift gateway's do: a client holding
/// a connection between calls (HBase clients keep one per server for their lifetime) is
/// never dropped for being idle; a call must arrive whole within `header_timeout_ms` of
/// its first byte; a connection that has sent nothing yet gives its slot to a new one past
/// the caps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HbaseConfig {
    /// Address both listeners bind.
    pub bind: String,
    /// The RPC port, for every service (HBase's region server port 16020 by default);
    /// 0 picks a free one.
    pub port: u16,
    /// The host name published in ZooKeeper and `hbase:meta` for clients to connect to;
    /// empty: the bind address, or `localhost` when that is a wildcard.
    pub advertise_host: String,
    /// Whether to answer ZooKeeper's protocol for discovery.
    pub zookeeper: bool,
    /// The ZooKeeper responder's port (2181 by default); 0 picks a free one.
    pub zookeeper_port: u16,
    /// Connections open at once, per listener.
    pub connections_max: usize,
    /// Connections open at once from one client address, per listener.
    pub connections_per_address_max: usize,
    /// A call must arrive whole within this of its first byte.
    pub header_timeout_ms: u64,
    /// An answer the client does not take within this closes the connection.
    pub write_timeout_ms: u64,
    /// Calls running at once (worker threads); more wait their turn.
    pub workers_max: usize,
    /// Calls of one connection running at once (HBase clients multiplex calls on one
    /// connection); the connection's next call is read when one finishes.
    pub calls_in_flight_max: usize,
    /// A scanner not used for this long is closed (HBase's
    /// `hbase.client.scanner.timeout.period`, 60 s).
    pub scanner_lease_ms: u64,
    /// Scanners open at once, over all connections.
    pub scanners_max: usize,
    /// How long one scan call reads before it answers what it has as a heartbeat, to a
    /// client that handles them (`client_handles_heartbeats`); 0: half the scanner lease,
    /// as HBase's region server does. A call's own timeout, when shorter, halves it.
    pub scan_time_limit_ms: u64,
    pub limits: Limits,
    /// Authentication required (`[security] auth`, set by the process, not the file):
    /// connections whose preamble names SIMPLE are refused with HBase's
    /// `AccessDeniedException` ("Authentication is required") and closed.
    #[serde(skip)]
    pub refuse_simple: bool,
    /// With TLS on, whether plaintext clients are served too (HBase's
    /// `hbase.server.netty.tls.supportplaintext`; set by the process from `[security]`).
    #[serde(skip)]
    pub tls_plaintext: bool,
    /// TLS on this listener (`[security] tls_cert_file`, set by the process, not the
    /// file section): served TLS only when set.
    #[serde(skip)]
    pub tls: basalt_net::TlsSlot,
    /// The users a verified client certificate's name is looked up in (a superuser's
    /// group); set by the process, not the file.
    #[serde(skip)]
    pub authenticator: basalt_auth::authenticator::AuthenticatorSlot,
}

impl Default for HbaseConfig {
    fn default() -> Self {
        Self {
            tls: basalt_net::TlsSlot::default(),
            tls_plaintext: false,
            authenticator: Default::default(),
            bind: "127.0.0.1".to_string(),
            port: 16020,
            advertise_host: String::new(),
            zookeeper: true,
            zookeeper_port: 2181,
            connections_max: 10_000,
            connections_per_address_max: 2_500,
            header_timeout_ms: 10_000,
            write_timeout_ms: 60_000,
            workers_max: 128,
            calls_in_flight_max: 32,
            scanner_lease_ms: 60_000,
            scanners_max: 10_000,
            scan_time_limit_ms: 0,
            limits: Limits::default(),
            refuse_simple: false,
        }
    }
}

impl HbaseConfig {
    /// The listeners' limits. Idle clients are never evicted: an HBase client keeps its
    /// connection to a server open and does not expect it closed under it.
    pub fn connection_limits(&self) -> basalt_net::Limits {
        basalt_net::Limits {
            connections_max: self.connections_max,
            per_address_max: self.connections_per_address_max,
            header_timeout: Duration::from_millis(self.header_timeout_ms),
            evict_idle: false,
        }
    }

    /// The host clients are told to connect to.
    pub fn advertised_host(&self) -> String {
        if !self.advertise_host.is_empty() {
            return self.advertise_host.clone();
        }
        match self.bind.parse::<std::net::IpAddr>() {
            Ok(ip) if ip.is_unspecified() => "localhost".to_string(),
            _ => self.bind.clone(),
        }
    }
}
