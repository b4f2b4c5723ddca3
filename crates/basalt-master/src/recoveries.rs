//! Crash recoveries: a region server died holding regions; its recovery runs until every
//! one of them serves again elsewhere with the dead server's edits (no region is on it, or
//! names its log in `recover_from` without being open yet — what [`awaiting_service`]
//! counts; an open region may still name the log until it flushes the replayed edits).
//!
//! The master keeps the recoveries running and the last [`RECENT_MAX`] finished, with
//! their durations, and the count and total time of all finished since it became active:
//! the status carries them to the web UI and `/metrics` (a summary of the durations).
//!
//! | event | running | recent | finished_total |
//! |---|---|---|---|
//! | server A dies holding 3 regions | A | - | 0 |
//! | A dies again (a new master reconciles) | A (same start) | - | 0 |
//! | A's regions open elsewhere, logs replayed | - | A 2.1 s | 1 |

use crate::catalog::{AssignState, Assignment};
use crate::master::Master;
use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

/// Finished recoveries kept for the status.
pub const RECENT_MAX: usize = 20;

/// Milliseconds since the epoch now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// One dead server's recovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovery {
    pub server: String,
    /// Regions it held when it died.
    pub regions: usize,
    pub started: Instant,
    pub started_ms: i64,
    /// How long it took, once finished.
    pub took: Option<Duration>,
}

#[derive(Debug, Default)]
pub struct Recoveries {
    running: BTreeMap<String, Recovery>,
    /// Finished, newest first.
    recent: VecDeque<Recovery>,
    pub finished_total: u64,
    pub seconds_total: f64,
}

impl Recoveries {
    /// Server `server` died holding `regions`: its recovery starts at `now` (a recovery
    /// already running for it keeps its start).
    pub fn begin(&mut self, server: &str, regions: usize, now: Instant) {
        self.running
            .entry(server.to_string())
            .or_insert_with(|| Recovery {
                server: server.to_string(),
                regions,
                started: now,
                started_ms: now_ms(),
                took: None,
            });
    }

    /// Ends, at `now`, every running recovery whose server no region still needs
    /// (`still_needed` counts them); answers those ended.
    pub fn finish(&mut self, now: Instant, still_needed: impl Fn(&str) -> usize) -> Vec<Recovery> {
        let done: Vec<String> = self
            .running
            .keys()
            .filter(|server| still_needed(server) == 0)
            .cloned()
            .collect();
        let mut ended = Vec::new();
        for server in done {
            let Some(mut recovery) = self.running.remove(&server) else {
                continue;
            };
            let took = now.saturating_duration_since(recovery.started);
            recovery.took = Some(took);
            self.finished_total += 1;
            self.seconds_total += took.as_secs_f64();
            self.recent.push_front(recovery.clone());
            self.recent.truncate(RECENT_MAX);
            ended.push(recovery);
        }
        ended
    }

    /// Running recoveries, oldest first.
    pub fn running(&self) -> Vec<Recovery> {
        let mut out: Vec<Recovery> = self.running.values().cloned().collect();
        out.sort_by_key(|r| r.started);
        out
    }

    /// Finished recoveries, newest first.
    pub fn recent(&self) -> Vec<Recovery> {
        self.recent.iter().cloned().collect()
    }
}

/// How many regions still wait to serve after `server` died: on it, or naming its log
/// and not open yet. (A region open elsewhere that still names the log serves already;
/// it only waits for its flush: see [`crate::recovered_flush`].)
pub fn awaiting_service<'a>(
    assignments: impl IntoIterator<Item = &'a Assignment>,
    server: &str,
) -> usize {
    assignments
        .into_iter()
        .filter(|a| {
            a.server.as_deref() == Some(server)
                || (a.state != AssignState::Open && a.recover_from.iter().any(|s| s == server))
        })
        .count()
}

impl Master {
    /// Ends the recoveries that are done, logging each with its duration.
    pub fn finish_recoveries(&self) {
        let ended = {
            let catalog = self.catalog.read();
            self.recoveries.lock().finish(Instant::now(), |server| {
                awaiting_service(catalog.assign.values(), server)
            })
        };
        for r in ended {
            let took = r.took.unwrap_or_default();
            tracing::info!(
                server = %r.server,
                regions = r.regions,
                took_ms = u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
                "crash recovery done in {:.1} s",
                took.as_secs_f64()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recovery_runs_until_no_region_needs_the_dead_server() {
        let base = Instant::now();
        let mut r = Recoveries::default();
        r.begin("a", 3, base);
        r.begin("a", 3, base + Duration::from_secs(1));
        assert_eq!(r.running().len(), 1);
        assert!(r.finish(base + Duration::from_secs(1), |_| 2).is_empty());
        let ended = r.finish(base + Duration::from_millis(2100), |_| 0);
        assert_eq!(ended.len(), 1);
        assert_eq!(ended[0].took, Some(Duration::from_millis(2100)));
        assert!(r.running().is_empty());
        assert_eq!(r.finished_total, 1);
        assert!((r.seconds_total - 2.1).abs() < 1e-9);
        assert_eq!(r.recent()[0].server, "a");
    }

    #[test]
    fn a_region_open_elsewhere_serves_though_it_still_names_the_log() {
        let a = |server: &str, state: AssignState, logs: &[&str]| Assignment {
            server: Some(server.to_string()),
            state,
            recover_from: logs.iter().map(|s| s.to_string()).collect(),
            ..Assignment::default()
        };
        let assignments = [
            a("dead", AssignState::Open, &[]),
            a("new", AssignState::Opening, &["dead"]),
            a("new", AssignState::Open, &["dead"]),
            a("other", AssignState::Crashed, &["dead", "older"]),
        ];
        assert_eq!(awaiting_service(&assignments, "dead"), 3);
        assert_eq!(awaiting_service(&assignments[2..3], "dead"), 0);
        assert_eq!(awaiting_service(&assignments, "older"), 1);
    }

    #[test]
    fn only_the_last_recoveries_are_kept_newest_first() {
        let base = Instant::now();
        let mut r = Recoveries::default();
        for i in 0..(RECENT_MAX + 5) {
            r.begin(&format!("s{i}"), 1, base);
            r.finish(base + Duration::from_secs(i as u64), |_| 0);
        }
        let recent = r.recent();
        assert_eq!(recent.len(), RECENT_MAX);
        assert_eq!(recent[0].server, format!("s{}", RECENT_MAX + 4));
        assert_eq!(r.finished_total, (RECENT_MAX + 5) as u64);
    }
}
