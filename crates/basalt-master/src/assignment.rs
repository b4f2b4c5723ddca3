//! Regions onto servers: open, close, move, assign, balance and drain, each decision made
//! by the pure [`crate::planner`] and carried out here.
//!
//! An open is: the assignment `OPENING` on the chosen server with the next open sequence
//! (committed), the server's `OpenRegion`, then `OPEN` (or `FAILED_OPEN`) committed. A close
//! is the server's `CloseRegion` (it flushes), then `OFFLINE` committed. A move is a close
//! then an open elsewhere: no data is copied, every file is on the shared store.
//!
//! `unassign` leaves a region `CLOSED`: as in HBase, neither the balancer, a joining
//! server nor a new master opens it again; only `assign` or enabling its table does. The
//! balancer switch (`balance_switch`) is kept in the coordinator, so a new master honours
//! it too.

use crate::catalog::{AssignState, Assignment};
use crate::master::Master;
use crate::planner::{self, ClusterView, Decision, RegionView, ServerView};
use basalt_api::{ApiError, Result};
use basalt_db::meta::codec;
use basalt_db::meta::record::RegionRecord;
use basalt_proto::pb;
use std::sync::Arc;
use tokio::task::JoinSet;

impl Master {
    /// The planner's view: live servers and every serving region of enabled tables.
    pub fn view(&self) -> ClusterView {
        let catalog = self.catalog.read();
        let servers = self
            .servers
            .live()
            .into_iter()
            .map(|s| ServerView {
                accepting: self.servers.takes_regions(&s),
                name: s.name,
                requests: 0,
            })
            .collect();
        let regions = catalog
            .regions
            .values()
            .filter(|r| r.is_serving())
            .filter(|r| catalog.tables.get(&r.table).is_some_and(|t| t.enabled))
            // One closed on purpose waits for `assign`: the planner never places it. One
            // whose server died is placed like any unplaced region: its open carries the
            // dead servers' logs to read first (`recover_from`).
            .filter_map(|r| {
                // Looked up once and not cloned: this runs over every region of the cluster.
                let a = catalog.assign.get(&r.encoded_name);
                let state = a.map_or(AssignState::Offline, |a| a.state);
                let server = match state {
                    AssignState::Closed => return None,
                    AssignState::Open | AssignState::Opening => a.and_then(|a| a.server.clone()),
                    _ => None,
                };
                Some(RegionView {
                    encoded: r.encoded_name.clone(),
                    table: r.table.to_string(),
                    server,
                    requests: 0,
                })
            })
            .collect();
        ClusterView { servers, regions }
    }

    /// Opens each region on its server, in parallel; returns the first failure (the other
    /// regions still open, and a failed one is FAILED_OPEN; one whose server could not be
    /// reached stays OPENING and is sent again, see [`crate::reopen`]). Dead servers' logs
    /// the regions must read are sealed first, and split per region when
    /// [`crate::log_split`] says so.
    pub async fn open_on(self: &Arc<Self>, placements: Vec<(String, String)>) -> Result<()> {
        let mut opening = Vec::new();
        let mut ops = Vec::new();
        {
            let catalog = self.catalog.read();
            for (encoded, server) in placements {
                let record = catalog.find(&encoded)?.clone();
                let descriptor = catalog.table(&record.table)?.descriptor.clone();
                let previous = catalog.assignment(&encoded);
                let recover_from =
                    with_unclean_holder(previous.clone(), &server, |s| self.servers.is_live(s));
                let assignment = Assignment {
                    server: Some(server.clone()),
                    open_seq: previous.open_seq + 1,
                    state: AssignState::Opening,
                    failure: None,
                    recover_from,
                };
                ops.push(crate::catalog::ops::put_assignment(&encoded, &assignment));
                opening.push((record, descriptor, server, assignment));
            }
        }
        let dead_logs: std::collections::BTreeSet<String> = opening
            .iter()
            .flat_map(|(_, _, _, a)| a.recover_from.iter().cloned())
            .collect();
        self.seal_logs_of(dead_logs.clone()).await?;
        self.split_logs_of(dead_logs).await;
        self.commit(ops).await?;
        crate::procs::crash_point("assign.opening");
        for (record, _, server, assignment) in &opening {
            self.catalog
                .write()
                .assign
                .insert(record.encoded_name.clone(), assignment.clone());
            self.begin_transition(&record.encoded_name, "OPENING", server);
        }
        let mut tasks = JoinSet::new();
        for (record, descriptor, server, assignment) in opening {
            let master = self.clone();
            tasks.spawn(async move {
                let request = pb::OpenRegionRequest {
                    record: codec::encode_region(&record).into(),
                    descriptor: codec::encode_table(&descriptor).into(),
                    open_seq: assignment.open_seq,
                    recover_logs: assignment.recover_from.clone(),
                };
                let result = match master.require_active() {
                    Ok(()) => {
                        master
                            .hosts
                            .open_region(&master.servers, &server, request)
                            .await
                    }
                    Err(e) => Err(e),
                };
                (record, server, assignment, result)
            });
        }
        let mut ops = Vec::new();
        let mut first_error = None;
        let mut done = Vec::new();
        let mut recovered = std::collections::BTreeSet::new();
        let mut follow = std::collections::BTreeSet::new();
        while let Some(joined) = tasks.join_next().await {
            let Ok((record, server, mut assignment, result)) = joined else {
                continue;
            };
            match result {
                // Never reached the server (it died, or the network failed): the region
                // stays OPENING there and is driven again, or taken by that server's crash
                // recovery; not FAILED_OPEN, which clients take as final.
                Err(e) if crate::reopen::unreachable(&e) => {
                    tracing::warn!(region = %record.region_name(), server = %server, error = %e,
                        "could not reach the server to open the region: trying again");
                    self.unreachable_opens
                        .lock()
                        .note(&record.encoded_name, &server);
                    continue;
                }
                Ok(opened) => {
                    self.unreachable_opens.lock().forget(&record.encoded_name);
                    assignment.state = AssignState::Open;
                    // The dead servers' edits are in the region's files now — unless a
                    // full disk kept them in memory: then their logs are still named.
                    if !opened.recover_logs_needed {
                        recovered.extend(assignment.recover_from.drain(..));
                    } else {
                        follow.insert(server.clone());
                    }
                }
                Err(e) => {
                    tracing::error!(region = %record.region_name(), server = %server, error = %e, "region FAILED_OPEN");
                    assignment.state = AssignState::FailedOpen;
                    assignment.failure = Some(e.message.clone());
                    first_error.get_or_insert(e);
                }
            }
            ops.push(crate::catalog::ops::put_assignment(
                &record.encoded_name,
                &assignment,
            ));
            done.push((record.encoded_name, assignment));
        }
        self.commit(ops).await?;
        {
            let mut catalog = self.catalog.write();
            for (encoded, assignment) in done {
                self.end_transition(&encoded);
                catalog.assign.insert(encoded, assignment);
            }
        }
        if !recovered.is_empty() {
            self.archive_recovered_logs(recovered).await;
        }
        for server in follow {
            self.follow_recovered_flushes(server);
        }
        self.finish_recoveries();
        first_error.map_or(Ok(()), Err)
    }

    /// Closes regions where they are open (each server flushes them), in parallel; they
    /// are then OFFLINE.
    pub async fn close(self: &Arc<Self>, regions: Vec<String>) -> Result<()> {
        self.close_to(regions, AssignState::Offline).await
    }

    /// As [`Master::close`], leaving the regions in `state` (OFFLINE, or CLOSED on purpose).
    pub async fn close_to(
        self: &Arc<Self>,
        regions: Vec<String>,
        state: AssignState,
    ) -> Result<()> {
        let mut tasks = JoinSet::new();
        for encoded in regions {
            let assignment = self.catalog.read().assignment(&encoded);
            if assignment.state == AssignState::Crashed {
                // Its edits are in a dead server's log: it stays CRASHED until replayed.
                continue;
            }
            let Some(server) = assignment.server.clone() else {
                continue;
            };
            self.begin_transition(&encoded, "CLOSING", &server);
            let master = self.clone();
            tasks.spawn(async move {
                let result = async {
                    if !master.servers.is_live(&server) {
                        return Ok(());
                    }
                    master.require_active()?;
                    master
                        .hosts
                        .close_region(&master.servers, &server, &encoded)
                        .await
                }
                .await;
                (encoded, assignment, result)
            });
        }
        let mut ops = Vec::new();
        let mut closed = Vec::new();
        let mut first_error = None;
        while let Some(joined) = tasks.join_next().await {
            let Ok((encoded, assignment, result)) = joined else {
                continue;
            };
            match result {
                Ok(()) => {
                    let offline = Assignment {
                        server: None,
                        open_seq: assignment.open_seq,
                        state,
                        failure: None,
                        recover_from: assignment.recover_from,
                    };
                    ops.push(crate::catalog::ops::put_assignment(&encoded, &offline));
                    closed.push((encoded, offline));
                }
                Err(e) => {
                    self.end_transition(&encoded);
                    tracing::error!(region = %encoded, error = %e, "closing failed");
                    first_error.get_or_insert(e);
                }
            }
        }
        self.commit(ops).await?;
        let mut catalog = self.catalog.write();
        for (encoded, offline) in closed {
            self.end_transition(&encoded);
            catalog.assign.insert(encoded, offline);
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Assigns every serving region of enabled tables that has no server, as the planner
    /// spreads them.
    pub async fn assign_unplaced(self: &Arc<Self>) -> Result<()> {
        let placements: Vec<(String, String)> = planner::assign(&self.view())
            .into_iter()
            .filter_map(|d| match d {
                Decision::Assign { region, server } => Some((region, server)),
                Decision::Move { .. } => None,
            })
            .collect();
        if placements.is_empty() {
            return Ok(());
        }
        if !self
            .servers
            .live()
            .iter()
            .any(|s| self.servers.takes_regions(s))
        {
            return Err(crate::error::io(
                "no region server is live to open regions on".into(),
            ));
        }
        self.open_on(placements).await
    }

    /// Carries out moves: each region closed on its server, then opened on the target.
    pub async fn apply_moves(self: &Arc<Self>, decisions: Vec<Decision>) -> Result<usize> {
        let moves: Vec<(String, String)> = decisions
            .into_iter()
            .map(|d| match d {
                Decision::Move { region, to, .. } => (region, to),
                Decision::Assign { region, server } => (region, server),
            })
            .collect();
        let count = moves.len();
        for (region, _) in &moves {
            tracing::info!(region = %region, "moving");
        }
        self.close(moves.iter().map(|(r, _)| r.clone()).collect())
            .await?;
        self.open_on(moves).await?;
        Ok(count)
    }

    /// Moves one region to `target` (`host,port[,startcode]`), or where the planner would
    /// put it when `target` is None.
    pub async fn move_region(self: &Arc<Self>, region: &str, target: Option<&str>) -> Result<()> {
        self.require_active()?;
        let _procedure = self.procedures.lock().await;
        // Checked under the lock: a merge or split that held it may have retired the
        // region meanwhile, and a retired region must never open again.
        let encoded = self.assignable(region, "move")?;
        let record: RegionRecord = self.catalog.read().find(&encoded)?.clone();
        let current = self.catalog.read().assignment(&record.encoded_name);
        let to = match target {
            Some(target) => {
                let to = self
                    .servers
                    .resolve(target)
                    .ok_or_else(|| ApiError::invalid(format!("no live region server {target}")))?
                    .name;
                if self.servers.is_decommissioned(&to) {
                    return Err(ApiError::invalid(format!(
                        "region server {to} is decommissioned: no region moves there \
                         (recommission_regionserver first)"
                    )));
                }
                to
            }
            None => match self.placement_for(&record.encoded_name, current.server.as_deref()) {
                Some(server) => server,
                None => return Ok(()),
            },
        };
        if current.server.as_deref() == Some(to.as_str()) && current.state == AssignState::Open {
            return Ok(());
        }
        self.apply_moves(vec![Decision::Assign {
            region: record.encoded_name.clone(),
            server: to,
        }])
        .await
        .map(|_| ())
    }

    /// Where the planner would open `encoded` now, leaving out server `excluding`.
    pub fn placement_for(&self, encoded: &str, excluding: Option<&str>) -> Option<String> {
        let mut view = self.view();
        for r in &mut view.regions {
            if r.encoded == encoded {
                r.server = None;
            }
        }
        if !view.regions.iter().any(|r| r.encoded == encoded) {
            // Closed on purpose (or FAILED_OPEN): placed now that it is asked for.
            let table = self.catalog.read().find(encoded).ok()?.table.to_string();
            view.regions.push(RegionView {
                encoded: encoded.to_string(),
                table,
                server: None,
                requests: 0,
            });
        }
        view.servers.retain(|s| Some(s.name.as_str()) != excluding);
        planner::assign(&view).into_iter().find_map(|d| match d {
            Decision::Assign { region, server } if region == encoded => Some(server),
            _ => None,
        })
    }

    /// `assign`: opens a region that is not open, where the planner puts it (a region
    /// already open stays where it is).
    pub async fn assign_region(self: &Arc<Self>, name: &str) -> Result<()> {
        self.require_active()?;
        let _procedure = self.procedures.lock().await;
        let encoded = self.assignable(name, "assign")?;
        match self.catalog.read().assignment(&encoded).state {
            AssignState::Open | AssignState::Opening => return Ok(()),
            // A CRASHED region's open carries its dead servers' logs, like any other.
            _ => {}
        }
        tracing::info!(region = %encoded, "assign");
        match self.placement_for(&encoded, None) {
            Some(server) => self.open_on(vec![(encoded, server)]).await,
            None => Err(crate::error::io(
                "no region server is live to open the region on".into(),
            )),
        }
    }

    /// `unassign`: closes a region where it is open (its server flushes it); it stays
    /// CLOSED until `assign` or enabling its table.
    pub async fn unassign_region(self: &Arc<Self>, name: &str) -> Result<()> {
        self.require_active()?;
        let _procedure = self.procedures.lock().await;
        let encoded = self.assignable(name, "unassign")?;
        let current = self.catalog.read().assignment(&encoded);
        tracing::info!(region = %encoded, state = current.state.name(), "unassign");
        match (current.state, &current.server) {
            (AssignState::Closed, _) => Ok(()),
            (AssignState::Crashed, _) | (_, None) => {
                // On no live server (CRASHED, OFFLINE, FAILED_OPEN): kept closed from now
                // on, still naming the dead servers' logs its next open must read.
                let closed = Assignment {
                    server: None,
                    open_seq: current.open_seq,
                    state: AssignState::Closed,
                    failure: None,
                    recover_from: current.recover_from.clone(),
                };
                self.commit(vec![crate::catalog::ops::put_assignment(&encoded, &closed)])
                    .await?;
                self.end_transition(&encoded);
                self.catalog.write().assign.insert(encoded, closed);
                Ok(())
            }
            (_, Some(_)) => self.close_to(vec![encoded], AssignState::Closed).await,
        }
    }

    /// The encoded name of a serving region of an enabled table named `name` (encoded or
    /// full), or why `command` cannot act on it.
    fn assignable(&self, name: &str, command: &str) -> Result<String> {
        let catalog = self.catalog.read();
        let record = catalog.find(name)?;
        if !record.is_serving() {
            return Err(crate::error::invalid_state(
                crate::error::DO_NOT_RETRY,
                format!(
                    "{command}: region {} was split or merged away: it serves no rows",
                    record.region_name()
                ),
            ));
        }
        if !catalog.table(&record.table)?.enabled {
            return Err(crate::error::invalid_state(
                crate::error::TABLE_NOT_ENABLED,
                format!(
                    "{command}: region {} belongs to {}, which is disabled",
                    record.region_name(),
                    record.table
                ),
            ));
        }
        Ok(record.encoded_name.clone())
    }

    /// Enabling a table opens every region of it, those closed on purpose too: they go
    /// back to OFFLINE, for the assignment that follows.
    pub async fn release_closed(self: &Arc<Self>, table: &basalt_types::TableName) -> Result<()> {
        let closed: Vec<(String, Assignment)> = {
            let catalog = self.catalog.read();
            catalog
                .serving(table)
                .into_iter()
                .map(|r| (r.encoded_name.clone(), catalog.assignment(&r.encoded_name)))
                .filter(|(_, a)| a.state == AssignState::Closed)
                .map(|(encoded, mut a)| {
                    a.state = AssignState::Offline;
                    (encoded, a)
                })
                .collect()
        };
        let ops = closed
            .iter()
            .map(|(encoded, a)| crate::catalog::ops::put_assignment(encoded, a))
            .collect();
        self.commit(ops).await?;
        let mut catalog = self.catalog.write();
        for (encoded, a) in closed {
            catalog.assign.insert(encoded, a);
        }
        Ok(())
    }

    /// `balance_switch`: turns the balancer on or off, kept in the coordinator (a new
    /// master reads it); answers the previous state.
    pub async fn set_balancer(self: &Arc<Self>, on: bool) -> Result<bool> {
        self.require_active()?;
        let _procedure = self.procedures.lock().await;
        self.commit(vec![basalt_coord::Op::put(
            basalt_coord::layout::BALANCER,
            on.to_string(),
        )])
        .await?;
        let previous = self
            .balancer_on
            .swap(on, std::sync::atomic::Ordering::AcqRel);
        tracing::info!(on, previous, "balance_switch");
        Ok(previous)
    }

    /// Reads the balancer switch a previous master left (on when none did).
    pub async fn load_balancer_switch(&self) -> Result<()> {
        let stored = self
            .coord
            .get(basalt_coord::layout::BALANCER.as_bytes())
            .await
            .map_err(|e| crate::error::coordinator(&e))?;
        let on = stored.is_none_or(|kv| kv.value.as_slice() != b"false");
        self.balancer_on
            .store(on, std::sync::atomic::Ordering::Release);
        Ok(())
    }

    /// Runs the balancer: false when it did not run (switched off; regions moving, unless
    /// `force`), as HBase's `balancer` answers.
    pub async fn balance(self: &Arc<Self>, force: bool) -> Result<bool> {
        self.require_active()?;
        if !self.balancer_on.load(std::sync::atomic::Ordering::Acquire) {
            return Ok(false);
        }
        let _procedure = self.procedures.lock().await;
        if !force && !self.in_transition.lock().is_empty() {
            return Ok(false);
        }
        self.assign_unplaced().await?;
        let config = planner::BalanceConfig {
            max_move_fraction: self.config.max_move_fraction,
            slop: self.config.slop,
        };
        let decisions = planner::balance(&self.view(), &config);
        let moved = self.apply_moves(decisions).await?;
        if moved > 0 {
            tracing::info!(moved, "balancer moved regions");
        }
        Ok(true)
    }

    /// A region server stopping: nothing new goes there and its regions move to the others.
    pub async fn drain(self: &Arc<Self>, server: &str) -> Result<()> {
        self.require_active()?;
        self.servers.stop_accepting(server);
        let _procedure = self.procedures.lock().await;
        if let Some(left) = self.offload(server).await? {
            tracing::warn!(
                server,
                "no other region server accepts regions: they close with the server"
            );
            return self.close(left).await;
        }
        Ok(())
    }

    /// Moves every region open on `server` to the servers that take regions, as the
    /// planner spreads them (the caller holds the procedure lock). Answers the regions
    /// left there when no other server takes regions (nothing moved), else None.
    pub async fn offload(self: &Arc<Self>, server: &str) -> Result<Option<Vec<String>>> {
        let decisions = planner::drain(&self.view(), server);
        let left = self.catalog.read().regions_on(server);
        if decisions.is_empty() && !left.is_empty() {
            return Ok(Some(left));
        }
        let moved = self.apply_moves(decisions).await?;
        tracing::info!(server, moved, "moved the regions off a region server");
        Ok(None)
    }

    /// Makes `regions` OFFLINE (on no server, no failure), to be placed again.
    pub async fn release(self: &Arc<Self>, regions: Vec<String>) -> Result<()> {
        self.require_active()?;
        let _procedure = self.procedures.lock().await;
        let mut ops = Vec::new();
        let mut released = Vec::new();
        for encoded in regions {
            let mut a = self.catalog.read().assignment(&encoded);
            a.state = AssignState::Offline;
            a.server = None;
            a.failure = None;
            ops.push(crate::catalog::ops::put_assignment(&encoded, &a));
            released.push((encoded, a));
        }
        self.commit(ops).await?;
        let mut catalog = self.catalog.write();
        for (encoded, a) in released {
            catalog.assign.insert(encoded, a);
        }
        Ok(())
    }

    /// Server `by` read the whole log of server `dead` before starting (a cluster in one
    /// process, whose previous incarnation is certainly gone): `dead`'s regions, CRASHED
    /// or still recorded on it, become OFFLINE and open on `by` with every edit. Refused
    /// while `dead` is live.
    pub async fn log_taken_over(self: &Arc<Self>, dead: &str, by: &str) -> Result<()> {
        self.require_active()?;
        if self.servers.is_live(dead) {
            return Err(crate::error::io(format!(
                "{by} cannot take over the log of {dead}: that server is live"
            )));
        }
        let _procedure = self.procedures.lock().await;
        self.logs_taken_over.lock().insert(dead.to_string());
        let regions = self.catalog.read().regions_on(dead);
        let mut ops = Vec::new();
        let mut released = Vec::new();
        for encoded in regions {
            let mut a = self.catalog.read().assignment(&encoded);
            if !matches!(
                a.state,
                AssignState::Crashed
                    | AssignState::Open
                    | AssignState::Opening
                    | AssignState::Closing
            ) {
                continue;
            }
            a.state = AssignState::Offline;
            a.server = None;
            ops.push(crate::catalog::ops::put_assignment(&encoded, &a));
            released.push((encoded, a));
        }
        if released.is_empty() {
            return Ok(());
        }
        self.commit(ops).await?;
        tracing::info!(
            dead,
            by,
            regions = released.len(),
            "a dead server's log was read by its next incarnation: its regions open there"
        );
        let mut catalog = self.catalog.write();
        for (encoded, a) in released {
            catalog.assign.insert(encoded, a);
        }
        Ok(())
    }

    /// A region server died (its lease expired without a graceful stop): its regions are
    /// CRASHED, the dead server added to the logs each must read before it serves again
    /// (`recover_from`), and they are placed on the live servers at once; each new owner
    /// reads that log, replays the region's edits and flushes them before it serves, so
    /// none is opened elsewhere without its edits.
    pub async fn server_died(self: &Arc<Self>, server: &str) -> Result<()> {
        let _procedure = self.procedures.lock().await;
        let regions = self.catalog.read().regions_on(server);
        if regions.is_empty() {
            return Ok(());
        }
        let mut ops = Vec::new();
        let mut crashed = Vec::new();
        for encoded in regions {
            let mut a = self.catalog.read().assignment(&encoded);
            let held = matches!(
                a.state,
                AssignState::Open | AssignState::Opening | AssignState::Closing
            );
            if held && !a.recover_from.iter().any(|s| s == server) {
                a.recover_from.push(server.to_string());
            }
            a.state = AssignState::Crashed;
            ops.push(crate::catalog::ops::put_assignment(&encoded, &a));
            crashed.push((encoded, a));
        }
        tracing::warn!(server, regions = crashed.len(),
            "a region server died holding regions: they reopen on live servers, each reading its log first");
        self.recoveries
            .lock()
            .begin(server, crashed.len(), std::time::Instant::now());
        self.commit(ops).await?;
        crate::procs::crash_point("scp.crashed");
        // In transition from now until open again, however long they wait for a server;
        // not those of a disabled table, which wait for the table to be enabled.
        let waiting: Vec<bool> = crashed
            .iter()
            .map(|(encoded, _)| self.table_enabled_of(encoded))
            .collect();
        {
            let mut catalog = self.catalog.write();
            for ((encoded, a), waiting) in crashed.into_iter().zip(waiting) {
                if waiting {
                    self.begin_transition(&encoded, "CRASHED", server);
                }
                catalog.assign.insert(encoded, a);
            }
        }
        self.note_change();
        if let Err(e) = self.assign_unplaced().await {
            tracing::warn!(server, error = %e, "the dead server's regions wait for a live server");
        }
        Ok(())
    }
}

/// The logs the next open of a region must read: those already named, plus the server
/// holding it now if that server is gone without closing it (it was open, opening or
/// closing there). Opening such a region without that server's log would lose every
/// edit it had not flushed; this holds whatever path chose to open it — one server's
/// crash handling placing the regions of another that died at the same moment, say,
/// before that one's own crash handling ran.
pub fn with_unclean_holder(
    previous: Assignment,
    target: &str,
    is_live: impl Fn(&str) -> bool,
) -> Vec<String> {
    let mut recover_from = previous.recover_from;
    let held = matches!(
        previous.state,
        AssignState::Open | AssignState::Opening | AssignState::Closing
    );
    if let Some(holder) = previous
        .server
        .filter(|s| held && s != target && !is_live(s))
    {
        if !recover_from.contains(&holder) {
            tracing::warn!(server = %holder, "a region its gone server never closed opens with that server's log");
            recover_from.push(holder);
        }
    }
    recover_from
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(state: AssignState, server: &str, recover: &[&str]) -> Assignment {
        Assignment {
            server: Some(server.to_string()),
            open_seq: 3,
            state,
            failure: None,
            recover_from: recover.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn a_region_its_gone_holder_never_closed_opens_with_that_holders_log() {
        let gone = |_: &str| false;
        let live = |_: &str| true;
        for state in [
            AssignState::Open,
            AssignState::Opening,
            AssignState::Closing,
        ] {
            assert_eq!(
                with_unclean_holder(held(state, "dead,1,1", &["older,1,1"]), "new,1,1", gone),
                vec!["older,1,1".to_string(), "dead,1,1".to_string()],
                "{state:?}"
            );
        }
        // Named already: not twice.
        assert_eq!(
            with_unclean_holder(
                held(AssignState::Open, "dead,1,1", &["dead,1,1"]),
                "new,1,1",
                gone
            ),
            vec!["dead,1,1".to_string()]
        );
        // Closed cleanly, crashed (already handled), or failed: nothing to add.
        for state in [
            AssignState::Closed,
            AssignState::Offline,
            AssignState::Crashed,
            AssignState::FailedOpen,
        ] {
            assert!(
                with_unclean_holder(held(state, "dead,1,1", &[]), "new,1,1", gone).is_empty(),
                "{state:?}"
            );
        }
        // Re-driven on the same server, or its holder still live: nothing to add.
        assert!(
            with_unclean_holder(held(AssignState::Opening, "s,1,1", &[]), "s,1,1", gone).is_empty()
        );
        assert!(
            with_unclean_holder(held(AssignState::Open, "s,1,1", &[]), "new,1,1", live).is_empty()
        );
    }
}
