//! `basalt keydist --data-dir DIR TABLE` on the three hot-spot loads: the split points it
//! suggests, used at create, spread the same load within 20% of even.

mod support;

use basalt_api::{Connection, PreSplit};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_types::{FamilyDescriptor, Put, TableDescriptor, TableName};
use bytes::Bytes;
use std::sync::Arc;
use support::heat_loads::{Load, LOADS};

const ROWS: u64 = 4000;
const REGIONS: usize = 8;

fn descriptor(name: &str) -> TableDescriptor {
    TableDescriptor::new(
        TableName::parse(name).expect("name"),
        vec![FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family")],
    )
}

fn write(conn: &EmbeddedConnection, name: &str, load: Load) {
    let table = conn.table(&TableName::parse(name).unwrap()).expect("table");
    for i in 0..ROWS {
        let put = Put::new(load.row(i)).add(&b"f"[..], &b"q"[..], &b"v"[..]);
        table.put(&put).expect("put");
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
                    let hex = std::str::from_utf8(&inner[i + 2..i + 4]).unwrap();
                    bytes.push(u8::from_str_radix(hex, 16).unwrap());
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
    {
        let db = Database::open(dir.path(), DbConfig::default()).expect("open");
        let conn = EmbeddedConnection::new(db.clone());
        for load in LOADS {
            conn.admin()
                .create_table(&descriptor(load.name()), &PreSplit::Keys(load.splits()))
                .expect("create");
            write(&conn, load.name(), load);
        }
        db.close().expect("close");
    }
    let mut suggested = Vec::new();
    for load in LOADS {
        let dir_arg = dir.path().to_str().unwrap();
        let regions = REGIONS.to_string();
        let out = support::basalt(
            &[
                "keydist",
                "--data-dir",
                dir_arg,
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
        suggested.push((load, parse_splits(&text)));
    }
    let db = Database::open(dir.path(), DbConfig::default()).expect("reopen");
    let conn = Arc::new(EmbeddedConnection::new(db.clone()));
    for (load, splits) in suggested {
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
        let writes: Vec<u64> = conn
            .admin()
            .list_regions(&TableName::parse(&name).unwrap())
            .expect("regions")
            .iter()
            .map(|r| r.write_requests)
            .collect();
        let even = ROWS as f64 / writes.len() as f64;
        for w in &writes {
            assert!(
                (*w as f64 - even).abs() <= 0.2 * even,
                "{}: writes per region {writes:?} (even {even}) with splits {splits:?}",
                load.name()
            );
        }
    }
    db.close().expect("close");
}
