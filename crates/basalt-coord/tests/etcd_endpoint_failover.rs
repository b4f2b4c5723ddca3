//! Several endpoints: a call moves past one that refuses connections, a write included
//! (a refused connection sent nothing, so the write cannot have been applied); with none
//! answering, the error names them all, within the deadline.

use basalt_coord::testing::EtcdCluster;
use basalt_coord::{CoordError, Coordinator, EtcdCoordinator, Op, Txn};
use std::net::TcpListener;
use std::time::{Duration, Instant};

/// An endpoint nothing listens on (a port just bound and released).
fn refusing_endpoint() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    format!("http://127.0.0.1:{port}")
}

#[tokio::test]
async fn calls_move_past_an_endpoint_that_refuses() {
    let cluster = EtcdCluster::shared().expect("etcd starts");
    let dead = refusing_endpoint();
    let mut endpoints = vec![dead.clone()];
    endpoints.extend_from_slice(cluster.endpoints());
    let coord = EtcdCoordinator::connect(&endpoints, "failover/", Duration::from_secs(5))
        .await
        .expect("connects through a live endpoint");
    assert!(coord.describe().contains(&dead));

    let txn = Txn {
        success: vec![Op::put("k", "v")],
        ..Txn::default()
    };
    assert!(
        coord
            .txn(txn)
            .await
            .expect("the write goes to a live member")
            .succeeded
    );
    let kv = coord.get(b"k").await.expect("get").expect("written once");
    assert_eq!((kv.value.as_slice(), kv.version), (&b"v"[..], 1));
}

#[tokio::test]
async fn an_unreachable_cluster_is_named_in_the_error() {
    let endpoints = vec![refusing_endpoint(), refusing_endpoint()];
    let started = Instant::now();
    let error = EtcdCoordinator::connect(&endpoints, "x/", Duration::from_secs(1))
        .await
        .expect_err("nothing answers");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "within the deadline: {:?}",
        started.elapsed()
    );
    let CoordError::Unavailable(message) = error else {
        panic!("expected Unavailable, got {error:?}");
    };
    for endpoint in &endpoints {
        assert!(message.contains(endpoint.as_str()), "{message}");
    }
}
