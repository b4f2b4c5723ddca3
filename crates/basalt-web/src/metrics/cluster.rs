//! A master's `/metrics`: the cluster as the master sees it, in the Prometheus text format
//! (HBase's master metrics: live and dead region servers, regions in transition, the
//! balancer), with each live server's load labelled by its name.
//!
//! ```text
//! basalt_master_active 1
//! basalt_cluster_region_servers 3
//! basalt_cluster_server_regions{server="127.0.0.2,16020,1700000000000"} 4
//! basalt_cluster_rit_oldest_age_seconds 75.2
//! basalt_cluster_regions_in_transition_over_threshold 1
//! basalt_master_crash_recoveries_running 0
//! basalt_master_crash_recovery_seconds{quantile="0.5"} 2.1
//! basalt_master_crash_recovery_seconds_sum 4.4
//! basalt_master_crash_recovery_seconds_count 2
//! ```
//!
//! The crash recovery summary's quantiles are over the last recoveries the master keeps;
//! its sum and count over every one finished since the master became active.

use super::prometheus::Exposition;
use crate::remote::master::ClusterView;
use basalt_proto::pb::{ClusterStatus, CrashRecoveries};

pub fn render(view: &ClusterView, uptime_secs: f64) -> String {
    let mut out = Exposition::default();
    let gauge = |out: &mut Exposition, name: &str, help: &str, value: f64| {
        out.family(name, "gauge", help);
        out.sample(name, &[], value);
    };
    gauge(
        &mut out,
        "basalt_uptime_seconds",
        "Seconds since the server started.",
        uptime_secs,
    );
    let active = if view.info.is_active { 1.0 } else { 0.0 };
    gauge(
        &mut out,
        "basalt_master_active",
        "1 for the active master, 0 for a backup.",
        active,
    );
    gauge(
        &mut out,
        "basalt_cluster_backup_masters",
        "Masters standing by.",
        view.info.backup_masters.len() as f64,
    );
    let Some(status) = &view.status else {
        return out.text;
    };
    let figures = [
        (
            "basalt_cluster_region_servers",
            "Live region servers.",
            status.servers.len(),
        ),
        (
            "basalt_cluster_dead_region_servers",
            "Region servers that died (their lease ended without a graceful stop).",
            status.dead_servers.len(),
        ),
        (
            "basalt_cluster_regions_in_transition",
            "Regions opening, closing or moving now.",
            status.regions_in_transition.len(),
        ),
        ("basalt_cluster_tables", "User tables.", view.tables.len()),
        (
            "basalt_cluster_regions",
            "Regions of the user tables.",
            view.regions.len(),
        ),
    ];
    for (name, help, value) in figures {
        gauge(&mut out, name, help, value as f64);
    }
    transitions(&mut out, status);
    recoveries(&mut out, status);
    let balancer = if status.balancer_on { 1.0 } else { 0.0 };
    gauge(
        &mut out,
        "basalt_cluster_balancer_enabled",
        "1 when the balancer is on.",
        balancer,
    );
    type Figure = fn(&basalt_proto::pb::ServerStatus) -> u64;
    let per_server: [(&str, &str, &str, Figure); 5] = [
        (
            "basalt_cluster_server_regions",
            "gauge",
            "Regions a live server holds.",
            |s| s.regions,
        ),
        (
            "basalt_cluster_server_read_requests_total",
            "counter",
            "Reads a live server's regions served.",
            |s| s.read_requests,
        ),
        (
            "basalt_cluster_server_write_requests_total",
            "counter",
            "Writes a live server's regions served.",
            |s| s.write_requests,
        ),
        (
            "basalt_cluster_server_memstore_bytes",
            "gauge",
            "Memstore bytes of a live server.",
            |s| s.memstore_bytes,
        ),
        (
            "basalt_cluster_server_store_file_bytes",
            "gauge",
            "Store file bytes of a live server.",
            |s| s.store_file_bytes,
        ),
    ];
    for (name, kind, help, figure) in per_server {
        out.family(name, kind, help);
        for s in &status.servers {
            out.sample(name, &[("server", &s.name)], figure(s) as f64);
        }
    }
    out.text
}

/// The age of the oldest region in transition and how many are stuck (HBase's
/// `ritOldestAge` and `ritCountOverThreshold`).
fn transitions(out: &mut Exposition, status: &ClusterStatus) {
    let oldest = status.transitions.iter().map(|t| t.age_ms).max();
    let name = "basalt_cluster_rit_oldest_age_seconds";
    out.family(
        name,
        "gauge",
        "Age of the oldest region in transition (0 when none).",
    );
    out.sample(name, &[], oldest.unwrap_or(0) as f64 / 1e3);
    let threshold = status.rit_stuck_threshold_ms;
    let stuck = status
        .transitions
        .iter()
        .filter(|t| t.age_ms > threshold)
        .count();
    let name = "basalt_cluster_regions_in_transition_over_threshold";
    out.family(
        name,
        "gauge",
        "Regions in transition longer than rit_stuck_warning_threshold_ms (stuck).",
    );
    out.sample(name, &[], stuck as f64);
}

/// Crash recoveries: running, and a summary of how long the finished ones took.
fn recoveries(out: &mut Exposition, status: &ClusterStatus) {
    let none = CrashRecoveries::default();
    let r = status.recoveries.as_ref().unwrap_or(&none);
    let name = "basalt_master_crash_recoveries_running";
    out.family(
        name,
        "gauge",
        "Region servers that died holding regions not all serving again yet.",
    );
    out.sample(name, &[], r.running.len() as f64);
    let name = "basalt_master_crash_recovery_seconds";
    out.family(
        name,
        "summary",
        "How long crash recoveries took, from the server's death to its last region serving.",
    );
    let mut recent: Vec<u64> = r.recent.iter().map(|c| c.duration_ms).collect();
    recent.sort_unstable();
    for (q, label) in [(0.5, "0.5"), (0.9, "0.9"), (1.0, "1")] {
        if let Some(ms) = quantile(&recent, q) {
            out.sample(name, &[("quantile", label)], ms as f64 / 1e3);
        }
    }
    out.sample(&format!("{name}_sum"), &[], r.seconds_total);
    out.sample(&format!("{name}_count"), &[], r.finished_total as f64);
}

/// The `q` quantile of `sorted` (nearest rank); None when empty.
fn quantile(sorted: &[u64], q: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted.get(rank - 1).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_nearest_rank() {
        assert_eq!(quantile(&[], 0.5), None);
        assert_eq!(quantile(&[7], 0.5), Some(7));
        assert_eq!(quantile(&[1, 2, 3, 4], 0.5), Some(2));
        assert_eq!(quantile(&[1, 2, 3, 4], 0.9), Some(4));
        assert_eq!(quantile(&[1, 2, 3, 4], 1.0), Some(4));
    }
}
