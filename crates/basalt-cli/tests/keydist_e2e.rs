//! `basalt keydist --connect ADDR TABLE` against a running `basalt standalone`, on the
//! three hot-spot loads: the split points it suggests, used at create, spread the same
//! load within 20% of even.

use crate::support;

use basalt_api::{Connection, PreSplit};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Put, TableDescriptor, TableName};
use bytes::Bytes;
use std::time::{Duration, Instant};
use support::heat_loads::{Load, LOADS};

const ROWS: u64 = 4000;
const REGIONS: usize = 8;

fn descriptor(name: &str) -> TableDescriptor {
    TableDescriptor::new(
        TableName::parse(name).expect("name"),
        vec![FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family")],
    )
}

fn write(conn: &RemoteConnection, name: &str, load: Load) {
    let table = conn
        .table(&TableName::parse(name).expect("valid"))
        .expect("table");
    for chunk in (0..ROWS).collect::<Vec<_>>().chunks(100) {
        let puts: Vec<Put> = chunk
            .iter()
            .map(|i| Put::new(load.row(*i)).add(&b"f"[..], &b"q"[..], &b"v"[..]))
            .collect();
        table.put_many(&puts).expect("put");
    }
}

/// Each region's write requests, once the master's figures count every row written.
fn writes_per_region(conn: &RemoteConnection, name: &str) -> Vec<u64> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let writes: Vec<u64> = conn
            .admin()
            .list_regions(&TableName::parse(name).expect("valid"))
            .expect("regions")
            .iter()
            .map(|r| r.write_requests)
            .collect();
        if writes.iter().sum::<u64>() >= ROWS || Instant::now() > deadline {
            return writes;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}
/// Parses `SPLITS => ["a", "b\x00"]` as keydist prints it.
fn parse_splits(out: &str) -> Vec<Bytes> {
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("SPLITS => ["))
        .unwrap_or_else(|| panic!("no SPLITS line in:\n{out}"));
    let line = line.trim_end_matches(']');
    line.split(", ")
        .filter(|s| !s.is_empty())
        .map(|lit| {
            let inner = lit.trim_matches('"').as_bytes();
            let mut bytes = Vec::new();
            let mut i = 0;
            while i < inner.len() {
                if inner[i] == b'\\' && inner.get(i + 1) == Some(&b'x') {
                    let hex = std::str::from_utf8(&inner[i + 2..i + 4]).expect("valid");
                    bytes.push(u8::from_str_radix(hex, 16).expect("valid"));
                    i += 4;
                } else {
                    bytes.push(inner[i]);
                    i += 1;
                }
            }
            Bytes::from(bytes)
        })
        .collect()
}

#[test]
fn suggested_splits_spread_each_load_within_a_fifth_of_even() {
    let dir = tempfile::tempdir().expect("temp dir");
    let running = support::start(dir.path());
    let conn = RemoteConnection::connect(&running.addr).expect("connect");
    for load in LOADS {
        conn.admin()
            .create_table(&descriptor(load.name()), &PreSplit::Keys(load.splits()))
            .expect("create");
        write(&conn, load.name(), load);
    }
    for load in LOADS {
        let regions = REGIONS.to_string();
        let out = support::basalt(
            &[
                "keydist",
                "--connect",
                &running.addr,
                "--regions",
                &regions,
                load.name(),
            ],
            "",
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("First byte of the row key"), "{text}");
        println!("{}:\n{text}", load.name());
        let splits = parse_splits(&text);
        assert_eq!(
            splits.len(),
            REGIONS - 1,
            "{} splits: {splits:?}",
            load.name()
        );
        let name = format!("{}_resplit", load.name());
        conn.admin()
            .create_table(&descriptor(&name), &PreSplit::Keys(splits.clone()))
            .expect("create with the suggested splits");
        write(&conn, &name, load);
        let writes = writes_per_region(&conn, &name);
        let even = ROWS as f64 / writes.len() as f64;
        for w in &writes {
            assert!(
                (*w as f64 - even).abs() <= 0.2 * even,
                "{}: writes per region {writes:?} (even {even}) with splits {splits:?}",
                load.name()
            );
        }
    }
    support::stop(running);
}
