//! etcd's Compact makes a watch from before it end with `Compacted`. On a cluster of its
//! own: compaction is cluster-wide and would disturb other tests' watches.

use crate::common;

use basalt_coord::testing::EtcdCluster;
use basalt_coord::EtcdCoordinator;
use std::time::Duration;

#[tokio::test]
async fn a_watch_from_a_compacted_revision_ends_compacted() {
    let cluster = EtcdCluster::start().expect("etcd starts");
    let coord =
        EtcdCoordinator::connect(cluster.endpoints(), "compaction/", Duration::from_secs(5))
            .await
            .expect("connects");
    common::watch::a_watch_from_a_compacted_revision_ends_compacted(&coord, async |revision| {
        coord.compact(revision).await
    })
    .await;
}
