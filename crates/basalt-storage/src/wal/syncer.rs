//! The background syncer behind ASYNC_WAL: every interval, sync whatever is buffered;
//! sooner when appends wake it because the buffer holds
//! [`ASYNC_HANDOFF_BYTES`](super::writer::ASYNC_HANDOFF_BYTES), so a steady stream of
//! ASYNC_WAL writes reaches the OS in large writes on this thread, not the writers'.
//!
//! It waits on a condition variable with a timeout, so stopping it (close or drop of the
//! log) wakes it at once. A batch refused for lack of space is tried again a whole interval
//! later (the records wait in the buffer); after any other failure it exits, since a
//! poisoned log accepts nothing more to sync.

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
    let mut backing_off = false;
    while commit.wait_tick(interval, backing_off) {
        match commit.commit_all() {
            Ok(()) => backing_off = false,
            Err(e) if e.is_no_space() => {
                debug!(error = %e, "background log sync refused: the disk is full; retrying");
                backing_off = true;
            }
            Err(e) => {
                warn!(error = %e, "background log sync failed; the syncer stops");
                return;
            }
        }
    }
    debug!("log syncer stopped");
}
