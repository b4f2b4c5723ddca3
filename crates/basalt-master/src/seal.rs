//! A dead server's log is sealed before any region replays it (cluster-design §5.3,
//! fencing layer 1; step 2 of a server crash recovery).
//!
//! The lease gate already keeps a paused or cut-off server from acknowledging past its
//! deadline; the seal makes the log itself refuse it, and fixes what is replayed:
//! - on an object store, each log gets an empty chunk at its first gap, and the writer's
//!   next chunk fails on it (put-if-absent);
//! - on a shared folder, a record the writer checks after every sync.
//!
//! Either way a record names each log and its length, so every new owner of one of the
//! dead server's regions, and a second run of the recovery after a master failover,
//! replays the same edits. Sealing is idempotent: opens call it every time they carry
//! `recover_from`, and a folder sealed before returns its record.

use crate::error::io;
use crate::master::Master;
use basalt_api::Result;
use std::collections::BTreeSet;
use std::sync::Arc;

impl Master {
    /// Seals the log folders of `servers` (dead servers named in `recover_from`). A live
    /// server's log is never sealed (that would stop it), nor one its next incarnation
    /// took over at start; a server with no log folder wrote nothing that needs fencing.
    pub async fn seal_logs_of(self: &Arc<Self>, servers: BTreeSet<String>) -> Result<()> {
        let servers: Vec<String> = servers
            .into_iter()
            .filter(|s| {
                let live = self.servers.is_live(s);
                if live {
                    tracing::warn!(server = %s, "not sealing the log of a live server");
                }
                // Its next incarnation read it at start, under the data folder's lock:
                // nothing can write it any more (and a full disk must not keep its regions
                // closed).
                !live && !self.logs_taken_over.lock().contains(s)
            })
            .collect();
        if servers.is_empty() {
            return Ok(());
        }
        let fs = self.fs.clone();
        let root = self.config.store_root.join("wal");
        let sealed = crate::master::off_workers(move || {
            for server in servers {
                let dir = root.join(&server);
                let sealed = fs.exists(&dir).and_then(|present| match present {
                    true => fs.seal_logs(&dir),
                    false => Ok(None),
                });
                match sealed {
                    Ok(Some(record)) => tracing::debug!(server = %server, logs = record.logs.len(),
                        "the dead server's log is sealed"),
                    Ok(None) => {}
                    Err(e) => {
                        return Err(io(format!(
                            "cannot seal the log of dead server {server} at {}: its regions \
                             wait until it is sealed: {e}",
                            dir.display()
                        )))
                    }
                }
            }
            Ok(())
        })
        .await
        .map_err(|e| io(format!("sealing dead servers' logs: {e}")))?;
        sealed
    }
}
