//! A dead region server's log, once nothing needs it, moves to the archive.
//!
//! Every region the server held names its log in `recover_from` until it reopens
//! elsewhere with those edits flushed (see [`crate::assignment`]). When the last region
//! naming it opens, the master moves `wal/<server>` to `oldWALs/<server>` (HBase's
//! archive) and logs it. It is an explicit step with a reason, never an inference from a
//! listing: a folder is moved only when its server is not live and no assignment names
//! it, and a log holding damaged segments set aside (`corrupt/`) stays where operators
//! look for them. Nothing is deleted; a region server that still needs an archived log
//! (after a full disk, say) reads it from `oldWALs/`.

use crate::master::Master;
use std::collections::BTreeSet;
use std::sync::Arc;

impl Master {
    /// Archives the logs of those `servers` that are dead and that no region names in
    /// `recover_from` any more. Failures are logged: the log then simply stays in `wal/`.
    pub async fn archive_recovered_logs(self: &Arc<Self>, servers: BTreeSet<String>) {
        let done: Vec<String> = {
            let catalog = self.catalog.read();
            let named: BTreeSet<&String> = catalog
                .assign
                .values()
                .flat_map(|a| a.recover_from.iter())
                .collect();
            servers
                .into_iter()
                .filter(|s| !named.contains(s) && !self.servers.is_live(s))
                .collect()
        };
        if done.is_empty() {
            return;
        }
        let fs = self.fs.clone();
        let root = self.config.store_root.clone();
        let archive_all = move || {
            let archive = root.join("oldWALs");
            for server in done {
                let (from, to) = (root.join("wal").join(&server), archive.join(&server));
                let moved = fs.exists(&from).and_then(|present| {
                    if !present || fs.exists(&to)? {
                        return Ok(false);
                    }
                    if fs.exists(&from.join("corrupt"))? {
                        // Damaged segments set aside there stay where operators and
                        // `hbck` look for them.
                        tracing::info!(server = %server, "a dead server's log holding damaged segments stays in wal/");
                        return Ok(false);
                    }
                    fs.create_dir_all(&archive)?;
                    fs.rename(&from, &to)?;
                    Ok(true)
                });
                match moved {
                    Ok(true) => {
                        tracing::info!(server = %server, from = %from.display(), to = %to.display(),
                        "archived a dead server's log: every region it held reopened with its edits flushed")
                    }
                    Ok(false) => {}
                    Err(e) => tracing::warn!(server = %server, error = %e,
                        "could not archive a dead server's log: it stays in wal/"),
                }
            }
        };
        let moved = crate::master::off_workers(archive_all).await;
        if let Err(e) = moved {
            tracing::warn!(error = %e, "archiving dead servers' logs failed");
        }
    }
}
