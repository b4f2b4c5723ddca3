//! Step 3 of a server crash recovery (cluster-design §5.4): the dead server's sealed log is
//! split per region before its regions reopen, so that each new owner reads only its own
//! region's edits (`<region folder>/recovered.edits/<server>`) instead of the whole log.
//!
//! The master reads the log once and writes one file per region still naming the server in
//! `recover_from` (an empty one for a region with no edits in it). A region whose file is
//! missing or damaged reads the log itself, as in the direct mode, so a split that fails
//! half-way costs time, never edits. The log is kept (and later archived) either way.
//!
//! [`RecoveryMode`] chooses: `direct` (every new owner reads the sealed log, filtered by
//! region: cheapest with few servers), `split`, or `auto` (the default: split once more
//! than [`AUTO_SPLIT_SERVERS`] region servers are live, since every server that reads a log
//! directly reads all of it).

use crate::master::Master;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// How a dead server's log reaches its regions' new owners.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RecoveryMode {
    /// Split when more than [`AUTO_SPLIT_SERVERS`] region servers are live.
    #[default]
    Auto,
    /// Always split the log per region first.
    Split,
    /// Never split: each new owner reads the whole sealed log (HBase's old
    /// "distributed log replay" idea, cluster-design's `recovery.mode=direct`).
    Direct,
}

/// `auto` splits once more region servers than this are live.
pub const AUTO_SPLIT_SERVERS: usize = 3;

impl Master {
    /// Whether dead servers' logs are split before their regions reopen.
    fn splits_logs(&self) -> bool {
        match self.config.recovery_mode {
            RecoveryMode::Split => true,
            RecoveryMode::Direct => false,
            RecoveryMode::Auto => self.servers.live().len() > AUTO_SPLIT_SERVERS,
        }
    }

    /// Splits the sealed logs of `servers` (dead servers named in `recover_from`) per
    /// region, once per server and master; see the module documentation. Failures are
    /// logged: the regions then read the log directly.
    pub async fn split_logs_of(self: &Arc<Self>, servers: BTreeSet<String>) {
        if servers.is_empty() || !self.splits_logs() {
            return;
        }
        for server in servers {
            let fresh = {
                let mut split = self.logs_split.lock();
                !self.servers.is_live(&server)
                    && !self.logs_taken_over.lock().contains(&server)
                    && split.insert(server.clone())
            };
            if fresh {
                self.split_log_of(server).await;
            }
        }
    }

    async fn split_log_of(self: &Arc<Self>, server: String) {
        let regions: BTreeMap<String, PathBuf> = {
            let catalog = self.catalog.read();
            catalog
                .assign
                .iter()
                .filter(|(_, a)| a.recover_from.contains(&server))
                .filter_map(|(encoded, _)| {
                    let table = &catalog.find(encoded).ok()?.table;
                    let dir = self
                        .config
                        .store_root
                        .join("data")
                        .join(table.namespace())
                        .join(table.qualifier())
                        .join(encoded);
                    Some((encoded.clone(), dir))
                })
                .collect()
        };
        let log = self.config.store_root.join("wal").join(&server);
        let fs = self.fs.clone();
        let started = Instant::now();
        let name = server.clone();
        let count = regions.len();
        let split = crate::master::off_workers(move || {
            match fs.exists(&log) {
                Ok(true) => {}
                Ok(false) => return Ok(None),
                Err(e) => return Err(format!("looking for {}: {e}", log.display())),
            }
            basalt_storage::wal::split::split_log(fs.as_ref(), &log, &name, &regions)
                .map(Some)
                .map_err(|e| e.to_string())
        })
        .await;
        match split {
            Ok(Ok(Some(outcome))) => tracing::info!(server = %server, regions = count,
                edits = outcome.edits, edits_written = outcome.edits_written, files = outcome.files,
                took_ms = started.elapsed().as_millis() as u64,
                "split the dead server's log per region"),
            Ok(Ok(None)) => {}
            Ok(Err(why)) => tracing::warn!(server = %server, %why,
                "could not split the dead server's log: its regions read it directly"),
            Err(e) => tracing::warn!(server = %server, error = %e,
                "could not split the dead server's log: its regions read it directly"),
        }
    }
}
