//! The configuration file (TOML): every setting with its default, the environment
//! overrides for the common ones, and the flags over both.
//!
//! Precedence, lowest first: built-in defaults → the file (`--config`) → environment
//! (`BASALT_DATA_DIR`, `BASALT_BIND`, `BASALT_PORT`, `BASALT_LOG`; read by clap as flag
//! defaults) → flags. `basalt.example.toml` documents every key and is checked against the
//! defaults by a test.

use crate::CliError;
use basalt_db::DbConfig;
use basalt_hbase::HbaseConfig;
use basalt_rest::RestConfig;
use basalt_server::ServerConfig;
use basalt_thrift::ThriftConfig;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The documented default configuration file.
pub const EXAMPLE: &str = include_str!("../basalt.example.toml");

/// Everything in `basalt.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BasaltConfig {
    pub data_dir: PathBuf,
    pub log: LogSection,
    pub server: ServerConfig,
    pub master: MasterSection,
    pub database: DatabaseSection,
    pub storage: StorageSection,
    /// The HBase REST gateway (`basalt rest`, and standalone unless `--no-rest`).
    pub rest: RestConfig,
    pub web: basalt_web::WebConfig,
    pub thrift: ThriftConfig,
    /// HBase's native protocol and the ZooKeeper responder (standalone unless `--no-hbase`).
    pub hbase: HbaseConfig,
    /// The HBase shell (`basalt shell --config`).
    pub shell: ShellSection,
    /// Authentication: `auth`, superusers, the cluster secret, the audit log.
    pub security: crate::security::SecuritySection,
}

impl Default for BasaltConfig {
    fn default() -> Self {
        Self {
            data_dir: PathBuf::from("./basalt-data"),
            log: LogSection::default(),
            server: ServerConfig::default(),
            master: MasterSection::default(),
            database: DatabaseSection::default(),
            storage: StorageSection::default(),
            rest: RestConfig::default(),
            web: basalt_web::WebConfig::default(),
            thrift: ThriftConfig::default(),
            hbase: HbaseConfig::default(),
            shell: ShellSection::default(),
            security: crate::security::SecuritySection::default(),
        }
    }
}

/// `basalt shell`'s settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShellSection {
    /// HBase's `hbase.shell.timestamp.format.epoch`: print cell timestamps as epoch
    /// milliseconds instead of ISO local date-times (HBase 2.4+'s default).
    pub timestamp_format_epoch: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LogSection {
    /// A `tracing` filter (`info`, `info,basalt_server=debug`).
    pub filter: String,
}

impl Default for LogSection {
    fn default() -> Self {
        Self {
            filter: "info".to_string(),
        }
    }
}

/// The master's settings (standalone's, and `basalt master --config`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MasterSection {
    /// A region in transition for longer is stuck: counted, and warned about at most once
    /// per this (HBase's `hbase.metrics.rit.stuck.warning.threshold`).
    pub rit_stuck_warning_threshold_ms: u64,
    /// How a dead region server's log reaches its regions' new owners: "split" (per
    /// region, by the master, first), "direct" (each new owner reads the whole log), or
    /// "auto" (split once more than 3 region servers are live).
    pub recovery_mode: RecoveryMode,
    /// How often the active master connects to each region server's port; one that
    /// refuses twice in a row is a dead process, recovered at once instead of at its
    /// lease's expiry. 0: off (the lease alone tells).
    pub probe_interval_ms: u64,
}

/// `[master] recovery_mode` (see `basalt_master::log_split`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecoveryMode {
    #[default]
    Auto,
    Split,
    Direct,
}

impl Default for MasterSection {
    fn default() -> Self {
        Self {
            rit_stuck_warning_threshold_ms: 60_000,
            recovery_mode: RecoveryMode::Auto,
            probe_interval_ms: basalt_master::config::DEFAULT_PROBE_INTERVAL.as_millis() as u64,
        }
    }
}

impl MasterSection {
    /// Applies these settings to a master's.
    pub fn apply(&self, config: &mut basalt_master::MasterConfig) {
        config.rit_stuck_warning_threshold =
            std::time::Duration::from_millis(self.rit_stuck_warning_threshold_ms.max(1));
        config.recovery_mode = match self.recovery_mode {
            RecoveryMode::Auto => basalt_master::log_split::RecoveryMode::Auto,
            RecoveryMode::Split => basalt_master::log_split::RecoveryMode::Split,
            RecoveryMode::Direct => basalt_master::log_split::RecoveryMode::Direct,
        };
        config.probe_interval = (self.probe_interval_ms > 0)
            .then(|| std::time::Duration::from_millis(self.probe_interval_ms));
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DatabaseSection {
    pub split_check_interval_ms: u64,
}

impl Default for DatabaseSection {
    fn default() -> Self {
        Self {
            split_check_interval_ms: DbConfig::default().split_check_interval_ms,
        }
    }
}

/// The region engine's settings (see `basalt_storage::StorageConfig`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StorageSection {
    pub memstore_flush_size_bytes: u64,
    pub global_memstore_limit_bytes: u64,
    pub memstore_block_timeout_ms: u64,
    pub block_cache_bytes: u64,
    pub wal_segment_size_bytes: u64,
    pub wal_async_sync_interval_ms: u64,
    pub wal_recycle_segments: usize,
    pub wal_preallocate_step_bytes: u64,
    pub flush_recovered_before_serving: bool,
    pub cell_max_bytes: usize,
    pub bloom_false_positive_rate: f64,
    pub compaction_min_files: usize,
    pub compaction_max_files: usize,
    pub compaction_ratio: f64,
    pub major_compaction_period_ms: u64,
    pub blocking_store_files: usize,
    pub compaction_throughput_lower_bytes_per_sec: u64,
    pub compaction_throughput_higher_bytes_per_sec: u64,
    pub nonce_window_ms: i64,
    pub nonces_per_region_max: usize,
}

impl Default for StorageSection {
    fn default() -> Self {
        let s = DbConfig::default().storage;
        Self {
            memstore_flush_size_bytes: s.memstore_flush_size_bytes,
            global_memstore_limit_bytes: s.global_memstore_limit_bytes,
            memstore_block_timeout_ms: s.memstore_block_timeout_ms,
            block_cache_bytes: s.block_cache_bytes,
            wal_segment_size_bytes: s.wal_segment_size_bytes,
            wal_async_sync_interval_ms: s.wal_async_sync_interval_ms,
            wal_recycle_segments: s.wal_recycle_segments,
            wal_preallocate_step_bytes: s.wal_preallocate_step_bytes,
            flush_recovered_before_serving: s.flush_recovered_before_serving,
            cell_max_bytes: s.cell_max_bytes,
            bloom_false_positive_rate: s.bloom_false_positive_rate,
            compaction_min_files: s.compaction_min_files,
            compaction_max_files: s.compaction_max_files,
            compaction_ratio: s.compaction_ratio,
            major_compaction_period_ms: s.major_compaction_period_ms,
            blocking_store_files: s.blocking_store_files,
            compaction_throughput_lower_bytes_per_sec: s.compaction_throughput_lower_bytes_per_sec,
            compaction_throughput_higher_bytes_per_sec: s
                .compaction_throughput_higher_bytes_per_sec,
            nonce_window_ms: s.nonce_window_ms,
            nonces_per_region_max: s.nonces_per_region_max,
        }
    }
}

/// Settings older releases had, still accepted (and ignored) with a warning.
const REMOVED: &[(&str, &str, &str)] = &[
    (
        "thrift",
        "idle_timeout_ms",
        "a connection idle between calls is never closed; see header_timeout_ms",
    ),
    (
        "web",
        "idle_timeout_ms",
        "a connection idle between requests is never closed; see header_timeout_ms",
    ),
];

impl BasaltConfig {
    /// Reads `path`; every key left out keeps its default, an unknown key is an error.
    pub fn load(path: &Path) -> Result<Self, CliError> {
        let text = std::fs::read_to_string(path).map_err(|source| CliError::ReadConfig {
            path: path.to_path_buf(),
            source,
        })?;
        let (config, removed) =
            Self::parse_noting_removed(&text).map_err(|message| CliError::BadConfig {
                path: path.to_path_buf(),
                message,
            })?;
        // Read before logging is set up, so straight to standard error.
        for note in removed {
            eprintln!("basalt: warning: {}: {note}", path.display());
        }
        Ok(config)
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        Self::parse_noting_removed(text).map(|(config, _)| config)
    }

    /// As [`BasaltConfig::parse`], also naming the removed settings the text still sets:
    /// they are accepted so that an older file loads, and ignored.
    pub fn parse_noting_removed(text: &str) -> Result<(Self, Vec<String>), String> {
        let mut value: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
        let mut removed = Vec::new();
        for (section, key, why) in REMOVED {
            let table = value.get_mut(*section).and_then(|v| v.as_table_mut());
            if table.and_then(|t| t.remove(*key)).is_some() {
                removed.push(format!(
                    "[{section}] {key} is no longer used ({why}); ignored"
                ));
            }
        }
        let config = value
            .try_into()
            .map_err(|e: toml::de::Error| e.to_string())?;
        Ok((config, removed))
    }

    /// The database settings.
    pub fn db_config(&self) -> DbConfig {
        let mut db = DbConfig {
            split_check_interval_ms: self.database.split_check_interval_ms,
            ..DbConfig::default()
        };
        let s = &self.storage;
        let t = &mut db.storage;
        t.memstore_flush_size_bytes = s.memstore_flush_size_bytes;
        t.global_memstore_limit_bytes = s.global_memstore_limit_bytes;
        t.memstore_block_timeout_ms = s.memstore_block_timeout_ms;
        t.block_cache_bytes = s.block_cache_bytes;
        t.wal_segment_size_bytes = s.wal_segment_size_bytes;
        t.wal_async_sync_interval_ms = s.wal_async_sync_interval_ms;
        t.wal_recycle_segments = s.wal_recycle_segments;
        t.wal_preallocate_step_bytes = s.wal_preallocate_step_bytes;
        t.flush_recovered_before_serving = s.flush_recovered_before_serving;
        t.cell_max_bytes = s.cell_max_bytes;
        t.bloom_false_positive_rate = s.bloom_false_positive_rate;
        t.compaction_min_files = s.compaction_min_files;
        t.compaction_max_files = s.compaction_max_files;
        t.compaction_ratio = s.compaction_ratio;
        t.major_compaction_period_ms = s.major_compaction_period_ms;
        t.blocking_store_files = s.blocking_store_files;
        t.compaction_throughput_lower_bytes_per_sec = s.compaction_throughput_lower_bytes_per_sec;
        t.compaction_throughput_higher_bytes_per_sec = s.compaction_throughput_higher_bytes_per_sec;
        t.nonce_window_ms = s.nonce_window_ms;
        t.nonces_per_region_max = s.nonces_per_region_max;
        db
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_file_is_exactly_the_defaults() {
        let parsed = BasaltConfig::parse(EXAMPLE).expect("the example parses");
        assert_eq!(parsed, BasaltConfig::default());
        assert_eq!(parsed.db_config(), DbConfig::default());
    }

    #[test]
    fn missing_keys_default_and_unknown_keys_fail() {
        let c = BasaltConfig::parse("[server]\nport = 17000\n").expect("valid");
        assert_eq!(c.server.port, 17000);
        assert_eq!(c.server.bind, "127.0.0.1");
        let e = BasaltConfig::parse("[server]\nprot = 1\n").expect_err("typo");
        assert!(e.contains("prot"), "{e}");
        assert!(BasaltConfig::parse("[server]\nport = \"x\"\n").is_err());
    }

    #[test]
    fn removed_settings_load_with_a_note_and_change_nothing() {
        let text = "[thrift]\nidle_timeout_ms = 600000\nport = 9191\n[web]\nidle_timeout_ms = 1\n";
        let (c, removed) = BasaltConfig::parse_noting_removed(text).expect("older file loads");
        assert_eq!(c.thrift.port, 9191);
        assert_eq!(c.web, basalt_web::WebConfig::default());
        assert_eq!(removed.len(), 2, "{removed:?}");
        assert!(
            removed[0].contains("[thrift] idle_timeout_ms"),
            "{removed:?}"
        );
        let e = BasaltConfig::parse("[thrift]\nidle_timeout = 1\n").expect_err("typo");
        assert!(e.contains("idle_timeout"), "{e}");
    }
}
