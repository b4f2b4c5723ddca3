//! A master's `/metrics`: the cluster as the master sees it, in the Prometheus text format
//! (HBase's master metrics: live and dead region servers, regions in transition, the
//! balancer), with each live server's load labelled by its name.
//!
//! ```text
//! basalt_master_active 1
//! basalt_cluster_region_servers 3
//! basalt_cluster_server_regions{server="127.0.0.2,16020,1700000000000"} 4
//! ```

use super::prometheus::Exposition;
use crate::remote::master::ClusterView;

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
