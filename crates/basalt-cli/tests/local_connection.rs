//! Standalone's in-process connection (`basalt_cli::local_connection`) over a folder served
//! in this process: rows go to the region server's database; a batch's actions that
//! database does not apply because their region is not open there go, and only they go,
//! through the client of the master; a row it serves is applied once.

use basalt_api::{Connection, PreSplit};
use basalt_cli::in_process::InProcess;
use basalt_cli::local_connection::{LocalConnection, Remote};
use basalt_client::{ClientConfig, RemoteConnection};
use basalt_db::{DbConfig, EmbeddedConnection};
use basalt_types::{Action, FamilyDescriptor, Get, Put, TableDescriptor, TableName};
use std::sync::Arc;

fn put(row: &str, value: &str) -> Put {
    Put::new(row.to_string()).add("f", "q", value)
}

#[test]
fn rows_go_to_the_region_server_and_only_unserved_actions_go_through_the_client() {
    let dir = tempfile::tempdir().expect("temp dir");
    let served = InProcess::start(dir.path(), DbConfig::default()).expect("serve");
    // A client that does not retry, so that a region on no server fails at once.
    let config = ClientConfig {
        retries_max: 0,
        ..ClientConfig::default()
    };
    let remote: Arc<dyn Connection> = Arc::new(
        RemoteConnection::connect_with(&served.master_addr().to_string(), config).expect("connect"),
    );
    let local = LocalConnection::new(
        EmbeddedConnection::new(served.database().clone()),
        Remote::connected(remote.clone()),
        remote.admin(),
    );
    let name = TableName::parse("t").expect("name");
    let admin = local.admin();
    let descriptor =
        TableDescriptor::new(name.clone(), vec![FamilyDescriptor::new("f").expect("f")]);
    admin
        .create_table(&descriptor, &PreSplit::Keys(vec!["m".into()]))
        .expect("create");
    let high = admin.list_regions(&name).expect("regions")[1]
        .encoded_name
        .clone();

    let table = local.table(&name).expect("table");
    table.put(&put("c", "1")).expect("a served row");
    admin.unassign(&high, false).expect("unassign [m, )");

    let results = table.batch(&[Action::Put(put("d", "2")), Action::Put(put("q", "3"))]);
    assert!(results[0].is_ok(), "{:?}", results[0]);
    let failed = results[1].as_ref().expect_err("q's region is on no server");
    assert!(
        failed.exception.contains("NoServerForRegion"),
        "answered by the master's client, not the region server: {failed:?}"
    );
    // The single-row path falls back the same way.
    let single = table
        .put(&put("r", "4"))
        .expect_err("r's region is on no server");
    assert!(single.exception.contains("NoServerForRegion"), "{single:?}");

    admin.assign(&high).expect("assign [m, )");
    let again = local.table(&name).expect("table");
    again
        .put_many(&[put("e", "5"), put("q", "6")])
        .expect("both regions served");
    let versions = again
        .get(&Get::new("d").versions(10))
        .expect("d")
        .cells
        .len();
    assert_eq!(versions, 1, "d was applied once");
    for (row, value) in [("c", "1"), ("d", "2"), ("e", "5"), ("q", "6")] {
        let got = again.get(&Get::new(row)).expect("get");
        assert_eq!(
            got.value(b"f", b"q").map(|v| v.to_vec()),
            Some(value.as_bytes().to_vec()),
            "{row}"
        );
    }
    drop((table, again, local, remote));
    served.close().expect("close");
}
