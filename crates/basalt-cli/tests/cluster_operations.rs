//! Operating a real cluster through failures (3 etcd members, a master and 2 region
//! servers, `rit_stuck_warning_threshold_ms = 1000` in the `--config` file):
//!
//! - a region moved onto a server that is paused (SIGSTOP) stays OPENING: the master's
//!   `/metrics` counts it stuck, its page lists it with its state, server and age, and its
//!   log warns naming it; once the server resumes the region opens and nothing is stuck;
//! - a region server killed outright starts a crash recovery that ends, with its duration,
//!   once its regions serve elsewhere: on `/metrics` (the summary's count and sum, none
//!   running) and on the master's page; every row is still there.

use crate::support;

use basalt_api::{Connection, RegionState};
use basalt_client::RemoteConnection;
use std::time::{Duration, Instant};
use support::cluster::{signal, Cluster};
use support::damage::http_get;
use support::tables;

const TABLE: &str = "opst";
const ROWS: u64 = 200;

fn body(addr: &str, path: &str, accept: &str) -> String {
    let response = http_get(addr, path, accept);
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    assert!(head.starts_with("HTTP/1.1 200"), "{path}: {head}\n{body}");
    body.to_string()
}

/// The value of the Prometheus sample `name` (with its labels) on the master.
fn sample(web: &str, name: &str) -> f64 {
    let metrics = body(web, "/metrics", "text/plain");
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no {name} in\n{metrics}"))
        .parse()
        .expect("a number")
}

fn eventually(secs: u64, what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !check() {
        assert!(Instant::now() < deadline, "{what}: not within {secs} s");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn stuck_regions_and_crash_recoveries_are_measured_shown_and_logged() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("basalt.toml");
    std::fs::write(&config, "[master]\nrit_stuck_warning_threshold_ms = 1000\n")
        .expect("write the config");
    let config_arg = config.display().to_string();
    // A lease long enough for a server paused a few seconds to stay live.
    let cluster = Cluster::start_with_args(1, 2, &["--config", &config_arg, "--lease-ttl", "20"]);
    let web = cluster.masters[0].web.clone().expect("the master's web UI");
    let conn = RemoteConnection::connect(&cluster.masters_arg()).expect("connect");
    tables::create(&conn, TABLE, 4);
    tables::fill(&conn, TABLE, ROWS);
    tables::with_logs(&cluster, || {
        assert_eq!(
            sample(&web, "basalt_cluster_regions_in_transition_over_threshold"),
            0.0
        );

        // A region moved onto a paused server is stuck OPENING there.
        let (from, to) = (
            cluster.servers[0].name.clone(),
            cluster.servers[1].name.clone(),
        );
        let region = tables::regions(&conn, TABLE)
            .into_iter()
            .find(|r| r.server == from && r.state == RegionState::Open)
            .expect("a region on the first server")
            .encoded_name;
        signal(&cluster.servers[1].child, "STOP");
        let mover = {
            let conn = RemoteConnection::connect(&cluster.masters_arg()).expect("connect");
            let (region, to) = (region.clone(), to.clone());
            std::thread::spawn(move || conn.admin().move_region(&region, Some(&to)))
        };
        let stuck = std::panic::catch_unwind(|| {
            // The log first: the status asks every server for its report, and a paused
            // one answers only when the report's timeout ends (the master's call to it
            // fails a few seconds in: the metrics and the page are asked at once).
            let log = &cluster.masters[0].log;
            eventually(15, "the warning", || {
                std::fs::read_to_string(log)
                    .unwrap_or_default()
                    .lines()
                    .any(|l| {
                        l.contains("WARN")
                            && l.contains("region stuck in transition")
                            && l.contains(&region)
                            && l.contains("OPENING")
                    })
            });
            let (metrics, page) = std::thread::scope(|s| {
                let metrics = s.spawn(|| body(&web, "/metrics", "text/plain"));
                let page = s.spawn(|| body(&web, "/master-status", "text/html"));
                (metrics.join().expect("metrics"), page.join().expect("page"))
            });
            assert!(
                metrics.contains("\nbasalt_cluster_regions_in_transition_over_threshold 1\n"),
                "{metrics}"
            );
            let oldest = metrics
                .lines()
                .find_map(|l| l.strip_prefix("basalt_cluster_rit_oldest_age_seconds "))
                .and_then(|v| v.parse::<f64>().ok())
                .expect("the oldest age");
            assert!(oldest > 1.0, "{oldest}");
            let row = page
                .split("<tr>")
                .find(|r| r.contains(&region))
                .unwrap_or_else(|| panic!("{region} is not in transition on\n{page}"));
            for needle in ["OPENING", &to, "stuck"] {
                assert!(row.contains(needle), "{needle} not in {row}");
            }
        });
        signal(&cluster.servers[1].child, "CONT");
        if let Err(panic) = stuck {
            std::panic::resume_unwind(panic);
        }
        if mover.join().expect("the move thread").is_err() {
            // The master's call gave up on the paused server: the region FAILED_OPEN.
            conn.admin().assign(&region).expect("assign it again");
        }
        eventually(30, "nothing stuck once the server resumed", || {
            sample(&web, "basalt_cluster_regions_in_transition_over_threshold") == 0.0
                && tables::regions(&conn, TABLE)
                    .iter()
                    .all(|r| r.state == RegionState::Open)
        });

        // A region server killed outright: its crash recovery runs, then ends, timed.
        assert_eq!(
            sample(&web, "basalt_master_crash_recovery_seconds_count"),
            0.0
        );
        let killed = &cluster.servers[1];
        signal(&killed.child, "KILL");
        eventually(60, "the crash recovery done", || {
            sample(&web, "basalt_master_crash_recovery_seconds_count") == 1.0
                && sample(&web, "basalt_master_crash_recoveries_running") == 0.0
        });
        let took = sample(&web, "basalt_master_crash_recovery_seconds_sum");
        assert!(took > 0.0 && took < 60.0, "took {took} s");
        assert!(
            sample(
                &web,
                "basalt_master_crash_recovery_seconds{quantile=\"0.5\"}"
            ) > 0.0
        );
        let page = body(&web, "/master-status", "text/html");
        let recoveries = &page[page.find("<h2>Crash recoveries").expect("the section")..];
        let row = recoveries
            .split("<tr>")
            .find(|r| r.contains(&killed.name))
            .unwrap_or_else(|| panic!("{} not in\n{recoveries}", killed.name));
        assert!(row.contains("<td>done</td>"), "{row}");
        assert!(row.contains(" s</td>"), "{row}");
        tables::check_rows(&conn, TABLE, ROWS);
    });
}
