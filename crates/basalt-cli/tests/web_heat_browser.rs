//! The table page's heat map in a real browser: headless Chromium (installed by
//! `scripts/install-chromium.sh` when missing) loads the table page of a `basalt
//! standalone` sampling every 250 ms, for three loads the test writes: sequential keys (one
//! hot region, cause "monotonic"), salted keys over a table pre-split at the salts (even:
//! nothing flagged), and the seeds' lumpy hex split written with decimal keys (idle regions
//! flagged). Screenshots are kept in `target/artefacts/`.

use crate::support;

use support::browser::{chromium, install_chromium};

use basalt_api::{Connection, PreSplit};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Put, TableDescriptor, TableName};
use bytes::Bytes;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};
use support::heat_loads::{Load, LOADS};

const ROWS: u64 = 1200;
const CONFIG: &str = "[web.heat]\nsample_interval_ms = 250\nwindow_secs = 120\n";

/// The body of `GET path`, over a plain socket.
fn http_get(web: &str, path: &str) -> String {
    let mut stream = TcpStream::connect(web).expect("connect to the web UI");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {web}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut out = String::new();
    stream.read_to_string(&mut out).expect("read");
    out
}

fn create_and_load(conn: &RemoteConnection, load: Load) {
    let name = TableName::parse(load.name()).expect("name");
    let family = FamilyDescriptor::new("f").expect("family");
    conn.admin()
        .create_table(
            &TableDescriptor::new(name.clone(), vec![family]),
            &PreSplit::Keys(load.splits()),
        )
        .expect("create");
    let table = conn.table(&name).expect("table");
    for chunk in (0..ROWS).collect::<Vec<_>>().chunks(50) {
        let puts: Vec<Put> = chunk
            .iter()
            .map(|i| {
                Put::new(load.row(*i)).add(
                    Bytes::from_static(b"f"),
                    Bytes::from_static(b"q"),
                    Bytes::from_static(b"v"),
                )
            })
            .collect();
        table.put_many(&puts).expect("put");
    }
}

/// What the page must say of `load`'s hot spots once sampled.
fn settled(load: Load, page: &str) -> bool {
    match load {
        Load::Sequential => page.contains("data-cause=\"monotonic\""),
        Load::Salted => page.contains("id=\"hotspots-none\"") && page.contains("class=\"heatmap\""),
        Load::Lumpy => page.contains("9 of 11 regions get no writes"),
    }
}

#[test]
fn chromium_shows_each_loads_heat_map_and_hot_spots() {
    let chromium_binary = install_chromium();
    let data = tempfile::tempdir().expect("temp dir");
    let profile = tempfile::tempdir().expect("profile");
    let config_dir = tempfile::tempdir().expect("config dir");
    let config = config_dir.path().join("heat.toml");
    std::fs::write(&config, CONFIG).expect("write the config");
    let running = support::start_with(
        data.path(),
        &["--config", config.to_str().expect("a UTF-8 path")],
    );
    let web = running.sidecar_addr("web").expect("web address");
    let conn = RemoteConnection::connect(&running.addr).expect("connect");
    for load in LOADS {
        create_and_load(&conn, load);
    }
    let artefacts = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target")
        .join("artefacts");
    std::fs::create_dir_all(&artefacts).expect("artefacts dir");
    for load in LOADS {
        let path = format!("/table.jsp?name={}", load.name());
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let page = http_get(&web, &path);
            if settled(load, &page) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{}: never settled:\n{page}",
                load.name()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        let url = format!("http://{web}{path}");
        let dom = chromium(&chromium_binary, profile.path(), &["--dump-dom"], &url);
        assert!(
            dom.contains("<svg class=\"heatmap\""),
            "{}: the browser built the map",
            load.name()
        );
        assert!(
            dom.contains("<title>start key"),
            "{}: columns name their start keys",
            load.name()
        );
        let hot = dom.matches("class=\"hotspot\"").count();
        match load {
            Load::Sequential => {
                assert_eq!(hot, 1, "one flag:\n{dom}");
                assert!(dom.contains("data-cause=\"monotonic\""));
                assert!(dom.contains("(start '1') takes 100% of writes"), "{dom}");
                assert!(
                    dom.contains("id=\"remedy-salting\""),
                    "the remedies it links"
                );
            }
            Load::Salted => assert_eq!(hot, 0, "nothing flagged:\n{dom}"),
            Load::Lumpy => {
                assert!(dom.contains("data-cause=\"lumpy split\""), "{dom}");
                assert!(dom.contains("9 of 11 regions get no writes"));
            }
        }
        let reads = chromium(
            &chromium_binary,
            profile.path(),
            &["--dump-dom"],
            &format!("{url}&heat=reads"),
        );
        assert!(
            reads.contains("reads per second by region"),
            "the reads toggle colours by reads"
        );
        let shot = artefacts.join(format!("heat-{}.png", load.name()));
        let _ = std::fs::remove_file(&shot);
        let shot_arg = format!("--screenshot={}", shot.display());
        chromium(
            &chromium_binary,
            profile.path(),
            &[&shot_arg, "--window-size=1280,1400", "--hide-scrollbars"],
            &url,
        );
        let png = std::fs::read(&shot).expect("screenshot written");
        assert!(
            png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
            "{}: a picture",
            load.name()
        );
    }
    support::stop(running);
}
