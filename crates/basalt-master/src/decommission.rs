//! Decommissioned region servers (HBase's `decommission_regionservers`, its draining
//! servers): live servers that get no region any more — not for a new table, not after a
//! crash elsewhere, not from the balancer — and, when asked to offload, whose regions move
//! to the other servers the way a stopping server's do ([`Master::offload`]).
//!
//! Each mark is a coordinator key (`decommissioned/<server>`) written under the active
//! master's guard, and kept in memory apart from the server listing
//! ([`crate::servers::Servers`]), so neither a re-list nor a new master forgets it: a master
//! becoming active reads the marks ([`Master::load_decommissioned`]). A mark goes with
//! `recommission_regionserver`, or when its server leaves (a restarted server has a new
//! start code, so a new name).

use crate::master::Master;
use basalt_api::{ApiError, Result};
use basalt_coord::{layout, Op};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Whether the server name `candidate` (`host,port,startcode`) is the one `given` names:
/// the full name, `host,port`, `host:port` or `host` (every server on that host), as
/// HBase's shell accepts.
pub fn names(candidate: &str, given: &str) -> bool {
    let given = given.trim().trim_end_matches(',');
    if given.is_empty() {
        return false;
    }
    if candidate == given {
        return true;
    }
    let given = match given.rsplit_once(':') {
        Some((host, port)) if !given.contains(',') && port.parse::<u16>().is_ok() => {
            format!("{},{port}", host.trim_matches(['[', ']']))
        }
        _ => given.to_string(),
    };
    candidate.starts_with(&format!("{given},"))
}

/// The full names among `candidates` that `given` stand for, in order and once each; an
/// error naming every one that stands for none.
pub fn resolve(candidates: &[String], given: &[String]) -> Result<Vec<String>> {
    let mut found = Vec::new();
    let mut unknown = Vec::new();
    for name in given {
        let matched: Vec<&String> = candidates.iter().filter(|c| names(c, name)).collect();
        if matched.is_empty() {
            unknown.push(name.as_str());
        }
        for m in matched {
            if !found.contains(m) {
                found.push(m.clone());
            }
        }
    }
    if !unknown.is_empty() {
        return Err(ApiError::invalid(format!(
            "Could not find any live region server named {}",
            unknown.join(", ")
        )));
    }
    Ok(found)
}

/// Refuses to decommission `adding` when, with the servers `decommissioned` already, no
/// server of `taking` (the live servers that take regions now) would be left.
pub fn check_some_left(
    taking: &[String],
    decommissioned: &BTreeSet<String>,
    adding: &[String],
) -> Result<()> {
    let left = taking
        .iter()
        .any(|s| !decommissioned.contains(s) && !adding.contains(s));
    if left {
        return Ok(());
    }
    Err(crate::error::invalid_state(
        crate::error::DO_NOT_RETRY,
        format!(
            "cannot decommission {}: no other live region server would be left to take regions",
            adding.join(", ")
        ),
    ))
}

fn now_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

impl Master {
    /// `decommission_regionservers`: marks the servers (in the coordinator, then in
    /// memory), then with `offload` moves their regions away. Answers their full names.
    pub async fn decommission(
        self: &Arc<Self>,
        given: &[String],
        offload: bool,
    ) -> Result<Vec<String>> {
        self.require_active()?;
        if given.is_empty() {
            return Err(ApiError::invalid(
                "decommission_regionservers needs at least one region server",
            ));
        }
        let _procedure = self.procedures.lock().await;
        let live = self.servers.live();
        let names: Vec<String> = live.iter().map(|s| s.name.clone()).collect();
        let servers = resolve(&names, given)?;
        let taking: Vec<String> = live
            .iter()
            .filter(|s| s.accepting)
            .map(|s| s.name.clone())
            .collect();
        let marked: BTreeSet<String> = self.servers.decommissioned().into_iter().collect();
        check_some_left(&taking, &marked, &servers)?;
        let at = now_ms().to_string();
        let ops = servers
            .iter()
            .map(|s| Op::put(layout::decommissioned(s), at.clone()))
            .collect();
        self.commit(ops).await?;
        for server in &servers {
            self.servers.mark_decommissioned(server);
        }
        tracing::info!(servers = ?servers, offload, "decommissioned region servers");
        self.note_change();
        if offload {
            for server in &servers {
                if let Some(left) = self.offload(server).await? {
                    tracing::warn!(server = %server, regions = left.len(),
                        "no other region server takes regions: they stay on the decommissioned server");
                }
            }
        }
        Ok(servers)
    }

    /// `recommission_regionserver`: removes the mark of `given` (a live or marked server),
    /// then moves `regions` onto it.
    pub async fn recommission(self: &Arc<Self>, given: &str, regions: &[String]) -> Result<()> {
        self.require_active()?;
        let server = {
            let _procedure = self.procedures.lock().await;
            let mut candidates: Vec<String> =
                self.servers.live().into_iter().map(|s| s.name).collect();
            candidates.extend(self.servers.decommissioned());
            let found = resolve(&candidates, &[given.to_string()])?;
            let [server] = found.as_slice() else {
                return Err(ApiError::invalid(format!(
                    "{given} names {} region servers ({}): name one",
                    found.len(),
                    found.join(", ")
                )));
            };
            let server = server.clone();
            if self.servers.is_decommissioned(&server) {
                self.commit(vec![Op::delete(layout::decommissioned(&server))])
                    .await?;
                self.servers.unmark_decommissioned(&server);
                tracing::info!(server = %server, "recommissioned a region server");
                self.note_change();
            } else {
                tracing::info!(server = %server, "recommission: the region server was not decommissioned");
            }
            server
        };
        for region in regions {
            self.move_region(region, Some(&server)).await?;
        }
        Ok(())
    }

    /// Reads the marks a previous master left, before this master answers as active.
    /// Returns the marks of servers no longer live (they left while no master watched),
    /// for [`Master::forget_marks_of_servers_that_left`] once active.
    pub async fn load_decommissioned(&self) -> Result<Vec<String>> {
        let listing = self
            .coord
            .list(layout::DECOMMISSIONED.as_bytes())
            .await
            .map_err(|e| crate::error::coordinator(&e))?;
        let (live, gone): (Vec<String>, Vec<String>) = listing
            .kvs
            .iter()
            .filter_map(|kv| layout::name_under(&kv.key, layout::DECOMMISSIONED))
            .map(str::to_string)
            .partition(|name| self.servers.is_live(name));
        if !live.is_empty() {
            tracing::info!(servers = ?live, "decommissioned region servers");
        }
        self.servers.set_decommissioned(live);
        Ok(gone)
    }

    /// Removes the marks of servers that left (a restart is a new server name).
    pub async fn forget_marks_of_servers_that_left(&self, gone: Vec<String>) -> Result<()> {
        if gone.is_empty() {
            return Ok(());
        }
        tracing::info!(servers = ?gone, "forgetting the decommission marks of servers that left");
        let ops = gone
            .iter()
            .map(|s| Op::delete(layout::decommissioned(s)))
            .collect();
        self.commit(ops).await
    }

    /// A decommissioned server left: its mark goes (a restart is a new server name).
    pub async fn forget_decommissioned(self: &Arc<Self>, server: &str) {
        let _procedure = self.procedures.lock().await;
        if !self.servers.unmark_decommissioned(server) {
            return;
        }
        tracing::info!(server, "a decommissioned region server left: its mark goes");
        if let Err(e) = self
            .commit(vec![Op::delete(layout::decommissioned(server))])
            .await
        {
            tracing::warn!(server, error = %e, "could not remove a decommission mark: the next master removes it");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planner::{self, ClusterView, Decision, RegionView, ServerView};

    fn s(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn a_server_is_named_by_its_full_name_host_and_port_or_host() {
        let full = "127.0.0.2,16020,1700000000000";
        for given in [
            full,
            "127.0.0.2,16020",
            "127.0.0.2,16020,",
            "127.0.0.2:16020",
            "127.0.0.2",
        ] {
            assert!(names(full, given), "{given}");
        }
        for given in [
            "127.0.0.2,1602",
            "127.0.0.3",
            "127.0.0.2:16021",
            "",
            "127.0.0",
        ] {
            assert!(!names(full, given), "{given}");
        }
    }

    #[test]
    fn unknown_names_are_all_named_in_the_error() {
        let live = s(&["a,1,1", "b,1,1"]);
        assert_eq!(
            resolve(&live, &s(&["b", "a:1", "b,1,1"])).expect("known"),
            s(&["b,1,1", "a,1,1"])
        );
        let e = resolve(&live, &s(&["a", "c,1,1", "d"])).expect_err("unknown");
        assert!(e.message.contains("c,1,1, d"), "{e}");
    }

    #[test]
    fn decommissioning_every_server_that_takes_regions_is_refused() {
        let taking = s(&["a,1,1", "b,1,1", "c,1,1"]);
        let marked: BTreeSet<String> = s(&["a,1,1"]).into_iter().collect();
        assert!(check_some_left(&taking, &marked, &s(&["b,1,1"])).is_ok());
        let e = check_some_left(&taking, &marked, &s(&["b,1,1", "c,1,1"])).expect_err("all");
        assert!(e.exception.ends_with("DoNotRetryIOException"), "{e}");
        assert!(e.message.contains("b,1,1, c,1,1"), "{e}");
        assert!(check_some_left(&taking, &BTreeSet::new(), &taking).is_err());
    }

    /// The master's view counts a decommissioned server as not accepting: the planner
    /// places no region there and drains it onto the others.
    #[test]
    fn the_planner_gives_a_server_that_takes_no_regions_nothing_and_drains_it() {
        let view = ClusterView {
            servers: vec![
                ServerView {
                    name: "a".into(),
                    accepting: false,
                    requests: 0,
                },
                ServerView {
                    name: "b".into(),
                    accepting: true,
                    requests: 0,
                },
            ],
            regions: (0..6)
                .map(|i| RegionView {
                    encoded: format!("r{i}"),
                    table: "t".into(),
                    server: (i < 3).then(|| "a".to_string()),
                    requests: 0,
                })
                .collect(),
        };
        let placed = planner::assign(&view);
        assert_eq!(placed.len(), 6, "{placed:?}");
        assert!(placed.iter().all(|d| d.target() == "b"), "{placed:?}");
        assert!(placed
            .iter()
            .any(|d| matches!(d, Decision::Move { from, .. } if from == "a")));
        let drained = planner::drain(&view, "a");
        assert_eq!(drained.len(), 3);
        assert!(drained.iter().all(|d| d.target() == "b"));
    }
}
