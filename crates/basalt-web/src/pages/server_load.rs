//! The master page's load per region server: each live server's regions, read and write
//! rates over the hot-spot window and the hot regions it holds (table, region, share of its
//! table's writes, likely cause; each linked to its table page's heat map). The master's
//! heat sampler gathers every server's report over RPC (`remote::master`).

use super::num;
use crate::heat::servers::{server_loads, HotRegion};
use crate::heat::Heat;
use crate::html::Html;
use crate::layout::{grid, key, note};
use crate::query::link;

pub fn render(h: &mut Html, heat: &Heat) {
    if !heat.config.enabled {
        note(h, "Hot-spot sampling is off ([web.heat] enabled = false).");
        return;
    }
    let loads = server_loads(heat);
    if loads.is_empty() {
        note(
            h,
            "No load sampled yet: it shows after the first sample interval.",
        );
        return;
    }
    let headers = [
        "Server",
        "Regions",
        "Reads per second",
        "Writes per second",
        "Hot regions",
    ];
    grid(h, "server-load", &headers, |h| {
        for load in &loads {
            h.el("tr", &[("data-server", &load.server)], |h| {
                h.el_text("td", &[("class", "mono")], &load.server);
                num(h, &load.regions.to_string());
                num(h, &format!("{:.1}", load.reads_per_second));
                num(h, &format!("{:.1}", load.writes_per_second));
                h.el("td", &[("class", "hot-regions")], |h| hot(h, &load.hot));
            });
        }
    });
    note(h, &format!(
        "Rates over the last {} s, sampled from each region server's report every {} s; hot regions as the table pages flag them.",
        heat.config.window_secs,
        heat.config.sample_interval_ms as f64 / 1000.0,
    ));
}

fn hot(h: &mut Html, regions: &[HotRegion]) {
    if regions.is_empty() {
        h.text("none");
        return;
    }
    h.el("ul", &[], |h| {
        for r in regions {
            h.el(
                "li",
                &[("class", "hot-region"), ("data-cause", r.cause)],
                |h| {
                    let href = link("/table.jsp", &[("name", &r.table.to_string())]);
                    h.el_text("a", &[("href", &href)], &r.table.to_string());
                    h.text(&format!(
                        " {} (start '{}'): {}% of its writes, {}",
                        r.encoded_name,
                        key(&r.start_key),
                        r.percent,
                        r.cause
                    ));
                },
            );
        }
    });
}
