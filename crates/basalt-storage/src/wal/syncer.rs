//! The background syncer behind ASYNC_WAL: every interval, sync whatever is buffered;
//! sooner when appends wake it because the buffer holds
//! [`ASYNC_HANDOFF_BYTES`](super::writer::ASYNC_HANDOFF_BYTES), so a steady stream of
//! ASYNC_WAL writes reaches the OS in large writes on this thread, not the writers'.
//!
//! It waits on a condition variable with a timeout, so stopping it (close or drop of the
//! log) wakes it at once; it exits after a failed sync, since a poisoned log accepts nothing
//! more to sync.

use super::writer::GroupCommit;
use crate::error::{Error, Result};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;
use tracing::{debug, warn};

pub fn spawn(commit: Arc<GroupCommit>, interval: Duration) -> Result<JoinHandle<()>> {
    thread::Builder::new()
        .name("basalt-wal-sync".into())
        .spawn(move || run(&commit, interval))
        .map_err(|e| Error::io("starting the log syncer thread", e))
}

fn run(commit: &GroupCommit, interval: Duration) {
    debug!(?interval, "log syncer started");
    while commit.wait_tick(interval) {
        if let Err(e) = commit.commit_all() {
            warn!(error = %e, "background log sync failed; the syncer stops");
            return;
        }
    }
    debug!("log syncer stopped");
}
