//! `hbase:meta` on the master is built from the catalog alone: a registered region server
//! that never answers does not hold a meta read up (a report would wait for it).

use super::ClusterTopology;
use crate::catalog::{new_record, ops, AssignState, Assignment, Catalog};
use crate::config::MasterConfig;
use crate::connection::MasterConnection;
use crate::master::Master;
use basalt_coord::local::LocalCoordinator;
use basalt_coord::{election, layout, Coordinator, Op, Txn};
use basalt_hbase::meta::{MetaSnapshot, ServerIdentity};
use basalt_types::{FamilyDescriptor, TableDescriptor, TableName};
use bytes::Bytes;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_meta_read_asks_no_region_server() {
    let coord = Arc::new(LocalCoordinator::new());
    // A region server that is registered and accepts connections, but never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = silent.local_addr().expect("address").port();
    let server = format!("127.0.0.1,{port},1");
    let registration = BTreeMap::from([
        ("address".to_string(), format!("127.0.0.1:{port}")),
        ("hbase_address".to_string(), format!("127.0.0.1:{port}")),
    ]);
    let table = TableName::parse("t").expect("name");
    let family = FamilyDescriptor::new("cf").expect("family");
    let record = new_record(&table, 1, Bytes::new(), Bytes::new());
    let assignment = Assignment {
        server: Some(server.clone()),
        open_seq: 1,
        state: AssignState::Open,
        failure: None,
        recover_from: Vec::new(),
    };
    let written = Txn {
        compares: vec![],
        success: vec![
            Op::put(
                format!("{}{server}", layout::SERVERS),
                basalt_db::meta::codec::encode_properties(&registration),
            ),
            ops::put_table(&TableDescriptor::new(table.clone(), vec![family])),
            ops::table_state(&table, true),
            ops::put_region(&record),
            ops::put_assignment(&record.encoded_name, &assignment),
        ],
        failure: vec![],
    };
    coord.txn(written).await.expect("written");

    let master = Master::new(
        MasterConfig::default(),
        coord.clone(),
        Arc::new(basalt_storage::fs::LocalFs),
        "127.0.0.1:16000".to_string(),
        tokio::runtime::Handle::current(),
    );
    let lease = coord
        .grant_lease(Duration::from_secs(60))
        .await
        .expect("lease");
    let won = election::campaign(coord.as_ref(), layout::MASTER_ELECTION, b"m", lease)
        .await
        .expect("campaign");
    let catalog = Catalog::load(coord.as_ref()).await.expect("catalog");
    master.activate(won.guard(), catalog);
    master.servers.list(coord.as_ref()).await.expect("servers");

    let me = ServerIdentity {
        host: "127.0.0.1".into(),
        port: 16001,
        start_code: 1,
    };
    let topology = ClusterTopology::new(master.clone(), me);
    let conn = MasterConnection::new(master.clone());
    let started = Instant::now();
    let snapshot = tokio::task::spawn_blocking(move || MetaSnapshot::read(&conn, &topology))
        .await
        .expect("the read ran")
        .expect("meta reads");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "no report was waited for: {:?}",
        started.elapsed()
    );
    let row = snapshot
        .rows
        .values()
        .find(|cells| cells.iter().any(|c| c.qualifier() == b"regioninfo"))
        .expect("the region's row");
    let named = row
        .iter()
        .find(|c| c.qualifier() == b"server")
        .map(|c| c.value_bytes());
    assert_eq!(named, Some(Bytes::from(format!("127.0.0.1:{port}"))));
    drop(silent);
}
