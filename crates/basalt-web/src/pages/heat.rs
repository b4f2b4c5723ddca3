//! The table page's heat sections: the heat map (writes, or reads through a link: no
//! script), the hot spots flagged over the window with their likely cause, and the schema
//! remedies they link to.

use crate::heat::map::{self, Metric};
use crate::heat::view::TableView;
use crate::heat::Heat;
use crate::html::Html;
use crate::layout::{key, note, section};
use crate::query::{link, Query};
use basalt_api::hotspot::{Finding, Remedy};
use basalt_types::TableName;

/// The metric the page's `heat` parameter asks for (writes unless `reads`).
pub fn metric(query: &Query) -> Metric {
    match query.get("heat") {
        Some("reads") => Metric::Reads,
        _ => Metric::Writes,
    }
}

pub fn sections(h: &mut Html, heat: &Heat, table: &TableName, metric: Metric) {
    if !heat.config.enabled {
        return;
    }
    let view = TableView::read(heat, table);
    let findings = view.findings(heat);
    section(h, "Heat map", |h| {
        h.el("p", &[("class", "toggle")], |h| {
            h.text("Colour by: ");
            for m in [Metric::Writes, Metric::Reads] {
                let href = link(
                    "/table.jsp",
                    &[("name", &table.to_string()), ("heat", m.name())],
                );
                if m == metric {
                    h.el_text("strong", &[], m.name());
                } else {
                    h.el_text("a", &[("href", &href), ("id", "heat-toggle")], m.name());
                }
                h.text(" ");
            }
        });
        if view.has_history() {
            h.el("div", &[("class", "scroll"), ("id", "heatmap")], |h| {
                map::render(h, &view, metric);
            });
            note(h, &format!(
                "Regions in key order across (hover for the start key), time down, oldest first; one sample every {} s, the last {} kept. Under the map: size and store files.",
                heat.config.sample_interval_ms as f64 / 1000.0,
                crate::units::duration(std::time::Duration::from_secs(heat.config.history_secs)),
            ));
        } else {
            note(
                h,
                "No samples yet: the heat map starts after the first sample interval.",
            );
        }
    });
    section(h, "Hot spots", |h| {
        hot_spots(h, &findings, view.window_secs)
    });
    if !findings.is_empty() {
        section(h, "Remedies", remedies);
    }
}

fn hot_spots(h: &mut Html, findings: &[Finding], window_secs: f64) {
    if findings.is_empty() {
        h.el_text("p", &[("id", "hotspots-none")], &format!(
            "No hot spot over the last {window_secs:.0} s: writes spread over the regions, or too few to judge."
        ));
        return;
    }
    h.el("ul", &[("id", "hotspots")], |h| {
        for f in findings {
            let cause = f.cause();
            h.el(
                "li",
                &[("class", "hotspot"), ("data-cause", cause.name())],
                |h| {
                    h.el_text("strong", &[("class", "cause")], cause.name());
                    h.text(": ");
                    h.text(&f.describe(key));
                    h.text(". Remedies: ");
                    for (i, r) in cause.remedies().iter().enumerate() {
                        if i > 0 {
                            h.text(", ");
                        }
                        let href = format!("#{}", r.anchor());
                        h.el_text("a", &[("href", &href)], r.name());
                    }
                },
            );
        }
    });
}

/// The schema remedies, in short (the schema design guides tell them at length).
fn remedies(h: &mut Html) {
    let entries: [(Remedy, &str); 4] = [
        (Remedy::Salting, "Prefix each key with a small bucket number (say the key's hash modulo the region count) so consecutive keys land in different regions; reads of a range then ask every bucket."),
        (Remedy::Hashing, "Key by a hash of the natural key (or lead with it) when rows are read one at a time: writes spread evenly, ranges are lost."),
        (Remedy::Reversing, "Reverse the fast-changing part of the key (a timestamp or counter written backwards) so it leads with its most varying digits."),
        (Remedy::PreSplitByDistribution, "Create the table with split points taken from the keys actually written (`basalt keydist TABLE` suggests them for `create ... SPLITS => [...]`), not from a byte range the keys never reach."),
    ];
    h.el("dl", &[("class", "remedies")], |h| {
        for (remedy, text) in entries {
            h.el_text("dt", &[("id", remedy.anchor())], remedy.name());
            h.el_text("dd", &[], text);
        }
    });
}
