//! `clear_deadservers`: forgetting dead region servers (what `list_deadservers` shows).
//!
//! A dead server stays listed while its crash recovery is in progress — a region still on
//! it, or naming its log in `recover_from` and not open yet (it reads that log before it
//! serves; an open region that names it only waits for its flush) — as HBase keeps a
//! server whose crash procedure runs: clearing it is refused, with the reason.
//! A name that is not a dead server is refused too. The list is the master's, in memory.

use crate::catalog::Assignment;
use crate::master::Master;
use basalt_api::{ClearedDeadServers, Result};
use std::sync::Arc;

/// How many regions still need `server`'s crash recovered: on it, or reading its log first.
pub fn recovering<'a>(
    assignments: impl IntoIterator<Item = &'a Assignment>,
    server: &str,
) -> usize {
    assignments
        .into_iter()
        .filter(|a| {
            a.server.as_deref() == Some(server) || a.recover_from.iter().any(|s| s == server)
        })
        .count()
}

/// Which of `asked` (every dead server when empty) may be cleared: dead, with no region
/// `recovering` (counted by the closure).
pub fn plan(
    dead: &[String],
    asked: &[String],
    recovering: impl Fn(&str) -> usize,
) -> ClearedDeadServers {
    let mut out = ClearedDeadServers::default();
    let mut names: Vec<String> = Vec::new();
    if asked.is_empty() {
        names.extend(dead.iter().cloned());
    }
    for given in asked {
        let matched: Vec<&String> = dead
            .iter()
            .filter(|d| crate::decommission::names(d, given))
            .collect();
        if matched.is_empty() {
            out.refused
                .push((given.clone(), "it is not a dead region server".to_string()));
        }
        names.extend(matched.into_iter().cloned());
    }
    names.dedup();
    for name in names {
        if out.cleared.contains(&name) || out.refused.iter().any(|(n, _)| n == &name) {
            continue;
        }
        match recovering(&name) {
            0 => out.cleared.push(name),
            n => out.refused.push((
                name,
                format!("its crash recovery is in progress: {n} region(s) still read its log"),
            )),
        }
    }
    out
}

impl Master {
    /// Clears `asked` (every dead server when empty) from the dead list, as [`plan`] says.
    pub async fn clear_dead_servers(
        self: &Arc<Self>,
        asked: &[String],
    ) -> Result<ClearedDeadServers> {
        self.require_active()?;
        // Not while a dead server's regions are being recorded (`server_died`).
        let _procedure = self.procedures.lock().await;
        let dead = self.servers.dead();
        let outcome = {
            let catalog = self.catalog.read();
            plan(&dead, asked, |s| {
                crate::recoveries::awaiting_service(catalog.assign.values(), s)
            })
        };
        self.servers.clear_dead(&outcome.cleared);
        tracing::info!(cleared = ?outcome.cleared, refused = ?outcome.refused, "clear_deadservers");
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::AssignState;

    fn s(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    fn assignment(server: Option<&str>, recover_from: &[&str]) -> Assignment {
        Assignment {
            server: server.map(str::to_string),
            open_seq: 1,
            state: AssignState::Crashed,
            failure: None,
            recover_from: s(recover_from),
        }
    }

    #[test]
    fn a_server_still_named_by_a_region_is_recovering() {
        let assignments = [
            assignment(Some("a,1,1"), &["a,1,1"]),
            assignment(Some("c,1,1"), &["b,1,1", "a,1,1"]),
            assignment(None, &[]),
        ];
        assert_eq!(recovering(&assignments, "a,1,1"), 2);
        assert_eq!(recovering(&assignments, "b,1,1"), 1);
        assert_eq!(recovering(&assignments, "d,1,1"), 0);
    }

    #[test]
    fn only_dead_servers_done_recovering_are_cleared() {
        let dead = s(&["a,1,1", "b,1,1", "c,1,1"]);
        let busy = |name: &str| usize::from(name == "b,1,1") * 3;
        let all = plan(&dead, &[], busy);
        assert_eq!(all.cleared, s(&["a,1,1", "c,1,1"]));
        assert_eq!(all.refused.len(), 1);
        assert_eq!(all.refused[0].0, "b,1,1");
        assert!(
            all.refused[0].1.contains("3 region(s)"),
            "{:?}",
            all.refused
        );

        let some = plan(&dead, &s(&["c", "x,1,1", "c,1,1"]), busy);
        assert_eq!(some.cleared, s(&["c,1,1"]));
        assert_eq!(
            some.refused,
            vec![(
                "x,1,1".to_string(),
                "it is not a dead region server".to_string()
            )]
        );
    }
}
