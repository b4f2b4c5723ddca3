//! Opening a region whose server died. Its edits not yet flushed are in that server's
//! log, `wal/<server>` on the shared store; the master names those logs in the open
//! (`recover_from`). They are read here — each once per process
//! ([`basalt_storage::Engine::adopt_log`]) — and the region replays its own edits, then
//! flushes them before it serves (the engine does so for every edit from another server's
//! log). Once the open succeeds, the dead log holds nothing this region still needs.
//!
//! When the master split the log per region first, the region's own edits wait in its
//! folder (`recovered.edits/<server>`): those are read instead of the whole log, and
//! removed once the region has flushed them. A damaged one is skipped with a warning and
//! the log read instead.

use crate::database::Database;
use crate::error::from_storage;
use crate::meta::record::RegionRecord;
use basalt_api::{ApiError, ErrorKind, Result};
use basalt_types::TableDescriptor;
use std::path::PathBuf;

/// The exception a missing dead log fails an open with.
const MISSING_LOG: &str = "java.io.FileNotFoundException";

impl Database {
    /// As [`Database::host_open`], first reading the logs of the dead servers
    /// `dead_logs` (server names) for the region's unflushed edits. Whether those logs are
    /// still needed for it: it serves their edits, but a full disk kept it from flushing
    /// them.
    pub fn host_open_recovering(
        &self,
        record: RegionRecord,
        descriptor: TableDescriptor,
        dead_logs: &[String],
    ) -> Result<bool> {
        let region_dir = self.region_dir(&descriptor, &record);
        for server in dead_logs {
            if self.adopt_recovered(&region_dir, &record, server) {
                continue;
            }
            let dir = self.dead_log_dir(server, &record)?;
            let started = std::time::Instant::now();
            let edits = self.host_adopt_log(&dir)?;
            if edits > 0 {
                let took_ms = started.elapsed().as_millis() as u64;
                tracing::info!(server = %server, edits, took_ms, region = %record.region_name(), "read a dead server's log");
            }
        }
        let encoded = record.encoded_name.clone();
        self.host_open(record, descriptor)?;
        let unflushed = self.engine().take_unflushed_foreign(&encoded);
        // The recovered edits read go once they are in the region's files: now, or after
        // the flush that follows a region serving them first.
        let fs = self.engine().context().fs.clone();
        let servers = dead_logs.to_vec();
        let remove = move || {
            for server in &servers {
                if let Err(e) =
                    basalt_storage::wal::recovered::remove(fs.as_ref(), &region_dir, server)
                {
                    tracing::warn!(error = %e, "could not remove replayed recovered edits (removed at the next recovery)");
                }
            }
        };
        match self.engine().region(&encoded) {
            Some(region) if unflushed => region.when_recovered_edits_flushed(
                basalt_storage::region::RecoveredFlushed::new(remove),
            ),
            Some(_) => remove(),
            None => {}
        }
        Ok(unflushed)
    }

    /// Takes the region's recovered edits of dead server `server`, if its log was split;
    /// false (the whole log is read instead) when there are none or they are damaged.
    fn adopt_recovered(
        &self,
        region_dir: &std::path::Path,
        record: &RegionRecord,
        server: &str,
    ) -> bool {
        match self
            .engine()
            .adopt_recovered(region_dir, &record.encoded_name, server)
        {
            Ok(taken) => {
                if taken {
                    tracing::info!(server = %server, region = %record.region_name(),
                        "read the region's edits split out of a dead server's log");
                }
                taken
            }
            Err(e) => {
                tracing::warn!(server = %server, region = %record.region_name(), error = %e,
                    "the region's recovered edits are unreadable: reading the dead server's whole log instead");
                false
            }
        }
    }

    /// The log folder of dead server `server`: `wal/<server>`, or `oldWALs/<server>` once
    /// a clean stop archived it (reading it again is harmless: edits at or below the
    /// region's flushed sequence ids are skipped). One of them must exist: a region that
    /// names the log may have edits there nobody flushed.
    fn dead_log_dir(&self, server: &str, record: &RegionRecord) -> Result<PathBuf> {
        let plausible = server.contains(',')
            && !server.contains(['/', '\\'])
            && !server.starts_with('.')
            && server != self.server_name();
        if !plausible {
            return Err(ApiError::invalid(format!(
                "'{server}' is not another region server's name (host,port,startcode): cannot read its log"
            )));
        }
        let dir = self.root().join("wal").join(server);
        let archived = self.root().join("oldWALs").join(server);
        let fs = self.engine().context().fs.clone();
        let found = fs
            .exists(&dir)
            .and_then(|live| Ok((live, !live && fs.exists(&archived)?)));
        match found {
            Ok((true, _)) => Ok(dir),
            Ok((false, true)) => Ok(archived),
            Ok((false, false)) => Err(ApiError::new(
                ErrorKind::DataCorruption,
                MISSING_LOG,
                format!(
                    "region {} must replay the log of dead server {server}, but neither {} nor {} exists: it stays closed rather than open without those edits",
                    record.region_name(),
                    dir.display(),
                    archived.display()
                ),
            )),
            Err(e) => Err(from_storage(basalt_storage::Error::io(
                format!("looking for {}", dir.display()),
                e,
            ))),
        }
    }
}
