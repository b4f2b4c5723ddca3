//! The home page (`/`, `/master-status`): software, the region server with its load,
//! regions that failed to open and what is in quarantine, tables with their regions and
//! sizes, memory and cache, work in progress, recent errors.

use super::{cards, num};
use crate::html::Html;
use crate::layout::{facts, grid, note, page, section, Section};
use crate::logs::LogLine;
use crate::server::AppState;
use crate::snapshot::{Snapshot, TableSummary};
use crate::{query, units, WebError};
use basalt_api::ClusterHealth;

/// How many recent warnings and errors the home page lists.
const PROBLEMS_SHOWN: usize = 20;

pub fn render(state: &AppState) -> Result<String, WebError> {
    let s = state.source.snapshot()?;
    let info = &state.info;
    let uptime = units::duration(info.uptime());
    let user_tables = s.tables.iter().filter(|t| !t.name.is_system()).count();
    Ok(page("Master", Section::Home, |h| {
        cards(
            h,
            &[
                ("Version", info.version.clone()),
                ("Uptime", uptime.clone()),
                ("Tables", user_tables.to_string()),
                ("Regions", s.region_count().to_string()),
                ("Failed regions", s.failed_region_count().to_string()),
                ("Requests", s.total_requests().to_string()),
                (
                    "Cache hit ratio",
                    units::ratio(s.cache.hits, s.cache.misses),
                ),
            ],
        );
        section(h, "Software attributes", |h| {
            facts(
                h,
                &[
                    ("Version", info.version.clone()),
                    ("Started", units::timestamp(info.started)),
                    ("Uptime", uptime.clone()),
                    ("Data directory", info.data_dir.display().to_string()),
                    ("gRPC address", info.grpc_addr().to_string()),
                    ("Server name", info.server_name.clone()),
                ],
            );
        });
        section(h, "Region servers", |h| region_servers(h, state, &s));
        section(h, "Region health", |h| health(h, &s.health));
        section(h, "Tables", |h| tables(h, &s.tables));
        h.el("div", &[("class", "pair")], |h| {
            section(h, "Memory and block cache", |h| memory(h, &s));
            section(h, "Flushes and compactions", |h| tasks(h, &s));
        });
        section(h, "Recent errors and warnings", |h| {
            problems(h, &state.info.logs.problems())
        });
    }))
}

fn region_servers(h: &mut Html, state: &AppState, s: &Snapshot) {
    let headers = [
        "Server",
        "Start time",
        "Version",
        "Regions",
        "Requests",
        "Memstore",
        "Store files",
        "Store file size",
    ];
    grid(h, "servers", &headers, |h| {
        h.el("tr", &[], |h| {
            h.el("td", &[], |h| {
                h.el_text("a", &[("href", "/rs-status")], &state.info.server_name);
            });
            h.el_text("td", &[], &units::timestamp(state.info.started));
            h.el_text("td", &[], &state.info.version);
            num(h, &s.region_count().to_string());
            num(h, &s.total_requests().to_string());
            num(h, &units::bytes(s.memstore_bytes()));
            num(h, &s.store_files().to_string());
            num(h, &units::bytes(s.store_file_bytes()));
        });
    });
}

/// Regions that failed to open, the quarantine and catalog disagreements; a note when all
/// is well.
fn health(h: &mut Html, health: &ClusterHealth) {
    if health.problem_count() == 0 {
        note(
            h,
            "Every region is open, the quarantine is empty and the catalog agrees with the data folder.",
        );
        return;
    }
    if !health.failed_regions.is_empty() {
        let headers = ["Region (FAILED_OPEN)", "File", "Cause"];
        grid(h, "failed", &headers, |h| {
            for f in &health.failed_regions {
                h.el("tr", &[], |h| {
                    h.el_text("td", &[("class", "mono")], &f.region_name);
                    h.el_text("td", &[("class", "mono")], f.file.as_deref().unwrap_or("-"));
                    h.el_text("td", &[], &f.cause);
                });
            }
        });
    }
    if !health.quarantined.is_empty() {
        note(
            h,
            "Quarantined: kept, not served, until an operator runs basalt hbck --purge-quarantine.",
        );
        let headers = ["Quarantined item", "Was", "Size", "Reason"];
        grid(h, "quarantine", &headers, |h| {
            for q in &health.quarantined {
                h.el("tr", &[], |h| {
                    h.el_text("td", &[("class", "mono")], &q.path);
                    h.el_text("td", &[("class", "mono")], &q.original);
                    num(h, &units::bytes(q.bytes));
                    h.el_text("td", &[], &q.reason);
                });
            }
        });
    }
    if !health.inconsistencies.is_empty() {
        let headers = ["Inconsistency", "Table", "Detail"];
        grid(h, "inconsistencies", &headers, |h| {
            for i in &health.inconsistencies {
                h.el("tr", &[], |h| {
                    h.el_text("td", &[], i.kind.name());
                    h.el_text("td", &[], &i.table);
                    h.el_text("td", &[], &i.detail);
                });
            }
        });
    }
}

pub(crate) fn tables(h: &mut Html, tables: &[TableSummary]) {
    if tables.iter().all(|t| t.name.is_system()) {
        note(h, "No user tables yet.");
    }
    let headers = [
        "Table",
        "State",
        "Regions",
        "Store files",
        "Store file size",
        "Memstore",
        "Read requests",
        "Write requests",
    ];
    grid(h, "tables", &headers, |h| {
        for t in tables {
            let name = t.name.to_string();
            h.el("tr", &[], |h| {
                h.el("td", &[], |h| {
                    let href = query::link("/table.jsp", &[("name", &name)]);
                    h.el_text("a", &[("href", &href)], &name);
                });
                h.el("td", &[], |h| {
                    if t.enabled {
                        h.el_text("span", &[("class", "badge")], "enabled");
                    } else {
                        h.el_text("span", &[("class", "badge off")], "disabled");
                    }
                });
                num(h, &t.regions.to_string());
                num(h, &t.store_files.to_string());
                num(h, &units::bytes(t.store_file_bytes));
                num(h, &units::bytes(t.memstore_bytes));
                num(h, &t.read_requests.to_string());
                num(h, &t.write_requests.to_string());
            });
        }
    });
}

pub(crate) fn memory(h: &mut Html, s: &Snapshot) {
    let c = &s.cache;
    facts(
        h,
        &[
            ("Memstore", units::bytes(s.memstore_bytes())),
            ("Memstore limit", units::bytes(s.memstore_limit_bytes)),
            ("Block cache size", units::bytes(c.size_bytes)),
            ("Block cache capacity", units::bytes(c.capacity_bytes)),
            ("Blocks cached", c.entries.to_string()),
            ("Cache hits", c.hits.to_string()),
            ("Cache misses", c.misses.to_string()),
            ("Cache evictions", c.evictions.to_string()),
            ("Cache hit ratio", units::ratio(c.hits, c.misses)),
        ],
    );
}

pub(crate) fn tasks(h: &mut Html, s: &Snapshot) {
    let j = &s.jobs;
    facts(
        h,
        &[
            ("Flushes running", j.flushes_running.to_string()),
            ("Flushes queued", j.flush_queue_length.to_string()),
            ("Compactions running", j.compactions_running.to_string()),
            ("Compactions queued", j.compaction_queue_length.to_string()),
            ("Write-ahead log syncs", s.wal_syncs.to_string()),
        ],
    );
}

fn problems(h: &mut Html, lines: &[LogLine]) {
    if lines.is_empty() {
        note(h, "No warnings or errors since the server started.");
        return;
    }
    super::logs::log_grid(h, lines.iter().rev().take(PROBLEMS_SHOWN));
}
