//! The master page's regions in transition and crash recoveries.
//!
//! Regions in transition, oldest first: region, state, server, age, and "stuck" past the
//! master's `rit_stuck_warning_threshold`. Crash recoveries: those running (how long so
//! far), then the last finished (how long they took).

use crate::html::Html;
use crate::layout::{grid, note};
use crate::units;
use basalt_proto::pb;

pub fn regions(h: &mut Html, status: &pb::ClusterStatus) {
    if status.transitions.is_empty() {
        note(h, "No region is in transition.");
        return;
    }
    let threshold = status.rit_stuck_threshold_ms;
    note(
        h,
        &format!(
            "A region in transition for longer than {} is stuck.",
            seconds(threshold)
        ),
    );
    let headers = ["Region", "State", "Server", "Since", "Age", "Stuck"];
    grid(h, "rit", &headers, |h| {
        for t in &status.transitions {
            h.el("tr", &[], |h| {
                h.el_text("td", &[("class", "mono")], &t.region);
                h.el_text("td", &[], &t.state);
                h.el_text("td", &[("class", "mono")], &t.server);
                let since = u64::try_from(t.since_ms).unwrap_or(0);
                h.el_text("td", &[], &units::timestamp_ms(since));
                h.el_text("td", &[("class", "num")], &seconds(t.age_ms));
                let stuck = if t.age_ms > threshold { "stuck" } else { "" };
                h.el_text("td", &[], stuck);
            });
        }
    });
}

pub fn recoveries(h: &mut Html, status: &pb::ClusterStatus) {
    let none = pb::CrashRecoveries::default();
    let r = status.recoveries.as_ref().unwrap_or(&none);
    if r.running.is_empty() && r.recent.is_empty() {
        note(h, "No crash recovery since this master became active.");
        return;
    }
    note(
        h,
        &format!(
            "{} finished since this master became active, {} in all; {} running.",
            r.finished_total,
            seconds((r.seconds_total * 1e3) as u64),
            r.running.len()
        ),
    );
    let headers = ["Server", "Regions", "Started", "State", "Duration"];
    grid(h, "recoveries", &headers, |h| {
        let rows = r.running.iter().map(|c| (c, "running"));
        for (c, state) in rows.chain(r.recent.iter().map(|c| (c, "done"))) {
            h.el("tr", &[], |h| {
                h.el_text("td", &[("class", "mono")], &c.server);
                h.el_text("td", &[("class", "num")], &c.regions.to_string());
                let started = u64::try_from(c.started_ms).unwrap_or(0);
                h.el_text("td", &[], &units::timestamp_ms(started));
                h.el_text("td", &[], state);
                h.el_text("td", &[("class", "num")], &seconds(c.duration_ms));
            });
        }
    });
}

/// Milliseconds as seconds with one decimal: "2.1 s".
fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1e3)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(status: &pb::ClusterStatus) -> String {
        Html::document(|h| {
            regions(h, status);
            recoveries(h, status);
        })
    }

    #[test]
    fn stuck_regions_and_recoveries_are_shown_with_their_times() {
        let status = pb::ClusterStatus {
            rit_stuck_threshold_ms: 1000,
            transitions: vec![
                pb::RegionInTransition {
                    region: "old".into(),
                    state: "OPENING".into(),
                    server: "h,1,2".into(),
                    age_ms: 2500,
                    since_ms: 0,
                },
                pb::RegionInTransition {
                    region: "new".into(),
                    state: "CLOSING".into(),
                    server: "h,1,2".into(),
                    age_ms: 10,
                    since_ms: 0,
                },
            ],
            recoveries: Some(pb::CrashRecoveries {
                recent: vec![pb::CrashRecovery {
                    server: "dead,1,2".into(),
                    regions: 3,
                    started_ms: 0,
                    duration_ms: 2100,
                }],
                finished_total: 1,
                seconds_total: 2.1,
                ..pb::CrashRecoveries::default()
            }),
            ..pb::ClusterStatus::default()
        };
        let page = render(&status);
        assert!(page.contains("<td>OPENING</td>"), "{page}");
        assert!(page.contains("2.5 s</td><td>stuck</td>"), "{page}");
        assert!(page.contains("0.0 s</td><td></td>"), "{page}");
        assert!(page.contains("dead,1,2"), "{page}");
        assert!(
            page.contains("<td>done</td><td class=\"num\">2.1 s</td>"),
            "{page}"
        );
    }

    #[test]
    fn nothing_in_transition_says_so() {
        let page = render(&pb::ClusterStatus::default());
        assert!(page.contains("No region is in transition."));
        assert!(page.contains("No crash recovery"));
    }
}
