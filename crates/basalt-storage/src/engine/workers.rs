//! The engine's background threads: one flusher, one compactor.
//!
//! A job that fails for lack of space is tried again later, on the `backoff` schedule; the
//! region's other requests meanwhile are skipped, so a full disk costs one attempt per
//! back-off period, not one per write. Writers beyond the memstore limit wait for the
//! flushes and then get the usual "too busy" error.

use super::backoff::Backoff;
use super::jobs::{CompactionWait, FlushJob};
use super::Registry;
use crate::context::Context;
use crate::region::Region;
use crate::{Error, Result};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the compactor looks for regions due a periodic major compaction.
const PERIODIC_CHECK: Duration = Duration::from_secs(1);

pub(super) fn spawn(ctx: &Context, regions: &Registry) -> Result<Vec<JoinHandle<()>>> {
    let flusher = {
        let (ctx, regions) = (ctx.clone(), regions.clone());
        std::thread::Builder::new()
            .name("basalt-flusher".into())
            .spawn(move || flush_loop(&ctx, &regions))
            .map_err(|e| Error::io("starting the flusher thread", e))?
    };
    let compactor = {
        let (ctx, regions) = (ctx.clone(), regions.clone());
        std::thread::Builder::new()
            .name("basalt-compactor".into())
            .spawn(move || compact_loop(&ctx, &regions))
            .map_err(|e| Error::io("starting the compactor thread", e))?
    };
    Ok(vec![flusher, compactor])
}

fn flush_loop(ctx: &Context, regions: &Registry) {
    let mut backoff = Backoff::new(Duration::from_millis(ctx.config.retry_backoff_max_ms));
    while let Some(job) = ctx.jobs.next_flush() {
        let region = match job {
            FlushJob::Region(name) => regions.read().get(&name).cloned(),
            FlushJob::Largest => largest(regions),
        };
        let Some(region) = region else {
            continue;
        };
        let name = &region.info().name;
        if region.memstore_size_bytes() == 0
            || region.poisoned().is_some()
            || backoff.waiting(name, Instant::now())
        {
            continue;
        }
        match region.flush() {
            Ok(_) => backoff.succeeded(name),
            Err(e) if e.is_no_space() => {
                let delay = backoff.failed(name, Instant::now());
                ctx.jobs.request_flush_after(name, delay);
                tracing::debug!(region = %name, ?delay, "flush failed on a full disk; trying again later");
            }
            Err(e) => tracing::error!(region = %name, error = %e, "background flush failed"),
        }
    }
}

fn largest(regions: &Registry) -> Option<Arc<Region>> {
    regions
        .read()
        .values()
        .max_by_key(|r| r.memstore_size_bytes())
        .cloned()
}

fn compact_loop(ctx: &Context, regions: &Registry) {
    let mut backoff = Backoff::new(Duration::from_millis(ctx.config.retry_backoff_max_ms));
    loop {
        let job = ctx.jobs.next_compaction(PERIODIC_CHECK);
        if job == CompactionWait::Stopping {
            return;
        }
        for name in backoff.due(Instant::now()) {
            ctx.jobs.request_compaction(&name);
        }
        if let CompactionWait::Region(name) = job {
            let region = regions.read().get(&name).cloned();
            if let Some(region) = region {
                if !backoff.waiting(&name, Instant::now()) {
                    compact(&region, false, &mut backoff);
                }
            }
        }
        let period_ms = ctx.config.major_compaction_period_ms;
        if period_ms > 0 {
            let now = ctx.clock.now_ms();
            let due: Vec<Arc<Region>> = regions
                .read()
                .values()
                .filter(|r| r.major_compaction_due(now, period_ms))
                .filter(|r| !backoff.waiting(&r.info().name, Instant::now()))
                .cloned()
                .collect();
            for region in due {
                compact(&region, true, &mut backoff);
            }
        }
    }
}

/// Compacts a region in the background, scheduling a retry after a full disk.
fn compact(region: &Region, major: bool, backoff: &mut Backoff) {
    let name = &region.info().name;
    match region.compact(major) {
        Ok(_) => backoff.succeeded(name),
        Err(e) if e.is_no_space() => {
            let delay = backoff.failed(name, Instant::now());
            tracing::warn!(region = %name, error = %e, ?delay,
                "compaction failed: the disk is full; its output was removed, trying again later");
        }
        // Closed (split, merged, moved or stopping) since the compaction was asked for.
        Err(crate::Error::Closed(_)) => {
            tracing::debug!(region = %name, major, "compaction skipped: the region closed")
        }
        Err(e) => {
            tracing::error!(region = %name, major, error = %e, "background compaction failed")
        }
    }
}
