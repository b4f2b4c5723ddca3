//! The background thread that splits regions grown past the stepping policy's threshold,
//! and regions of load-split tables that stayed hot at their load median ([`super::load`]),
//! and runs the janitor and the cleaner of expired snapshots.

use super::policy::split_threshold_bytes;
use crate::database::Database;
use basalt_api::load_split::LoadSplitTracker;
use parking_lot::{Condvar, Mutex};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

/// Stops the checker thread when dropped or asked.
#[derive(Debug)]
pub struct Checker {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

fn is_current(thread: &JoinHandle<()>) -> bool {
    thread.thread().id() == std::thread::current().id()
}

impl Checker {
    pub fn start(db: Weak<Database>, interval: Duration) -> std::io::Result<Self> {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let signal = stop.clone();
        let thread = std::thread::Builder::new()
            .name("basalt-split-checker".into())
            .spawn(move || {
                // Each region's writes at the previous pass and its hot streak.
                let mut tracker = LoadSplitTracker::default();
                loop {
                    {
                        let mut stopped = signal.0.lock();
                        if !*stopped {
                            signal.1.wait_for(&mut stopped, interval);
                        }
                        if *stopped {
                            return;
                        }
                    }
                    let Some(db) = db.upgrade() else { return };
                    check(&db, &mut tracker);
                }
            })?;
        Ok(Self {
            stop,
            thread: Mutex::new(Some(thread)),
        })
    }

    pub fn stop(&self) {
        *self.stop.0.lock() = true;
        self.stop.1.notify_all();
        let thread = self.thread.lock().take();
        // The checker itself may drop the last reference to the database: it then ends on
        // its own after this pass, and must not wait for itself.
        if let Some(thread) = thread.filter(|t| !is_current(t)) {
            if thread.join().is_err() {
                tracing::error!("the split checker panicked");
            }
        }
    }
}

impl Drop for Checker {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One pass: split what is too big, and what stayed hot at its load median, then clean up
/// parents.
pub fn check(db: &Database, tracker: &mut LoadSplitTracker) {
    let candidates: Vec<(basalt_types::TableName, bytes::Bytes)> = {
        let catalog = db.catalog.read();
        catalog
            .tables
            .values()
            .filter(|t| t.enabled && t.descriptor.split_enabled && !t.descriptor.name.is_system())
            // A bulk load writes files for the regions it found; they split after it.
            .filter(|t| !db.bulk_load_running(&t.descriptor.name))
            .flat_map(|t| {
                let flush = t
                    .descriptor
                    .memstore_flush_size_bytes
                    .min(db.config.storage.memstore_flush_size_bytes);
                let threshold = split_threshold_bytes(&t.descriptor, flush, t.regions.len());
                t.regions
                    .values()
                    .filter(move |e| {
                        e.region.as_ref().is_some_and(|r| {
                            r.metrics().store_file_bytes > threshold && !r.has_references()
                        })
                    })
                    .map(|e| (t.descriptor.name.clone(), e.record.start_key.clone()))
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let sized = candidates.clone();
    for (table, start) in candidates {
        if let Err(e) = super::split_region(db, &table, &start, None) {
            tracing::warn!(%table, error = %e, "automatic split failed");
        }
    }
    for (table, start, key) in super::load::candidates(db, tracker) {
        if sized.contains(&(table.clone(), start.clone())) {
            continue;
        }
        match super::split_region(db, &table, &start, Some(key.clone())) {
            Ok(true) => {
                tracing::info!(%table, split_key = ?key, "split for its load at its load median")
            }
            Ok(false) => {}
            Err(e) => tracing::warn!(%table, error = %e, "load-based split failed"),
        }
    }
    if let Err(e) = super::janitor::run(db) {
        tracing::warn!(error = %e, "catalog janitor failed");
    }
    if let Err(e) = crate::snapshot::expire_kept_logs(db) {
        tracing::warn!(error = %e, "kept logs' expiry failed");
    }
    if let Err(e) = crate::snapshot::expire(db) {
        tracing::warn!(error = %e, "snapshot cleaner failed");
    }
}
