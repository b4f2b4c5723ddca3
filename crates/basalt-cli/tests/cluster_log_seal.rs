//! A region server whose log folder is sealed (cluster-design §5.8 case 1: what crash
//! recovery does to a server it declared dead), with real processes on a shared folder.
//!
//! The test seals the log of a *live* server, as a master would after its lease expired,
//! so the server meets the seal while it still thinks it owns its regions:
//! - the write that meets the seal is not acknowledged, nor is any after it;
//! - the server stops (its log failed), and its regions reopen on the other server;
//! - every acknowledged write reads back there, and the refused one is not replayed
//!   (the seal record ends each segment before it).

use crate::support;

use basalt_api::{Connection, PreSplit};
use basalt_client::RemoteConnection;
use basalt_storage::fs::{FileSystem, LocalFs};
use basalt_types::{FamilyDescriptor, Get, Put, TableDescriptor};
use bytes::Bytes;
use std::time::{Duration, Instant};
use support::cluster::Cluster;
use support::tables::{regions, table_name};

fn put(row: &str) -> Put {
    Put::new(Bytes::copy_from_slice(row.as_bytes())).add(
        Bytes::from_static(b"f"),
        Bytes::from_static(b"q"),
        Bytes::copy_from_slice(row.as_bytes()),
    )
}

#[test]
fn a_region_server_whose_log_is_sealed_acknowledges_nothing_more_and_its_regions_recover() {
    let mut cluster = Cluster::start(1, 2);
    let masters = cluster.masters_arg();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let conn = RemoteConnection::connect(&masters).expect("connect");
        let name = table_name("sealed");
        let descriptor = TableDescriptor::new(
            name.clone(),
            vec![FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family")],
        );
        conn.admin()
            .create_table(&descriptor, &PreSplit::None)
            .expect("create");
        let table = conn.table(&name).expect("table");
        let acked: Vec<String> = (0..50).map(|i| format!("row{i:03}")).collect();
        for row in &acked {
            table.put(&put(row)).expect("acknowledged before the seal");
        }
        let holder = regions(&conn, "sealed")[0].server.clone();
        let index = cluster
            .servers
            .iter()
            .position(|s| s.name == holder)
            .expect("the holder is one of ours");

        let folder = cluster.store.path().join("wal").join(&holder);
        let record = LocalFs
            .seal_logs(&folder)
            .expect("seal")
            .expect("a shared folder seals");
        assert!(!record.logs.is_empty(), "the live server has a segment");

        let refused = table.put(&put("after-the-seal"));
        let refused_at = Instant::now();
        // The client may retry elsewhere once the region moved; what matters is that the
        // sealed server never acknowledged it, so it is either refused or acknowledged by
        // the new owner after recovery (and then it reads back).
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = cluster.servers[index].child.try_wait().expect("wait") {
                break status;
            }
            assert!(Instant::now() < deadline, "the sealed server never stopped");
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(!status.success(), "it stops as a failure: {status:?}");
        let log = std::fs::read_to_string(&cluster.servers[index].log).expect("log");
        assert!(log.contains("the write-ahead log failed"), "{log}");
        assert!(log.contains("sealed by crash recovery"), "{log}");
        eprintln!(
            "the sealed server stopped {:?} after the write",
            refused_at.elapsed()
        );

        let fresh = RemoteConnection::connect(&masters).expect("connect");
        let table = fresh.table(&name).expect("table");
        for row in &acked {
            let got = table
                .get(&Get::new(Bytes::copy_from_slice(row.as_bytes())))
                .expect("get");
            assert!(!got.is_empty(), "acknowledged {row} lost");
        }
        let late = table
            .get(&Get::new(Bytes::from_static(b"after-the-seal")))
            .expect("get");
        match refused {
            Ok(()) => assert!(!late.is_empty(), "acknowledged (by the new owner) yet lost"),
            Err(e) => {
                eprintln!("the write at the seal was refused: {e}");
                assert!(
                    late.is_empty(),
                    "a refused write past the seal was replayed"
                );
            }
        }
        let now = regions(&fresh, "sealed");
        assert!(now.iter().all(|r| r.server != holder), "{now:?}");
    }));
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}
