//! The engine's background threads: one flusher, one compactor.

use super::jobs::{CompactionWait, FlushJob};
use super::Registry;
use crate::context::Context;
use crate::region::Region;
use crate::{Error, Result};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

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
    while let Some(job) = ctx.jobs.next_flush() {
        let region = match job {
            FlushJob::Region(name) => regions.read().get(&name).cloned(),
            FlushJob::Largest => largest(regions),
        };
        if let Some(region) = region {
            if region.memstore_size_bytes() == 0 || region.poisoned().is_some() {
                continue;
            }
            if let Err(e) = region.flush() {
                tracing::error!(region = %region.info().name, error = %e, "background flush failed");
            }
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
    loop {
        let job = ctx.jobs.next_compaction(PERIODIC_CHECK);
        if job == CompactionWait::Stopping {
            return;
        }
        if let CompactionWait::Region(name) = job {
            let region = regions.read().get(&name).cloned();
            if let Some(region) = region {
                if let Err(e) = region.compact(false) {
                    tracing::error!(region = %name, error = %e, "background compaction failed");
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
                .cloned()
                .collect();
            for region in due {
                if let Err(e) = region.compact(true) {
                    tracing::error!(region = %region.info().name, error = %e, "periodic major compaction failed");
                }
            }
        }
    }
}
