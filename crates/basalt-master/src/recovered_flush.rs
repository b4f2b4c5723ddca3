//! Regions that serve before their recovered edits are flushed.
//!
//! A region reopened after its server died replays that server's log and, by default,
//! serves at once; its new server flushes the replayed edits right after (see
//! `basalt_storage::Engine::open_region`). Until that flush, the dead log is the only
//! durable copy of those edits, so the region's assignment keeps naming it in
//! `recover_from`: if the new server dies too, the next open reads both logs.
//!
//! The servers' reports list the regions still holding such edits
//! (`ServerReport.holding_recovered_edits`). A region open where the report came from, not
//! listed, and still naming logs has flushed them: its `recover_from` is cleared (one
//! catalog commit), and a log no region names any more moves to the archive
//! ([`crate::dead_logs`]). This runs right after a recovery opened such regions — once a
//! second on the new server's report, until none is left — and in every split-check pass,
//! which also catches what a master that took over inherited.
//!
//! | report lists region | assignment | action |
//! |---|---|---|
//! | yes | open there, names logs | none: still needed |
//! | no | open there, names logs | clear `recover_from`, archive logs named by nobody |
//! | no | open elsewhere, or not open | none: not this report's to judge |

use crate::catalog::{AssignState, Assignment};
use crate::master::Master;
use basalt_proto::pb;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

/// How often the master asks a server that opened recovered regions whether they flushed.
const FOLLOW_PERIOD: Duration = Duration::from_secs(1);
/// How many times it asks before leaving them to the periodic pass.
const FOLLOW_TRIES: usize = 120;

/// The regions whose logs `report` (from `server`) shows to be flushed: open on that
/// server, naming logs, and not among those it still holds. A pure decision.
pub fn flushed<'a>(
    server: &str,
    report: &pb::ServerReport,
    assignment: impl Fn(&str) -> Option<&'a Assignment>,
) -> Vec<String> {
    let holding: BTreeSet<&str> = report
        .holding_recovered_edits
        .iter()
        .map(String::as_str)
        .collect();
    report
        .regions
        .iter()
        .map(|r| r.encoded_name.as_str())
        .filter(|name| !holding.contains(name))
        .filter(|name| {
            assignment(name).is_some_and(|a| {
                a.state == AssignState::Open
                    && a.server.as_deref() == Some(server)
                    && !a.recover_from.is_empty()
            })
        })
        .map(str::to_string)
        .collect()
}

impl Master {
    /// Clears `recover_from` of the regions the reports show flushed, then archives the
    /// logs no region names any more. Answers how many regions still hold recovered edits
    /// in these reports.
    pub async fn release_flushed_recoveries(
        self: &Arc<Self>,
        reports: &BTreeMap<String, pb::ServerReport>,
    ) -> usize {
        let holding = reports
            .values()
            .map(|r| r.holding_recovered_edits.len())
            .sum();
        let _procedure = self.procedures.lock().await;
        let (ops, updated, released) = {
            let catalog = self.catalog.read();
            let (mut ops, mut updated, mut released) = (Vec::new(), Vec::new(), BTreeSet::new());
            for (server, report) in reports {
                for name in flushed(server, report, |n| catalog.assign.get(n)) {
                    let mut a = catalog.assignment(&name);
                    released.extend(a.recover_from.drain(..));
                    ops.push(crate::catalog::ops::put_assignment(&name, &a));
                    updated.push((name, a));
                }
            }
            (ops, updated, released)
        };
        if ops.is_empty() {
            return holding;
        }
        if let Err(e) = self.commit(ops).await {
            tracing::warn!(error = %e, "could not clear flushed regions' recovered logs (tried again later)");
            return holding;
        }
        {
            let mut catalog = self.catalog.write();
            for (name, a) in updated {
                catalog.assign.insert(name, a);
            }
        }
        tracing::info!(
            regions = released.len(),
            "recovered edits flushed: their dead logs no longer needed by those regions"
        );
        self.archive_recovered_logs(released).await;
        holding
    }

    /// Asks `server` once a second whether the recovered regions it opened flushed their
    /// edits, releasing their logs as they do, until none is left (or it stops answering;
    /// the split-check pass then takes over).
    pub fn follow_recovered_flushes(self: &Arc<Self>, server: String) {
        let master = self.clone();
        tokio::spawn(async move {
            for _ in 0..FOLLOW_TRIES {
                tokio::time::sleep(FOLLOW_PERIOD).await;
                if !master.is_active() || !master.servers.is_live(&server) {
                    return;
                }
                let call = master.hosts.server_report(&master.servers, &server);
                let Ok(Ok(report)) =
                    tokio::time::timeout(crate::regions::REPORT_TIMEOUT, call).await
                else {
                    continue;
                };
                let reports = BTreeMap::from([(server.clone(), report)]);
                if master.release_flushed_recoveries(&reports).await == 0 {
                    return;
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(regions: &[&str], holding: &[&str]) -> pb::ServerReport {
        pb::ServerReport {
            regions: regions
                .iter()
                .map(|r| pb::RegionReport {
                    encoded_name: r.to_string(),
                    ..Default::default()
                })
                .collect(),
            holding_recovered_edits: holding.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    fn assignment(server: &str, state: AssignState, logs: &[&str]) -> Assignment {
        Assignment {
            server: Some(server.to_string()),
            state,
            recover_from: logs.iter().map(|s| s.to_string()).collect(),
            ..Assignment::default()
        }
    }

    #[test]
    fn only_regions_open_there_that_flushed_release_their_logs() {
        let catalog: BTreeMap<&str, Assignment> = BTreeMap::from([
            ("flushed", assignment("s1", AssignState::Open, &["dead"])),
            ("holding", assignment("s1", AssignState::Open, &["dead"])),
            ("moved", assignment("s2", AssignState::Open, &["dead"])),
            ("opening", assignment("s1", AssignState::Opening, &["dead"])),
            ("clean", assignment("s1", AssignState::Open, &[])),
        ]);
        let r = report(
            &["flushed", "holding", "moved", "opening", "clean"],
            &["holding"],
        );
        let got = flushed("s1", &r, |n| catalog.get(n));
        assert_eq!(got, vec!["flushed".to_string()]);
    }
}
