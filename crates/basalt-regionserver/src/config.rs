//! A region server's settings.

use basalt_db::DbConfig;
use basalt_server::ServerConfig;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct RegionServerConfig {
    /// The RPC listener (`bind`, `port`; HBase's region server port is 16020).
    pub server: ServerConfig,
    /// The address others reach it by, the `host` of its name (defaults to `bind`).
    pub advertise_host: Option<String>,
    /// The web UI's port (HBase: 16030), 0 for none.
    pub web_port: u16,
    /// Where the shared store is mounted for the engine (a shared folder).
    pub store_root: PathBuf,
    pub db: DbConfig,
    /// The lease its registration lives under.
    pub lease_ttl: Duration,
    /// Read every other server's log folder under `wal/` before starting, and tell the
    /// master: only for a cluster in one process, where every other log is a previous
    /// incarnation of this very server (the coordinator's lock proves it is gone).
    pub adopt_logs: bool,
    /// HBase's native protocol for the regions open here (`--hbase-port`); `None`: off.
    pub hbase: Option<basalt_hbase::HbaseConfig>,
}

impl Default for RegionServerConfig {
    fn default() -> Self {
        Self {
            server: ServerConfig {
                port: 16020,
                ..ServerConfig::default()
            },
            advertise_host: None,
            web_port: 16030,
            store_root: PathBuf::from("basalt-store"),
            db: DbConfig::default(),
            lease_ttl: basalt_coord::keeper::DEFAULT_TTL,
            adopt_logs: false,
            hbase: None,
        }
    }
}
