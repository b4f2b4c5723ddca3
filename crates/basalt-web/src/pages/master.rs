//! A cluster master's home page (`/`, `/master-status`), as HBase's master-status: the
//! software and the masters (active, backups), the live region servers with their load and
//! a link to each one's own page, dead servers, regions in transition (with their state,
//! server and age; stuck ones marked), crash recoveries (running and recent, with their
//! durations), the load per server (regions, read and write rates, hot regions:
//! [`super::server_load`]), and the tables with their regions. All of it read over RPC:
//! [`ClusterView`](crate::remote::master::ClusterView), and the heat sampler's readings of
//! the region servers' reports.
//!
//! A backup master's page says so and names the active master.

use super::{cards, num};
use crate::html::Html;
use crate::layout::{facts, grid, note, page_in, section, Section};
use crate::server::AppState;
use crate::source::Source;
use crate::{units, WebError};
use basalt_proto::pb;

pub fn render(state: &AppState) -> Result<String, WebError> {
    let Source::Master(master) = &state.source else {
        return Err(WebError::NotFound("not a master".to_string()));
    };
    let view = master.view()?;
    let me = state.info.grpc_addr().to_string();
    let Some(status) = &view.status else {
        return Ok(backup(state, &view.info, &me));
    };
    let info = &state.info;
    let uptime = units::duration(info.uptime());
    let title = format!("Master {me}");
    Ok(page_in(state.role(), &title, Section::Home, |h| {
        let requests: u64 = status.servers.iter().map(|s| s.requests_per_second).sum();
        cards(
            h,
            &[
                ("Region servers", status.servers.len().to_string()),
                ("Dead servers", status.dead_servers.len().to_string()),
                ("Tables", view.tables.len().to_string()),
                ("Regions", view.regions.len().to_string()),
                (
                    "In transition",
                    status.regions_in_transition.len().to_string(),
                ),
                ("Requests per second", requests.to_string()),
            ],
        );
        section(h, "Software attributes", |h| {
            facts(
                h,
                &[
                    ("Version", status.version.clone()),
                    ("Cluster id", status.cluster_id.clone()),
                    ("Active master", status.active_master.clone()),
                    ("Backup masters", list(&status.backup_masters)),
                    ("Started", units::timestamp(info.started)),
                    ("Uptime", uptime.clone()),
                    ("Store", info.data_dir.display().to_string()),
                    ("Balancer", on_off(status.balancer_on)),
                ],
            );
        });
        section(h, "Region servers", |h| servers(h, &status.servers));
        section(h, "Load per region server", |h| {
            super::server_load::render(h, &state.heat)
        });
        section(h, "Dead region servers", |h| {
            lines(
                h,
                "dead",
                "Server",
                &status.dead_servers,
                "No dead servers.",
            )
        });
        section(h, "Regions in transition", |h| {
            super::transitions::regions(h, status)
        });
        section(h, "Crash recoveries", |h| {
            super::transitions::recoveries(h, status)
        });
        section(h, "Tables", |h| super::home::tables(h, &view.tables));
    }))
}

/// A master standing by: who is active, who else stands by.
fn backup(state: &AppState, info: &pb::ClusterInfo, me: &str) -> String {
    let title = format!("Backup master {me}");
    page_in(state.role(), &title, Section::Home, |h| {
        let active = if info.active_master.is_empty() {
            "none yet (an election is under way)".to_string()
        } else {
            info.active_master.clone()
        };
        note(
            h,
            &format!("This master is a backup: it stands by while {active} is the active master."),
        );
        section(h, "Masters", |h| {
            facts(
                h,
                &[
                    ("Active master", active.clone()),
                    ("Backup masters", list(&info.backup_masters)),
                    // A master learns the id when it becomes active.
                    ("Cluster id", or_dash(&info.cluster_id)),
                    ("Version", state.info.version.clone()),
                    ("Uptime", units::duration(state.info.uptime())),
                ],
            );
        });
    })
}

fn servers(h: &mut Html, servers: &[pb::ServerStatus]) {
    if servers.is_empty() {
        note(h, "No region server is live.");
        return;
    }
    let headers = [
        "Server",
        "Start time",
        "Regions",
        "Requests per second",
        "Read requests",
        "Write requests",
        "Memstore",
        "Store file size",
    ];
    grid(h, "servers", &headers, |h| {
        for s in servers {
            h.el("tr", &[], |h| {
                h.el("td", &[], |h| match status_link(s) {
                    Some(href) => {
                        h.el_text("a", &[("href", &href)], &s.name);
                    }
                    None => {
                        h.text(&s.name);
                    }
                });
                let started = u64::try_from(s.start_code).unwrap_or(0);
                h.el_text("td", &[], &units::timestamp_ms(started));
                num(h, &s.regions.to_string());
                num(h, &s.requests_per_second.to_string());
                num(h, &s.read_requests.to_string());
                num(h, &s.write_requests.to_string());
                num(h, &units::bytes(s.memstore_bytes));
                num(h, &units::bytes(s.store_file_bytes));
            });
        }
    });
}

/// `http://host:webport/rs-status` of a server named `host,port,startcode`; None when it
/// serves no web UI.
pub fn status_link(s: &pb::ServerStatus) -> Option<String> {
    if s.web_port == 0 {
        return None;
    }
    let host = s.name.split(',').next().filter(|h| !h.is_empty())?;
    let host = match host.contains(':') {
        true => format!("[{host}]"),
        false => host.to_string(),
    };
    Some(format!("http://{host}:{}/rs-status", s.web_port))
}

/// One column of names, or a note when there are none.
fn lines(h: &mut Html, class: &'static str, header: &str, items: &[String], none: &str) {
    if items.is_empty() {
        note(h, none);
        return;
    }
    grid(h, class, &[header], |h| {
        for item in items {
            h.el("tr", &[], |h| {
                h.el_text("td", &[("class", "mono")], item);
            });
        }
    });
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join(", ")
    }
}

fn or_dash(text: &str) -> String {
    if text.is_empty() { "-" } else { text }.to_string()
}

fn on_off(on: bool) -> String {
    if on { "on" } else { "off" }.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_link_to_their_own_pages() {
        let server = |name: &str, web_port| pb::ServerStatus {
            name: name.into(),
            web_port,
            ..pb::ServerStatus::default()
        };
        assert_eq!(
            status_link(&server("127.0.0.2,16020,17", 16030)).as_deref(),
            Some("http://127.0.0.2:16030/rs-status")
        );
        assert_eq!(
            status_link(&server("::1,16020,17", 9)).as_deref(),
            Some("http://[::1]:9/rs-status")
        );
        assert_eq!(status_link(&server("h,16020,17", 0)), None);
    }
}
