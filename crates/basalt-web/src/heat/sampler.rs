//! The sampler: a thread that, every sample interval, reads every region's cumulative
//! counters from the process's source, records them in the ring, and logs each table's hot
//! spots (at most once per log interval per table). It waits on a channel, not a sleep:
//! dropping the [`Sampler`] stops it (after the sample under way, if any: it is not
//! waited for, as the sample may need the runtime the dropping thread runs on).

use super::metrics::findings;
use super::Heat;
use crate::layout::key;
use crate::server::AppState;
use crate::source::Source;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

/// The running sampler; dropping it stops the thread.
#[derive(Debug)]
pub struct Sampler {
    _stop: Sender<()>,
    _thread: JoinHandle<()>,
}

/// Starts sampling `source` into `heat`; `None` when sampling is off or the thread cannot
/// start (the log says so; the pages then show no heat).
pub(crate) fn start(state: Arc<AppState>) -> Option<Sampler> {
    let heat = state.heat.clone();
    if !heat.config.enabled {
        return None;
    }
    let interval = Duration::from_millis(heat.config.sample_interval_ms.max(100));
    let (stop, stopped) = mpsc::channel::<()>();
    let spawned = std::thread::Builder::new()
        .name("heat-sampler".to_string())
        .spawn(move || loop {
            sample(&heat, &state.source);
            match stopped.recv_timeout(interval) {
                Err(RecvTimeoutError::Timeout) => continue,
                _ => break,
            }
        });
    match spawned {
        Ok(thread) => Some(Sampler {
            _stop: stop,
            _thread: thread,
        }),
        Err(e) => {
            tracing::warn!(error = %e, "the heat sampler did not start: no heat map");
            None
        }
    }
}

/// One sample, then the log of what it shows.
pub fn sample(heat: &Heat, source: &Source) {
    let readings = match source.region_readings() {
        Ok(readings) => readings,
        Err(e) => {
            tracing::debug!(error = %e, "heat sample skipped");
            return;
        }
    };
    let now = SystemTime::now();
    heat.record(now, readings);
    for (table, found) in findings(heat) {
        if heat.may_log(&table.to_string(), now) {
            for f in &found {
                tracing::warn!(table = %table, cause = f.cause().name(), "hot spot: {}", f.describe(key));
            }
        }
    }
}
