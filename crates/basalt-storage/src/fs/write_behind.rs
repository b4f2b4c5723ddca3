//! Write-behind for large files: a helper thread runs `fdatasync` on the file while its
//! writer goes on writing, so the disk works while the writer computes and the final sync
//! finds little left to do (RocksDB's SST writer gets the same effect from `fadvise`).
//!
//! The helper syncs through its own handle on the same open file. Linux reports a
//! writeback error to one sync of an open file only, so an error the helper meets is kept,
//! and [`WriteBehind::finish`] stops the helper and hands it to the writer before its own
//! final sync.

use parking_lot::{Condvar, Mutex};
use std::fs::File;
use std::io;
use std::sync::Arc;
use std::thread::JoinHandle;

#[derive(Debug, Default)]
struct State {
    /// A sync was asked for and has not started yet.
    requested: bool,
    stop: bool,
    /// The first error a background sync met.
    error: Option<io::Error>,
}

#[derive(Debug, Default)]
struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

/// The helper thread of one file; stops (after a sync under way) when dropped.
#[derive(Debug)]
pub(crate) struct WriteBehind {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl WriteBehind {
    /// Starts a helper syncing `file` (a second handle on the writer's file) on request.
    pub(crate) fn start(file: File) -> io::Result<Self> {
        let shared = Arc::new(Shared::default());
        let helper = shared.clone();
        let thread = std::thread::Builder::new()
            .name("basalt-write-behind".into())
            .spawn(move || run(&helper, &file))?;
        Ok(Self {
            shared,
            thread: Some(thread),
        })
    }

    /// Asks for a sync of everything written so far; returns at once (requests made while
    /// one is waiting to start are one request).
    pub(crate) fn request(&self) {
        self.shared.state.lock().requested = true;
        self.shared.wake.notify_one();
    }

    /// Stops the helper (after the sync under way) and returns the first error its syncs
    /// met: the writer's own sync that follows then races with none.
    pub(crate) fn finish(mut self) -> Option<io::Error> {
        self.stop();
        self.shared.state.lock().error.take()
    }

    fn stop(&mut self) {
        self.shared.state.lock().stop = true;
        self.shared.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            if thread.join().is_err() {
                tracing::error!("a write-behind thread panicked");
            }
        }
    }
}

fn run(shared: &Shared, file: &File) {
    loop {
        {
            let mut state = shared.state.lock();
            while !state.requested && !state.stop {
                shared.wake.wait(&mut state);
            }
            if state.stop {
                return;
            }
            state.requested = false;
        }
        if let Err(e) = file.sync_data() {
            shared.state.lock().error.get_or_insert(e);
        }
    }
}

impl Drop for WriteBehind {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::{FileSystem, LocalFs};

    #[test]
    fn a_file_synced_behind_its_writer_reads_back_whole() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("f");
        let mut file = LocalFs.create(&path).expect("create");
        let chunk = vec![7u8; 256 * 1024];
        for _ in 0..8 {
            file.write_all(&chunk).expect("write");
            file.start_sync().expect("sync behind");
        }
        file.sync_data().expect("final sync");
        // Writing and syncing again after the final sync starts a new helper.
        file.write_all(&chunk).expect("write");
        file.start_sync().expect("sync behind");
        file.sync_data().expect("final sync");
        drop(file);
        let bytes = std::fs::read(&path).expect("read");
        assert_eq!(bytes.len(), 9 * chunk.len());
        assert!(bytes.iter().all(|&b| b == 7));
    }

    #[test]
    fn the_helper_reports_nothing_when_all_went_well_and_stops_on_drop() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = File::create(dir.path().join("f")).expect("create");
        let helper = WriteBehind::start(file.try_clone().expect("clone")).expect("start");
        for _ in 0..3 {
            helper.request();
        }
        assert!(helper.finish().is_none());
        let helper = WriteBehind::start(file).expect("start");
        helper.request();
        drop(helper);
    }
}
