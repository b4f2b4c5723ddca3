//! The master's load per region server in a real browser, on a real cluster (3 etcd
//! members, one master, two region servers on 127.0.0.2–3, each sampling every 250 ms by
//! `[web.heat]` in `--config`): the test writes sequential keys into a table pre-split at
//! "1", "2", "3" (its regions spread over both servers) and reads another table's rows.
//! The master gathers the region servers' reports over RPC, and its page names each server
//! with its regions and read and write rates, and the one hot region (cause "monotonic")
//! under the server holding it. Headless Chromium (installed by
//! `scripts/install-chromium.sh` when missing) loads the master page and the table page's
//! heat map; screenshots are kept in `target/artefacts/`.

use crate::support;

use basalt_api::{Connection, PreSplit, RegionState};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Get, Put, TableDescriptor, TableName};
use bytes::Bytes;
use std::path::Path;
use std::time::{Duration, Instant};
use support::browser::{chromium, install_chromium};
use support::cluster::Cluster;
use support::damage::http_get;
use support::heat_loads::Load;

const CONFIG: &str = "[web.heat]\nsample_interval_ms = 250\nwindow_secs = 120\n";
const ROWS: u64 = 1200;

fn create(conn: &RemoteConnection, name: &str, splits: Vec<Bytes>) -> TableName {
    let name = TableName::parse(name).expect("name");
    let family = FamilyDescriptor::new("f").expect("family");
    conn.admin()
        .create_table(
            &TableDescriptor::new(name.clone(), vec![family]),
            &PreSplit::Keys(splits),
        )
        .expect("create");
    name
}

fn write(conn: &RemoteConnection, name: &TableName, row: impl Fn(u64) -> Bytes) {
    write_range(conn, name, 0..ROWS, row);
}

fn write_range(
    conn: &RemoteConnection,
    name: &TableName,
    rows: std::ops::Range<u64>,
    row: impl Fn(u64) -> Bytes,
) {
    let table = conn.table(name).expect("table");
    for chunk in rows.collect::<Vec<_>>().chunks(50) {
        let puts: Vec<Put> = chunk
            .iter()
            .map(|i| Put::new(row(*i)).add("f", "q", "v"))
            .collect();
        table.put_many(&puts).expect("put");
    }
}

/// The body of a page that answers 200.
fn page(web: &str, path: &str) -> String {
    let response = http_get(web, path, "text/html");
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    assert!(head.starts_with("HTTP/1.1 200"), "{path}: {head}\n{body}");
    body.to_string()
}

/// The row of the load table holding `server`.
fn server_row<'a>(body: &'a str, server: &str) -> &'a str {
    let needle = format!("data-server=\"{server}\"");
    let at = body
        .find(&needle)
        .unwrap_or_else(|| panic!("no load row for {server} in\n{body}"));
    &body[at..at + body[at..].find("</tr>").expect("the row ends")]
}

fn screenshot(binary: &Path, profile: &Path, url: &str, name: &str) {
    let artefacts = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target")
        .join("artefacts");
    std::fs::create_dir_all(&artefacts).expect("artefacts dir");
    let shot = artefacts.join(name);
    let _ = std::fs::remove_file(&shot);
    let arg = format!("--screenshot={}", shot.display());
    chromium(
        binary,
        profile,
        &[&arg, "--window-size=1280,1600", "--hide-scrollbars"],
        url,
    );
    let png = std::fs::read(&shot).expect("screenshot written");
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
        "{name}: a picture"
    );
}

#[test]
fn the_master_page_shows_each_servers_load_and_hot_regions() {
    let chromium_binary = install_chromium();
    let profile = tempfile::tempdir().expect("profile");
    let config_dir = tempfile::tempdir().expect("config dir");
    let config = config_dir.path().join("heat.toml");
    std::fs::write(&config, CONFIG).expect("write the config");
    let config = config.to_str().expect("a UTF-8 path").to_string();
    let cluster = Cluster::start_with_args(1, 2, &["--config", &config]);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let conn = RemoteConnection::connect(&cluster.masters_arg()).expect("connect");
        let load = Load::Sequential;
        let sequential = create(&conn, load.name(), load.splits());
        let readonly = create(&conn, "readonly", vec![Bytes::from("r00600")]);
        let deadline = Instant::now() + Duration::from_secs(60);
        let regions = loop {
            let regions = conn.admin().list_regions(&sequential).expect("regions");
            let open = regions
                .iter()
                .all(|r| r.state == RegionState::Open && !r.server.is_empty());
            if open {
                break regions;
            }
            assert!(
                Instant::now() < deadline,
                "regions never opened: {regions:?}"
            );
            std::thread::sleep(Duration::from_millis(200));
        };
        let servers: std::collections::BTreeSet<&str> =
            regions.iter().map(|r| r.server.as_str()).collect();
        assert_eq!(
            servers.len(),
            2,
            "the regions spread over both servers: {regions:?}"
        );
        write(&conn, &readonly, |i| Bytes::from(format!("r{i:05}")));
        write(&conn, &sequential, |i| load.row(i));
        let table = conn.table(&readonly).expect("table");
        for i in 0..400 {
            table.get(&Get::new(format!("r{i:05}"))).expect("get");
        }

        // The hot region is the one the timestamps go to, on whichever server holds it
        // when the page is read (the balancer may have moved it since).
        let master = cluster.masters[0].web.clone().expect("the master's web UI");
        let deadline = Instant::now() + Duration::from_secs(90);
        let mut next = ROWS;
        let (home, hot, cool) = loop {
            let home = page(&master, "/master-status");
            let regions = conn.admin().list_regions(&sequential).expect("regions");
            let hot = regions
                .iter()
                .find(|r| r.start_key.as_ref() == b"1")
                .expect("the region the timestamps go to")
                .clone();
            let cool = servers
                .iter()
                .find(|s| **s != hot.server)
                .map(|s| s.to_string())
                .expect("the other server");
            let shown = home.contains(&format!("data-server=\"{}\"", hot.server))
                && server_row(&home, &hot.server).contains(&hot.encoded_name);
            if home.contains("data-cause=\"monotonic\"") && shown {
                break (home, hot, cool);
            }
            assert!(
                Instant::now() < deadline,
                "no hot region flagged under {} ({}):\n{home}",
                hot.server,
                hot.encoded_name
            );
            // The load goes on, as a user's would: the master's first sample of the
            // regions may have come after the first writes (a first reading is the
            // baseline), so later samples see these.
            write_range(&conn, &sequential, next..next + 200, |i| load.row(i));
            next += 200;
            std::thread::sleep(Duration::from_millis(250));
        };
        let hot_row = server_row(&home, &hot.server);
        assert!(
            hot_row.contains("(start &#39;1&#39;): 100% of its writes, monotonic"),
            "{hot_row}"
        );
        assert!(
            server_row(&home, &cool).contains("none"),
            "the other server holds no hot region"
        );

        let url = format!("http://{master}/master-status");
        let dom = chromium(&chromium_binary, profile.path(), &["--dump-dom"], &url);
        assert!(dom.contains("<h2>Load per region server</h2>"), "{dom}");
        for server in &servers {
            assert!(
                dom.contains(&format!("data-server=\"{server}\"")),
                "{server} listed:\n{dom}"
            );
        }
        assert_eq!(
            dom.matches("class=\"hot-region\"").count(),
            1,
            "one hot region:\n{dom}"
        );
        assert!(
            dom.contains("(start '1'): 100% of its writes, monotonic"),
            "{dom}"
        );
        screenshot(
            &chromium_binary,
            profile.path(),
            &url,
            "cluster-master-load.png",
        );

        // The master's table page has the heat map too, from the same samples.
        let table_url = format!("http://{master}/table.jsp?name={}", load.name());
        let dom = chromium(
            &chromium_binary,
            profile.path(),
            &["--dump-dom"],
            &table_url,
        );
        assert!(dom.contains("<svg class=\"heatmap\""), "{dom}");
        assert!(dom.contains("data-cause=\"monotonic\""), "{dom}");
        screenshot(
            &chromium_binary,
            profile.path(),
            &table_url,
            "cluster-table-heat.png",
        );
    }));
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}
