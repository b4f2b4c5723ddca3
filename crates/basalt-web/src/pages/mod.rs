//! The HTML pages. Each renders from the server state and the request's query, on a
//! blocking thread (they call the database or RPC services), into a complete document.
//!
//! # Layout
//! - [`home`]: `/`, `/master-status`: the whole (standalone) server at a glance.
//! - [`master`]: `/`, `/master-status` of a cluster's master: servers, dead servers,
//!   regions in transition, tables; or, on a backup master, who is active.
//! - [`transitions`]: the master page's regions in transition and crash recoveries.
//! - [`server_load`]: the master page's load per region server (rates, hot regions).
//! - [`table`]: `/table.jsp?name=`: schema, regions, and the [`browser`] of its rows.
//! - [`heat`]: the table page's heat map, hot spots and remedies.
//! - [`region_server`]: `/rs-status`: the region server's metrics and regions (standalone's
//!   one, or a cluster's region server from its report).
//! - [`conf`]: `/conf`: the effective configuration.
//! - [`logs`]: `/logs`: recent log lines.
//! - [`login`]: `/login`, `/logout`: the sign-in and sign-out forms.
//! - [`problem`]: error pages (400, 404, 414, 500).

pub mod browser;
pub mod conf;
pub mod heat;
pub mod home;
pub mod login;
pub mod logs;
pub mod master;
pub mod problem;
pub mod region_server;
pub mod server_load;
pub mod table;
pub mod transitions;

use crate::html::Html;
use crate::layout::grid;
use crate::units;
use basalt_api::RegionReport;

/// How the region grid shows each region's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TableColumn {
    /// No table column (the table page).
    None,
    /// The table's name, linked to its page.
    Linked,
    /// The name alone (a region server serves no table pages).
    Plain,
}

/// Regions as rows of a table: name, keys, server, files, sizes, requests.
pub(crate) fn region_grid(h: &mut Html, regions: &[RegionReport], table_column: TableColumn) {
    let with_table = table_column != TableColumn::None;
    let mut headers = vec![
        "Region",
        "State",
        "Start key",
        "End key",
        "Server",
        "Store files",
        "Store file size",
        "Memstore",
        "Read requests",
        "Write requests",
    ];
    if with_table {
        headers.insert(0, "Table");
    }
    grid(h, "regions", &headers, |h| {
        for r in regions {
            h.el("tr", &[], |h| {
                if with_table {
                    let table = r.table.to_string();
                    let href = crate::query::link("/table.jsp", &[("name", &table)]);
                    h.el("td", &[], |h| match table_column {
                        TableColumn::Linked => {
                            h.el_text("a", &[("href", &href)], &table);
                        }
                        _ => {
                            h.text(&table);
                        }
                    });
                }
                h.el_text("td", &[("class", "mono")], &r.encoded_name);
                h.el("td", &[], |h| region_state(h, r));
                h.el_text("td", &[("class", "key")], &crate::layout::key(&r.start_key));
                h.el_text("td", &[("class", "key")], &crate::layout::key(&r.end_key));
                h.el_text("td", &[], &r.server);
                num(h, &r.store_files.to_string());
                num(h, &units::bytes(r.store_file_bytes));
                num(h, &units::bytes(r.memstore_bytes));
                num(h, &r.read_requests.to_string());
                num(h, &r.write_requests.to_string());
            });
        }
    });
}

/// A region's state as a badge; a FAILED_OPEN region's cause under it.
fn region_state(h: &mut Html, r: &RegionReport) {
    let class = match r.state {
        basalt_api::RegionState::Open => "badge",
        basalt_api::RegionState::Closed | basalt_api::RegionState::FailedOpen => "badge off",
    };
    h.el_text("span", &[("class", class)], r.state.name());
    if let Some(failure) = &r.failure {
        h.el_text("div", &[("class", "mono")], failure);
    }
}

/// A right-aligned number cell.
pub(crate) fn num(h: &mut Html, text: &str) {
    h.el_text("td", &[("class", "num")], text);
}

/// A row of headline figures.
pub(crate) fn cards(h: &mut Html, cards: &[(&str, String)]) {
    h.el("div", &[("class", "cards")], |h| {
        for (label, value) in cards {
            h.el("div", &[("class", "card")], |h| {
                h.el_text("div", &[("class", "label")], label);
                h.el_text("div", &[("class", "value")], value);
            });
        }
    });
}
