//! What `status` shows: the masters, the live and dead region servers with their load,
//! the regions in transition (with their age) and the crash recoveries.

use crate::master::Master;
use crate::recoveries::Recovery;
use basalt_api::Result;
use basalt_coord::layout;
use basalt_proto::pb;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Masters by election order: the active one first, then those standing by.
async fn masters(master: &Master) -> Result<Vec<String>> {
    let prefix = format!("election/{}/", layout::MASTER_ELECTION);
    let mut candidates = master
        .coord
        .list(prefix.as_bytes())
        .await
        .map_err(|e| crate::error::coordinator(&e))?
        .kvs;
    candidates.sort_by_key(|kv| kv.create_revision);
    Ok(candidates
        .into_iter()
        .filter_map(|kv| String::from_utf8(kv.value).ok())
        .collect())
}

pub async fn cluster_info(master: &Master) -> Result<pb::ClusterInfo> {
    let masters = masters(master).await?;
    Ok(pb::ClusterInfo {
        cluster_id: master.cluster_id.lock().clone(),
        active_master: masters.first().cloned().unwrap_or_default(),
        is_active: master.is_active(),
        backup_masters: masters.into_iter().skip(1).collect(),
    })
}

pub async fn cluster_status(master: &Master) -> Result<pb::ClusterStatus> {
    master.require_active()?;
    // Taken before the servers are asked for their reports: a paused server costs the
    // report's timeout, and the transitions shown are those of the moment asked.
    let (regions_in_transition, transitions) = transitions(master);
    let info = cluster_info(master).await?;
    let reports = master.reports().await;
    let servers = master
        .servers
        .live()
        .into_iter()
        .map(|s| {
            let mut status = reports
                .get(&s.name)
                .and_then(|r| r.status.clone())
                .unwrap_or_default();
            status.name = s.name.clone();
            status.web_port = u32::from(s.web_port);
            status.start_code = s
                .name
                .rsplit(',')
                .next()
                .and_then(|c| c.parse().ok())
                .unwrap_or(0);
            status
        })
        .collect();
    Ok(pb::ClusterStatus {
        cluster_id: info.cluster_id,
        active_master: info.active_master,
        backup_masters: info.backup_masters,
        servers,
        dead_servers: master.servers.dead(),
        regions_in_transition,
        balancer_on: master.balancer_on.load(Ordering::Acquire),
        version: env!("CARGO_PKG_VERSION").to_string(),
        transitions,
        rit_stuck_threshold_ms: millis(master.config.rit_stuck_warning_threshold),
        recoveries: Some(recoveries(master)),
    })
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The regions in transition as `status` lists them, and with their details, oldest first.
fn transitions(master: &Master) -> (Vec<String>, Vec<pb::RegionInTransition>) {
    let now = Instant::now();
    let rit = master.in_transition.lock();
    let lines = rit
        .iter()
        .map(|(region, t)| format!("{region} {}", t.describe()))
        .collect();
    let mut detailed: Vec<pb::RegionInTransition> = rit
        .iter()
        .map(|(region, t)| pb::RegionInTransition {
            region: region.clone(),
            state: t.state.clone(),
            server: t.server.clone(),
            age_ms: millis(now.saturating_duration_since(t.since)),
            since_ms: t.since_ms,
        })
        .collect();
    detailed.sort_by_key(|t| std::cmp::Reverse(t.age_ms));
    (lines, detailed)
}

fn recoveries(master: &Master) -> pb::CrashRecoveries {
    let now = Instant::now();
    let recoveries = master.recoveries.lock();
    let one = |r: Recovery| pb::CrashRecovery {
        duration_ms: millis(
            r.took
                .unwrap_or_else(|| now.saturating_duration_since(r.started)),
        ),
        server: r.server,
        regions: r.regions as u64,
        started_ms: r.started_ms,
    };
    pb::CrashRecoveries {
        running: recoveries.running().into_iter().map(one).collect(),
        recent: recoveries.recent().into_iter().map(one).collect(),
        finished_total: recoveries.finished_total,
        seconds_total: recoveries.seconds_total,
    }
}
