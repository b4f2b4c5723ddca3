//! Snapshots over HBase's native protocol, as an HBase 2.x client's admin makes the calls
//! over a real socket: `Snapshot` then `IsSnapshotDone`, `GetCompletedSnapshots`,
//! `RestoreSnapshot` naming a new table (HBase's `cloneSnapshot`) and the snapshot's own
//! disabled table (`restoreSnapshot`), `DeleteSnapshot`, and the exceptions a client gets
//! for a snapshot that does not exist.

use crate::support;

use basalt_hbase::pb;
use basalt_hbase::HbaseConfig;
use basalt_types::{Get, TableName};
use support::{create_table, put, region, regions, Client};

fn description(name: &str, table: Option<&str>) -> pb::SnapshotDescription {
    pb::SnapshotDescription {
        name: name.to_string(),
        table: table.map(str::to_string),
        ..Default::default()
    }
}

fn rows(s: &support::Server, table: &str) -> Vec<String> {
    let t = s
        .conn
        .table(&TableName::parse(table).expect("name"))
        .expect("table");
    ["a", "b"]
        .iter()
        .filter(|row| !t.get(&Get::new(row.to_string())).expect("get").is_empty())
        .map(|row| row.to_string())
        .collect()
}

#[test]
fn a_native_client_snapshots_clones_restores_and_deletes() {
    let s = support::server(HbaseConfig::default());
    create_table(&s.server, "t", &[]);
    let mut client = Client::connect(&s.server, "ClientService");
    let names = regions(&mut client, "t");
    let write = |client: &mut Client, row: &[u8]| {
        let request = pb::MutateRequest {
            region: region(&names[0]),
            mutation: put(row, b"v"),
            condition: None,
            nonce_group: None,
        };
        let _: pb::MutateResponse = client.ok("Mutate", &request);
    };
    write(&mut client, b"a");

    let mut master = Client::connect(&s.server, "MasterService");
    let taken: pb::SnapshotResponse = master.ok(
        "Snapshot",
        &pb::SnapshotRequest {
            snapshot: description("s", Some("t")),
        },
    );
    assert!(taken.expected_timeout > 0);
    let done: pb::IsSnapshotDoneResponse = master.ok(
        "IsSnapshotDone",
        &pb::IsSnapshotDoneRequest {
            snapshot: Some(description("s", None)),
        },
    );
    assert_eq!(done.done, Some(true));
    assert_eq!(done.snapshot.and_then(|d| d.table).as_deref(), Some("t"));

    let listed: pb::GetCompletedSnapshotsResponse =
        master.ok("GetCompletedSnapshots", &pb::CellBlockMeta::default());
    assert_eq!(listed.snapshots.len(), 1);
    let only = &listed.snapshots[0];
    assert_eq!(
        (only.name.as_str(), only.table.as_deref()),
        ("s", Some("t"))
    );
    assert!(only.creation_time.unwrap_or(0) > 0);
    assert_eq!(only.ttl, Some(0), "no TTL");

    // cloneSnapshot: RestoreSnapshot naming a table that does not exist.
    let cloned: pb::RestoreSnapshotResponse = master.ok(
        "RestoreSnapshot",
        &pb::RestoreSnapshotRequest {
            snapshot: description("s", Some("copy")),
            ..Default::default()
        },
    );
    assert!(cloned.proc_id > 0);
    assert_eq!(rows(&s, "copy"), ["a"]);

    // restoreSnapshot: the snapshot's own table, disabled first, as HBase requires.
    write(&mut client, b"b");
    assert_eq!(rows(&s, "t"), ["a", "b"]);
    let table = pb::TableNameRequest {
        table_name: support::table_name("t"),
    };
    let restore = pb::RestoreSnapshotRequest {
        snapshot: description("s", Some("t")),
        ..Default::default()
    };
    let refused = master
        .call("RestoreSnapshot", &restore)
        .expect_err("enabled");
    assert!(
        refused
            .exception_class_name
            .as_deref()
            .unwrap_or("")
            .ends_with("TableNotDisabledException"),
        "{refused:?}"
    );
    let _: pb::ProcedureResponse = master.ok("DisableTable", &table);
    let _: pb::RestoreSnapshotResponse = master.ok("RestoreSnapshot", &restore);
    let restored: pb::IsRestoreSnapshotDoneResponse = master.ok(
        "IsRestoreSnapshotDone",
        &pb::IsRestoreSnapshotDoneRequest {
            snapshot: Some(description("s", None)),
        },
    );
    assert_eq!(restored.done, Some(true));
    let _: pb::ProcedureResponse = master.ok("EnableTable", &table);
    assert_eq!(
        rows(&s, "t"),
        ["a"],
        "the row written after the snapshot is gone"
    );

    let _: pb::DeleteSnapshotResponse = master.ok(
        "DeleteSnapshot",
        &pb::DeleteSnapshotRequest {
            snapshot: description("s", None),
        },
    );
    let listed: pb::GetCompletedSnapshotsResponse =
        master.ok("GetCompletedSnapshots", &pb::CellBlockMeta::default());
    assert!(listed.snapshots.is_empty());
    let gone = master
        .call(
            "IsSnapshotDone",
            &pb::IsSnapshotDoneRequest {
                snapshot: Some(description("s", None)),
            },
        )
        .expect_err("deleted");
    assert_eq!(
        gone.exception_class_name.as_deref(),
        Some("org.apache.hadoop.hbase.snapshot.UnknownSnapshotException")
    );
    let missing = master
        .call(
            "RestoreSnapshot",
            &pb::RestoreSnapshotRequest {
                snapshot: description("s", Some("t")),
                ..Default::default()
            },
        )
        .expect_err("deleted");
    assert!(
        missing
            .exception_class_name
            .as_deref()
            .unwrap_or("")
            .ends_with("SnapshotDoesNotExistException"),
        "{missing:?}"
    );
    assert_eq!(rows(&s, "copy"), ["a"], "the clone outlives the snapshot");
}
