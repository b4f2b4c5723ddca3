//! Regions of a dead server waiting for a live one are regions in transition (issue #16),
//! with real processes: 3 etcd members, a master (`rit_stuck_warning_threshold_ms = 1000`)
//! and one region server, killed with nothing to take its regions.
//!
//! Its regions are counted in transition (`status`, the master's `/metrics` and page, the
//! stuck warning) from the crash on, their age growing while they wait; once their table
//! is dropped they are in transition no more.

use crate::support;

use basalt_api::Connection;
use basalt_client::RemoteConnection;
use std::time::{Duration, Instant};
use support::cluster::{signal, Cluster};
use support::damage::http_get;
use support::tables::{self, regions, table_name};

const TABLE: &str = "waiting";

fn metrics(web: &str) -> String {
    let response = http_get(web, "/metrics", "text/plain");
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    assert!(head.starts_with("HTTP/1.1 200"), "{head}\n{body}");
    body.to_string()
}

fn sample(metrics: &str, name: &str) -> f64 {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no {name} in\n{metrics}"))
        .parse()
        .expect("a number")
}

/// The `status` lines of the regions in transition naming one of `names`.
fn in_transition(conn: &RemoteConnection, names: &[String]) -> Vec<String> {
    let status = conn
        .admin()
        .cluster_status()
        .expect("status")
        .expect("a cluster");
    status
        .regions_in_transition
        .into_iter()
        .filter(|line| names.iter().any(|n| line.starts_with(n.as_str())))
        .collect()
}

#[test]
fn crashed_regions_waiting_for_a_server_age_in_transition_until_their_table_is_dropped() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("basalt.toml");
    std::fs::write(&config, "[master]\nrit_stuck_warning_threshold_ms = 1000\n")
        .expect("write the config");
    let config_arg = config.display().to_string();
    let cluster = Cluster::start_with_args(1, 1, &["--config", &config_arg]);
    let web = cluster.masters[0].web.clone().expect("the master's web UI");
    let conn = RemoteConnection::connect(&cluster.masters_arg()).expect("connect");
    tables::create(&conn, TABLE, 2);
    tables::fill(&conn, TABLE, 20);
    let names: Vec<String> = regions(&conn, TABLE)
        .into_iter()
        .map(|r| r.encoded_name)
        .collect();
    tables::with_logs(&cluster, || {
        assert!(in_transition(&conn, &names).is_empty());
        let dead = cluster.servers[0].name.clone();
        signal(&cluster.servers[0].child, "KILL");

        // Once its lease ends, both regions wait in transition, CRASHED on the dead server.
        let deadline = Instant::now() + Duration::from_secs(40);
        let first = loop {
            let now = in_transition(&conn, &names);
            if now.len() == names.len() {
                break now;
            }
            assert!(Instant::now() < deadline, "never in transition: {now:?}");
            std::thread::sleep(Duration::from_millis(200));
        };
        for line in &first {
            assert!(line.contains("CRASHED") && line.contains(&dead), "{line}");
        }
        let early = metrics(&web);
        assert!(sample(&early, "basalt_cluster_regions_in_transition") >= 2.0);
        let age = sample(&early, "basalt_cluster_rit_oldest_age_seconds");

        // Still waiting later: counted from the crash, older, past the threshold, warned.
        std::thread::sleep(Duration::from_millis(2500));
        assert_eq!(in_transition(&conn, &names).len(), names.len());
        let later = metrics(&web);
        let older = sample(&later, "basalt_cluster_rit_oldest_age_seconds");
        assert!(older >= age + 2.0, "the age went from {age} to {older}");
        assert!(
            sample(
                &later,
                "basalt_cluster_regions_in_transition_over_threshold"
            ) >= 2.0
        );
        let page = http_get(&web, "/master-status", "text/html");
        for name in &names {
            let row = page
                .split("<tr>")
                .find(|r| r.contains(name.as_str()))
                .unwrap_or_else(|| panic!("{name} is not in transition on\n{page}"));
            assert!(row.contains("CRASHED") && row.contains("stuck"), "{row}");
        }
        let log = std::fs::read_to_string(&cluster.masters[0].log).expect("the master's log");
        assert!(
            log.lines().any(|l| l.contains("region stuck in transition")
                && l.contains("CRASHED")
                && l.contains(&names[0])),
            "{log}"
        );

        // Dropped: nothing is waiting for them any more.
        let admin = conn.admin();
        admin.disable_table(&table_name(TABLE)).expect("disable");
        admin.delete_table(&table_name(TABLE)).expect("drop");
        assert_eq!(in_transition(&conn, &names), Vec::<String>::new());
        let after = metrics(&web);
        assert_eq!(
            sample(
                &after,
                "basalt_cluster_regions_in_transition_over_threshold"
            ),
            0.0,
            "{after}"
        );
    });
}
