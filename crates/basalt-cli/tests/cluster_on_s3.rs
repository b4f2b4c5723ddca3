//! Cluster mode with every file on an S3-compatible server (moto, `scripts/moto.sh`): the
//! store files, the manifests and the region servers' write-ahead logs (one object per
//! group commit). A pre-split table spreads over the servers, serves writes and reads, and
//! a region moved to another server (a flush there, an open here: no copy) reads back
//! every row from the store.

use crate::support;

use basalt_api::{Connection, PreSplit};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Get, Put, Scan, SplitAlgorithm, TableDescriptor, TableName};
use bytes::Bytes;
use support::cluster::Cluster;

#[test]
fn a_cluster_on_an_s3_store_spreads_serves_and_moves_regions() {
    let cluster = Cluster::start_on_s3(1, 3);
    let outcome = std::panic::catch_unwind(|| {
        let conn = RemoteConnection::connect(&cluster.masters_arg()).expect("connect");
        let name = TableName::parse("ons3").expect("name");
        let descriptor = TableDescriptor::new(
            name.clone(),
            vec![FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family")],
        );
        conn.admin()
            .create_table(
                &descriptor,
                &PreSplit::Count {
                    regions: 6,
                    algorithm: SplitAlgorithm::HexString,
                },
            )
            .expect("create");
        let regions = conn.admin().list_regions(&name).expect("regions");
        let mut per_server = std::collections::BTreeMap::new();
        for r in &regions {
            *per_server.entry(r.server.clone()).or_insert(0) += 1;
        }
        assert!(
            per_server.len() == 3 && per_server.values().all(|&n| n == 2),
            "{per_server:?}"
        );
        let table = conn.table(&name).expect("table");
        let row = |i: u32| Bytes::from(format!("{:08x}", i.wrapping_mul(2_654_435_761)));
        let puts: Vec<Put> = (0..300)
            .map(|i| {
                Put::new(row(i)).add(
                    Bytes::from_static(b"f"),
                    Bytes::from_static(b"q"),
                    Bytes::from(i.to_string()),
                )
            })
            .collect();
        table.put_many(&puts).expect("puts");
        conn.admin().flush(&name).expect("flush to the store");
        for i in 300..350 {
            table
                .put(&Put::new(row(i)).add(
                    Bytes::from_static(b"f"),
                    Bytes::from_static(b"q"),
                    Bytes::from(i.to_string()),
                ))
                .expect("put");
        }
        // Move every region once: each closes (flushing to the store) and opens elsewhere.
        for r in &regions {
            let to = per_server
                .keys()
                .find(|s| **s != r.server)
                .expect("another server");
            conn.admin()
                .move_region(&r.encoded_name, Some(to))
                .expect("move");
        }
        let count = table
            .scan(&Scan::new())
            .expect("scan")
            .collect::<Result<Vec<_>, _>>()
            .expect("rows")
            .len();
        assert_eq!(count, 350);
        for i in (0..350).step_by(11) {
            let got = table.get(&Get::new(row(i))).expect("get");
            assert_eq!(got.value(b"f", b"q"), Some(i.to_string().as_bytes()));
        }
    });
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}
