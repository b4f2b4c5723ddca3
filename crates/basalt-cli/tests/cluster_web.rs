//! The web UIs of a real cluster (3 etcd members, 2 masters, 3 region servers on
//! 127.0.0.2–4, every process with `--web-port 0`), fetched over HTTP as a browser would.
//!
//! The active master's page names every live server with a link to its own page, the
//! backup master, a pre-split table and, on the table page, each region with its keys and
//! server; each region server's `/rs-status` lists exactly the regions the master says it
//! holds; a server killed with SIGKILL is listed dead; the backup master's page says it is
//! a backup and names the active one; `/metrics` answers on both kinds; a malformed request
//! and a silent socket leave the listener serving.

use crate::support;

use basalt_api::{Connection, PreSplit, RegionReport, RegionState};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Get, Put, TableDescriptor, TableName};
use bytes::Bytes;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};
use support::cluster::Cluster;
use support::damage::http_get;

const TABLE: &str = "webt";
const SPLITS: [&[u8]; 3] = [b"g", b"n", b"t"];

/// A page's status line and body.
fn fetch(addr: &str, path: &str) -> (String, String) {
    let response = http_get(addr, path, "text/html");
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head.lines().next().unwrap_or_default().to_string();
    (status, body.to_string())
}

/// A page that must answer 200.
fn page(addr: &str, path: &str) -> String {
    let (status, body) = fetch(addr, path);
    assert!(
        status.starts_with("HTTP/1.1 200"),
        "{path}: {status}\n{body}"
    );
    body
}

/// What follows heading `title` up to the next section heading.
fn section<'a>(body: &'a str, title: &str) -> &'a str {
    let start = body
        .find(&format!("<h2>{title}"))
        .unwrap_or_else(|| panic!("no section {title} in\n{body}"));
    let rest = &body[start + 4..];
    &rest[..rest.find("<h2>").unwrap_or(rest.len())]
}

/// The table row holding `needle`.
fn row_with<'a>(body: &'a str, needle: &str) -> &'a str {
    let at = body
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} is not on the page"));
    let start = body[..at].rfind("<tr>").expect("inside a row");
    let end = at + body[at..].find("</tr>").expect("row ends");
    &body[start..end]
}

/// The value of the Prometheus sample `name` (with its labels).
fn sample(metrics: &str, name: &str) -> u64 {
    let line = metrics
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no {name} in\n{metrics}"));
    line.parse().expect("a count")
}

/// Polls `check` for up to `secs` seconds.
fn eventually(secs: u64, what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !check() {
        assert!(Instant::now() < deadline, "{what}: not within {secs} s");
        std::thread::sleep(Duration::from_millis(250));
    }
}

fn create_table(conn: &RemoteConnection) -> Vec<RegionReport> {
    let name = TableName::parse(TABLE).expect("name");
    let family = FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family");
    let splits = SPLITS.iter().map(|k| Bytes::from_static(k)).collect();
    conn.admin()
        .create_table(
            &TableDescriptor::new(name.clone(), vec![family]),
            &PreSplit::Keys(splits),
        )
        .expect("create the pre-split table");
    let table = conn.table(&name).expect("table");
    for row in ["a", "h", "p", "u"] {
        table
            .put(&Put::new(row.as_bytes()).add("f", "q", "v"))
            .expect("put");
        table.get(&Get::new(row.as_bytes())).expect("get");
    }
    let mut regions = Vec::new();
    eventually(30, "every region open on a server", || {
        regions = conn.admin().list_regions(&name).expect("regions");
        regions
            .iter()
            .all(|r| r.state == RegionState::Open && !r.server.is_empty())
    });
    regions
}

#[test]
fn masters_and_region_servers_show_the_cluster_read_over_rpc() {
    let mut cluster = Cluster::start(2, 3);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let conn = RemoteConnection::connect(&cluster.masters_arg()).expect("connect");
        let regions = create_table(&conn);
        let status = conn
            .admin()
            .cluster_status()
            .expect("status")
            .expect("a cluster");
        let active = cluster
            .masters
            .iter()
            .find(|m| m.addr == status.active_master)
            .expect("the active master is one of ours");
        let backup = cluster
            .masters
            .iter()
            .find(|m| m.addr != status.active_master)
            .expect("a backup master");
        let active_web = active.web.clone().expect("the active master's web UI");
        let backup_web = backup.web.clone().expect("the backup master's web UI");

        // The active master's home: servers with links, the backup, the table.
        let home = page(&active_web, "/master-status");
        let servers = section(&home, "Region servers");
        for server in &cluster.servers {
            let web = server.web.as_deref().expect("a region server's web UI");
            let row = row_with(servers, &server.name);
            assert!(
                row.contains(&format!("href=\"http://{web}/rs-status\"")),
                "{row}"
            );
        }
        let masters = section(&home, "Software attributes");
        assert!(masters.contains(&backup.addr), "{masters}");
        assert!(section(&home, "Tables").contains(TABLE), "{home}");
        assert!(page(&active_web, "/").contains("Region servers"));

        // The table page: every region with its keys and server.
        let table = page(&active_web, &format!("/table.jsp?name={TABLE}"));
        for r in &regions {
            let row = row_with(&table, &r.encoded_name);
            assert!(row.contains(&r.server), "{} not on {row}", r.server);
            for key in [&r.start_key, &r.end_key]
                .into_iter()
                .filter(|k| !k.is_empty())
            {
                let key = std::str::from_utf8(key).expect("a text key");
                assert!(row.contains(&format!(">{key}<")), "{key} not on {row}");
            }
        }

        // Each region server lists exactly its regions, and counts the puts it served.
        let mut puts = 0;
        for server in &cluster.servers {
            let web = server.web.as_deref().expect("web UI");
            let body = page(web, "/rs-status");
            assert!(body.contains(&server.name), "the page names its server");
            assert!(
                !body.contains("/table.jsp"),
                "no link to pages it does not serve"
            );
            let mine: Vec<&RegionReport> =
                regions.iter().filter(|r| r.server == server.name).collect();
            let listed = section(&body, "Regions (");
            assert!(
                listed.starts_with(&format!("Regions ({})", mine.len())),
                "{listed}"
            );
            for r in &regions {
                assert_eq!(
                    listed.contains(&r.encoded_name),
                    r.server == server.name,
                    "region {} on {}: {listed}",
                    r.encoded_name,
                    r.server
                );
            }
            let metrics = page(web, "/metrics");
            puts += sample(&metrics, "basalt_requests_total{op=\"put\"}");
            assert!(
                page(web, "/").contains(&server.name),
                "/ is its status page"
            );
        }
        assert_eq!(
            puts, 4,
            "one put per row, each counted by its region's server"
        );
        let metrics = page(&active_web, "/metrics");
        assert!(
            metrics.contains("basalt_cluster_region_servers 3"),
            "{metrics}"
        );
        assert!(metrics.contains("basalt_master_active 1"), "{metrics}");

        // The backup master says what it is and names the active one.
        let standby = page(&backup_web, "/");
        assert!(standby.contains("Backup master"), "{standby}");
        assert!(standby.contains(&active.addr), "{standby}");
        assert!(page(&backup_web, "/metrics").contains("basalt_master_active 0"));

        // A malformed request and a silent socket leave the master's listener serving.
        listener_survives(&active_web);

        // A region server killed outright is listed dead.
        let victim = cluster.servers.remove(2);
        let mut child = victim.child;
        child.kill().expect("SIGKILL");
        child.wait().expect("reaped");
        eventually(60, "the killed server listed dead", || {
            let body = page(&active_web, "/master-status");
            section(&body, "Dead region servers").contains(&victim.name)
                && !section(&body, "Region servers").contains(&victim.name)
        });
    }));
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}

/// Garbage, a bad query and a socket that never sends: each gets its answer (or none) and
/// the next page is served at once.
fn listener_survives(web: &str) {
    let silent = TcpStream::connect(web).expect("connect");
    let mut garbage = TcpStream::connect(web).expect("connect");
    garbage
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    garbage
        .write_all(b"\x16\x03\x01 NOT HTTP AT ALL\r\n\r\n")
        .expect("send");
    let mut answer = Vec::new();
    let _ = garbage.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 400"),
        "{answer}"
    );
    let (status, _) = fetch(web, "/table.jsp?name=%ZZ");
    assert!(status.starts_with("HTTP/1.1 400"), "{status}");
    let (status, _) = fetch(web, "/table.jsp?name=no_such_table");
    assert!(status.starts_with("HTTP/1.1 404"), "{status}");
    let started = Instant::now();
    assert!(page(web, "/master-status").contains("Region servers"));
    assert!(started.elapsed() < Duration::from_secs(5), "served at once");
    drop(silent);
}
