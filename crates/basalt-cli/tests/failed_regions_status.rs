//! Every damage kind a region can suffer at open, side by side in one real server: a store
//! file's trailer, index or bloom, or a region's manifest. Each damaged region is
//! FAILED_OPEN with its own file named — in `status 'detailed'`, `list_regions`, `/metrics`
//! and `basalt hbck --connect` — while the other region of each table serves. Then the
//! catalog itself (the coordinator's journal in the folder): the server refuses to start,
//! naming the file and the offset, and changes nothing.

use crate::support;

use basalt_api::{Connection, PreSplit};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Get, Put, TableDescriptor, TableName};
use std::path::{Path, PathBuf};
use support::damage::{damage, http_get, Part};
use support::{basalt, refused, start, stop};

const KINDS: [(&str, Part); 4] = [
    ("trailer", Part::Trailer),
    ("index", Part::Index),
    ("bloom", Part::Bloom),
    ("manifest", Part::Manifest),
];

fn name(t: &str) -> TableName {
    TableName::parse(t).expect("valid")
}

/// One table per damage kind, split at `m`, rows on both sides, flushed by a clean stop;
/// then the region `[m, )` of each is damaged. Returns the damaged files.
fn damaged_tables(dir: &Path) -> Vec<PathBuf> {
    let server = start(dir);
    let conn = RemoteConnection::connect(&server.addr).expect("connect");
    let admin = conn.admin();
    let mut high = Vec::new();
    for (table, _) in KINDS {
        let d = TableDescriptor::new(
            name(table),
            vec![FamilyDescriptor::new("f").expect("valid")],
        );
        admin
            .create_table(&d, &PreSplit::Keys(vec!["m".into()]))
            .expect("create");
        let rows = conn.table(&name(table)).expect("table");
        for row in ["c", "q"] {
            rows.put(&Put::new(row).add("f", "q", row)).expect("put");
        }
        high.push(
            admin.list_regions(&name(table)).expect("regions")[1]
                .encoded_name
                .clone(),
        );
    }
    drop(conn);
    stop(server);
    KINDS
        .iter()
        .zip(high)
        .map(|((table, part), region)| {
            damage(
                &dir.join("data/default").join(table).join(region),
                "f",
                *part,
            )
        })
        .collect()
}

#[test]
fn every_damage_kind_fails_only_its_region_and_is_shown_with_its_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let files = damaged_tables(dir.path());
    let shown_files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();

    let server = start(dir.path());
    let conn = RemoteConnection::connect(&server.addr).expect("connect");
    for ((table, _), file) in KINDS.iter().zip(&shown_files) {
        let t = conn.table(&name(table)).expect("table");
        assert!(t
            .get(&Get::new("c"))
            .expect("served")
            .value(b"f", b"q")
            .is_some());
        let e = t.get(&Get::new("q")).expect_err("failed region");
        assert!(e.message.contains(file.as_str()), "{table}: {e}");
    }
    let script: String = std::iter::once("status 'detailed'\n".to_string())
        .chain(KINDS.iter().map(|(t, _)| format!("list_regions '{t}'\n")))
        .collect();
    let shell = basalt(&["shell", "--connect", &server.addr], &script);
    let shown = String::from_utf8_lossy(&shell.stdout).into_owned();
    assert!(shown.contains("4 regions FAILED_OPEN"), "{shown}");
    assert!(shown.contains("numberOfOnlineRegions=4"), "{shown}");
    for file in &shown_files {
        // Once in the status, once under its table's list_regions (`MANIFEST at` is not
        // also counted inside `MANIFEST.2 at`).
        let named = format!("{file} at offset");
        assert_eq!(
            shown.matches(named.as_str()).count(),
            2,
            "{file} in {shown}"
        );
    }
    let web = server.sidecar_addr("web").expect("web UI");
    let metrics = http_get(&web, "/metrics", "text/plain");
    assert!(
        metrics.contains("\nbasalt_regions_failed_open 4\n"),
        "{metrics}"
    );
    let jmx = http_get(&web, "/jmx", "application/json");
    assert!(jmx.contains("\"ritCount\": 4"), "{jmx}");
    let online = basalt(&["hbck", "--connect", &server.addr], "");
    let report = String::from_utf8_lossy(&online.stdout).into_owned();
    assert_eq!(online.status.code(), Some(1));
    assert!(report.contains("Regions FAILED_OPEN: 4"), "{report}");
    drop(conn);
    stop(server);

    // The catalog's journal, a byte of its first record flipped (past the 24-byte header;
    // a damaged last record would be a torn tail, cut and kept).
    let journal = dir.path().join("coordinator/journal");
    let mut bytes = std::fs::read(&journal).expect("the coordinator's journal");
    assert!(bytes.len() > 64, "the journal holds records");
    bytes[40] ^= 0x01;
    std::fs::write(&journal, &bytes).expect("damage the journal");
    let logged = refused(dir.path());
    assert!(
        logged.contains(&journal.display().to_string()) && logged.contains("offset"),
        "{logged}"
    );
    assert_eq!(
        std::fs::read(&journal).expect("journal"),
        bytes,
        "the damaged journal is left as it was"
    );
    assert!(
        files.iter().all(|f| f.exists()),
        "nothing is moved while the catalog is damaged"
    );
}
