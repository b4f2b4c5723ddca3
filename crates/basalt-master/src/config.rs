//! A master's settings.

use basalt_server::ServerConfig;
use std::path::PathBuf;
use std::time::Duration;

/// How often region servers' ports are probed by default (`[master] probe_interval_ms`).
pub const DEFAULT_PROBE_INTERVAL: Duration = Duration::from_millis(500);

#[derive(Debug, Clone)]
pub struct MasterConfig {
    /// The RPC listener (HBase's master port is 16000).
    pub server: ServerConfig,
    /// The address others reach it by (defaults to `bind`).
    pub advertise_host: Option<String>,
    /// The web UI's port (HBase: 16010), 0 for none.
    pub web_port: u16,
    /// Where the shared store is mounted (the master deletes dropped tables' folders).
    pub store_root: PathBuf,
    /// The lease the master's candidacy lives under.
    pub lease_ttl: Duration,
    /// How often the balancer runs (HBase's `hbase.balancer.period`, 5 minutes).
    pub balancer_period: Duration,
    /// How often region sizes are checked for automatic splits.
    pub split_check_period: Duration,
    /// Region servers whose clock differs more are refused (`hbase.master.maxclockskew`).
    pub max_clock_skew: Duration,
    /// Balancer: the share of the mean region count a server may differ by
    /// (`hbase.regions.slop`, 0.2 in HBase's simple balancer).
    pub slop: f64,
    /// Balancer: at most this share of the regions moves per run.
    pub max_move_fraction: f64,
    /// At activation, move region folders the catalog names no region for into the
    /// store's quarantine (a shared folder only: the store root must be a local path).
    pub set_aside_unknown_folders: bool,
    /// A region in transition for longer is stuck: counted, and named in a warning at
    /// most once per this (HBase's `hbase.metrics.rit.stuck.warning.threshold`, 60 s).
    pub rit_stuck_warning_threshold: Duration,
    /// How a dead server's log reaches its regions' new owners (split per region first, or
    /// read whole by each): see [`crate::log_split`].
    pub recovery_mode: crate::log_split::RecoveryMode,
    /// HBase's native protocol and the ZooKeeper responder (`--hbase-port`); `None`: off.
    pub hbase: Option<basalt_hbase::HbaseConfig>,
    /// How often the active master connects to each region server's port: one that
    /// refuses twice in a row is a dead process, recovered at once (see
    /// [`crate::liveness`]); `None`: the lease's expiry alone tells.
    pub probe_interval: Option<Duration>,
}

impl Default for MasterConfig {
    fn default() -> Self {
        Self {
            server: ServerConfig {
                port: 16000,
                ..ServerConfig::default()
            },
            advertise_host: None,
            web_port: 16010,
            store_root: PathBuf::from("basalt-store"),
            lease_ttl: basalt_coord::keeper::DEFAULT_TTL,
            balancer_period: Duration::from_secs(300),
            split_check_period: Duration::from_secs(10),
            max_clock_skew: Duration::from_secs(30),
            slop: 0.2,
            max_move_fraction: 0.25,
            set_aside_unknown_folders: false,
            rit_stuck_warning_threshold: Duration::from_secs(60),
            recovery_mode: crate::log_split::RecoveryMode::Auto,
            hbase: None,
            probe_interval: Some(DEFAULT_PROBE_INTERVAL),
        }
    }
}
