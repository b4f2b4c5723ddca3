//! The region server page (`/rs-status`): requests by kind with latencies, memory and
//! block cache, flushes and compactions, and every region it serves.

use super::{cards, num, region_grid, TableColumn};
use crate::html::Html;
use crate::layout::{grid, page_in, section, Section};
use crate::server::AppState;
use crate::snapshot::Snapshot;
use crate::source::Role;
use crate::{units, WebError};

pub fn render(state: &AppState) -> Result<String, WebError> {
    let s = state.source.snapshot()?;
    let name = s.server.as_deref().unwrap_or(&state.info.server_name);
    let title = format!("Region server {name}");
    Ok(page_in(state.role(), &title, Section::RegionServer, |h| {
        cards(
            h,
            &[
                ("Regions", s.region_count().to_string()),
                ("Requests", s.total_requests().to_string()),
                ("Read requests", s.read_requests().to_string()),
                ("Write requests", s.write_requests().to_string()),
                ("Store files", s.store_files().to_string()),
                ("Memstore", units::bytes(s.memstore_bytes())),
            ],
        );
        section(h, "Requests", |h| requests(h, &s));
        h.el("div", &[("class", "pair")], |h| {
            section(h, "Memory and block cache", |h| super::home::memory(h, &s));
            section(h, "Flushes, compactions and the log", |h| {
                super::home::tasks(h, &s)
            });
        });
        let heading = format!("Regions ({})", s.region_count());
        let tables = match state.role() {
            Role::RegionServer => TableColumn::Plain,
            _ => TableColumn::Linked,
        };
        section(h, &heading, |h| region_grid(h, &s.regions, tables));
    }))
}

/// Requests by kind: count, errors and latency figures in milliseconds.
fn requests(h: &mut Html, s: &Snapshot) {
    let headers = [
        "Kind",
        "Count",
        "Errors",
        "Mean ms",
        "Median ms",
        "95th ms",
        "99th ms",
        "Max ms",
    ];
    grid(h, "requests", &headers, |h| {
        for op in &s.ops {
            let l = &op.latency;
            let ms = |us: u64| format!("{:.3}", us as f64 / 1000.0);
            h.el("tr", &[], |h| {
                h.el_text("td", &[], op.op.jmx_name());
                num(h, &l.count.to_string());
                num(h, &op.errors.to_string());
                num(h, &ms(l.mean_us()));
                num(h, &ms(l.percentile_us(0.5)));
                num(h, &ms(l.percentile_us(0.95)));
                num(h, &ms(l.percentile_us(0.99)));
                num(h, &ms(l.max_us));
            });
        }
    });
}
