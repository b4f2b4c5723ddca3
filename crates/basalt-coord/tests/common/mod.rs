//! The coordinator behaviour suite, written once against the `Coordinator` trait and run
//! against both `LocalCoordinator` (`tests/local_*.rs`) and a real 3-member etcd cluster
//! (`tests/etcd_*.rs`).
//!
//! # Layout
//! - this file: setup and small helpers.
//! - `kv`: put, get, list, transactions and their compares.
//! - `lease`: expiry, revoke, the lease keeper.
//! - `watch`: order of events, compaction.
//! - `election`: handover on resign and on expiry, the leader's guard.
#![allow(dead_code, reason = "each test binary runs part of the suite")]

pub mod election;
pub mod kv;
pub mod lease;
pub mod watch;

use basalt_coord::testing::EtcdCluster;
use basalt_coord::{Coordinator, EtcdCoordinator, Op, Txn, WatchEvent, WatchStream};
use std::sync::Arc;
use std::time::Duration;

/// The longest any single expected event may take (lease expiry included).
pub const WAIT: Duration = Duration::from_secs(10);

/// The cluster this test binary shares, and a coordinator on it whose keys live under a
/// prefix of their own (so that tests running side by side do not see each other).
pub async fn etcd(test: &str) -> (Arc<EtcdCluster>, Arc<dyn Coordinator>) {
    let cluster = EtcdCluster::shared().expect("an etcd cluster starts");
    let coord = EtcdCoordinator::connect(
        cluster.endpoints(),
        &format!("test/{test}/"),
        Duration::from_secs(5),
    )
    .await
    .expect("connects to etcd");
    (cluster, Arc::new(coord))
}

/// Puts `key` = `value`; the revision it took.
pub async fn put(coord: &dyn Coordinator, key: &str, value: &str) -> i64 {
    let txn = Txn {
        success: vec![Op::put(key, value)],
        ..Txn::default()
    };
    let result = coord.txn(txn).await.expect("put");
    assert!(result.succeeded, "a transaction without compares succeeds");
    result.revision
}

/// The next item of a watch, within [`WAIT`].
pub async fn next_event(stream: &mut WatchStream) -> WatchEvent {
    match tokio::time::timeout(WAIT, stream.recv()).await {
        Ok(Some(Ok(event))) => event,
        Ok(Some(Err(error))) => panic!("the watch broke: {error}"),
        Ok(None) => panic!("the watch closed"),
        Err(_) => panic!("no watch event within {WAIT:?}"),
    }
}
