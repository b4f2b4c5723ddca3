//! Helpers for the durable coordinator's tests: a folder, puts, the whole state, and a
//! log capture for what opening reports.
#![allow(dead_code, reason = "each test binary uses part of the helpers")]

use basalt_coord::{Coordinator, KeyValue, LocalCoordinator, Op, Txn};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub fn journal(dir: &Path) -> PathBuf {
    dir.join("journal")
}

pub fn snapshot(dir: &Path) -> PathBuf {
    dir.join("snapshot")
}

pub fn open(dir: &Path) -> LocalCoordinator {
    open_with(dir, basalt_coord::DurableOptions::default())
}

/// Opens `dir` again after a close. A sibling test of this binary spawning a process
/// (etcd) holds a copy of the folder's lock between its fork and its exec, so "in use" is
/// waited out for a few seconds.
pub fn open_with(dir: &Path, options: basalt_coord::DurableOptions) -> LocalCoordinator {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        match LocalCoordinator::open_with(dir, options) {
            Ok(coordinator) => return coordinator,
            Err(e) if e.to_string().contains("in use") && std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => panic!("the folder opens: {e}"),
        }
    }
}

/// Puts `key` = `value`; the revision it took.
pub async fn put(coord: &dyn Coordinator, key: &str, value: &str) -> i64 {
    let txn = Txn {
        success: vec![Op::put(key, value)],
        ..Txn::default()
    };
    coord.txn(txn).await.expect("put").revision
}

/// Every key and the revision, the whole observable state.
pub async fn state(coord: &dyn Coordinator) -> (Vec<KeyValue>, i64) {
    let listing = coord.list(b"").await.expect("list");
    (listing.kvs, listing.revision)
}

#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .expect("not poisoned")
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `run` with logs captured; its result and the log text.
pub fn with_logs<R>(run: impl FnOnce() -> R) -> (R, String) {
    let buffer = Buffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let result = tracing::subscriber::with_default(subscriber, run);
    let text = String::from_utf8_lossy(&buffer.0.lock().expect("not poisoned")).into_owned();
    (result, text)
}
