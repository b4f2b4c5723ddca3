//! A damaged store file through the real binary: `basalt standalone` starts, the damaged
//! region is FAILED_OPEN and every other serves; a client's request to it fails within a
//! second with `NotServingRegionException` naming the file (no retry loop), as does the
//! REST gateway's; `status 'detailed'`, `list_regions`, `/metrics`, the home page and
//! `basalt hbck --connect` show it. Stopped, `basalt hbck --data-dir` names the file and,
//! told to, sets it aside; the next start opens the region; `--purge-quarantine` empties
//! the quarantine and hbck reports `Status: OK`.

use crate::support;

use basalt_api::{Connection, PreSplit};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Get, Put, TableDescriptor, TableName};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};
use support::damage::{damage, http_get, Part};
use support::{basalt, start, stop};

const NOT_SERVING: &str = "NotServingRegionException";

fn name(t: &str) -> TableName {
    TableName::parse(t).expect("valid")
}

/// Tables `t` (split at `m`) and `other` with rows, flushed by a clean stop; returns the
/// store file of `t`'s region `[m, )`, its index damaged.
fn damaged_store_file(dir: &Path) -> PathBuf {
    let server = start(dir);
    let conn = RemoteConnection::connect(&server.addr).expect("connect");
    let admin = conn.admin();
    for (table, split) in [
        ("t", PreSplit::Keys(vec!["m".into()])),
        ("other", PreSplit::None),
    ] {
        let d = TableDescriptor::new(
            name(table),
            vec![FamilyDescriptor::new("f").expect("valid")],
        );
        admin.create_table(&d, &split).expect("create");
        let rows = conn.table(&name(table)).expect("table");
        for row in ["c", "q"] {
            rows.put(&Put::new(row).add("f", "q", row)).expect("put");
        }
    }
    let high = admin.list_regions(&name("t")).expect("regions")[1]
        .encoded_name
        .clone();
    drop(conn);
    stop(server);
    damage(&dir.join("data/default/t").join(high), "f", Part::Index)
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_failed_region_answers_at_once_is_shown_everywhere_and_hbck_brings_it_back() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().to_str().expect("utf-8 path");
    let file = damaged_store_file(dir.path());
    let relative = file
        .strip_prefix(dir.path())
        .expect("inside")
        .display()
        .to_string();

    let server = start(dir.path());
    let conn = RemoteConnection::connect(&server.addr).expect("connect");
    let t = conn.table(&name("t")).expect("table");
    assert!(t
        .get(&Get::new("c"))
        .expect("served")
        .value(b"f", b"q")
        .is_some());
    let started = Instant::now();
    let e = t.get(&Get::new("q")).expect_err("the failed region");
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(e.short_name(), NOT_SERVING);
    assert!(
        e.message.contains(&relative) && e.message.contains("FAILED_OPEN"),
        "{e}"
    );
    let other = conn.table(&name("other")).expect("table");
    assert!(other
        .get(&Get::new("q"))
        .expect("served")
        .value(b"f", b"q")
        .is_some());

    let rest = server.sidecar_addr("rest").expect("rest gateway");
    let answer = http_get(&rest, "/t/q", "application/json");
    assert!(
        answer.starts_with("HTTP/1.1 503") && answer.contains(NOT_SERVING),
        "{answer}"
    );

    let shell = basalt(
        &["shell", "--connect", &server.addr],
        "status 'detailed'\nlist_regions 't'\n",
    );
    let shown = text(&shell);
    assert!(shown.contains("1 regions FAILED_OPEN"), "{shown}");
    assert!(
        shown.matches(&relative).count() >= 2,
        "status and list_regions name the file: {shown}"
    );
    assert!(shown.contains("numberOfOnlineRegions=2"), "{shown}");

    let web = server.sidecar_addr("web").expect("web UI");
    let metrics = http_get(&web, "/metrics", "text/plain");
    assert!(
        metrics.contains("\nbasalt_regions_failed_open 1\n"),
        "{metrics}"
    );
    let home = http_get(&web, "/", "text/html");
    assert!(
        home.contains("FAILED_OPEN") && home.contains(&relative),
        "home page"
    );

    let online = basalt(&["hbck", "--connect", &server.addr], "");
    assert_eq!(online.status.code(), Some(1), "{}", text(&online));
    assert!(
        text(&online).contains("Regions FAILED_OPEN: 1"),
        "{}",
        text(&online)
    );
    let locked = basalt(&["hbck", "--data-dir", data], "");
    assert!(!locked.status.success());
    assert!(String::from_utf8_lossy(&locked.stderr).contains("--connect"));
    drop((t, other, conn));
    stop(server);

    let offline = basalt(&["hbck", "--data-dir", data], "");
    let report = text(&offline);
    assert_eq!(offline.status.code(), Some(1), "{report}");
    assert!(
        report.contains(&format!("store file {relative}")),
        "{report}"
    );
    assert!(report.contains("Status: INCONSISTENT"), "{report}");

    let fixed = basalt(
        &["hbck", "--data-dir", data, "--quarantine-file", &relative],
        "",
    );
    let report = text(&fixed);
    assert!(
        report.contains("Quarantined on request") && report.contains("is no longer served"),
        "{report}"
    );
    assert!(
        report.contains("Damaged files: 0") && report.contains("Regions FAILED_OPEN: 0"),
        "{report}"
    );

    let server = start(dir.path());
    let conn = RemoteConnection::connect(&server.addr).expect("connect");
    let t = conn.table(&name("t")).expect("table");
    assert!(t
        .get(&Get::new("q"))
        .expect("served again")
        .value(b"f", b"q")
        .is_none());
    assert!(t
        .get(&Get::new("c"))
        .expect("served")
        .value(b"f", b"q")
        .is_some());
    drop((t, conn));
    stop(server);

    let purged = basalt(&["hbck", "--data-dir", data, "--purge-quarantine"], "");
    let report = text(&purged);
    assert!(report.contains("Purged 1 quarantined items"), "{report}");
    assert!(report.contains("Status: OK"), "{report}");
    assert!(purged.status.success());
}
