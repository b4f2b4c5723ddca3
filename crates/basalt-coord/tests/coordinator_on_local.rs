//! The behaviour suite (`common`) against `LocalCoordinator`, plus what only the local
//! store has: a bounded history.

mod common;

use basalt_coord::{CoordError, Coordinator, LocalCoordinator};
use common::{election, kv, lease, watch};
use std::sync::Arc;

fn local() -> Arc<dyn Coordinator> {
    Arc::new(LocalCoordinator::new())
}

#[tokio::test]
async fn put_get_and_list() {
    kv::put_get_and_list(&*local()).await;
}

#[tokio::test]
async fn txn_compares_choose_the_branch() {
    kv::txn_compares_choose_the_branch(&*local()).await;
}

#[tokio::test]
async fn an_expired_lease_takes_its_keys() {
    lease::an_expired_lease_takes_its_keys(&*local()).await;
}

#[tokio::test]
async fn a_revoked_lease_is_gone() {
    lease::a_revoked_lease_is_gone(&*local()).await;
}

#[tokio::test]
async fn the_keeper_holds_a_lease_past_its_ttl() {
    lease::the_keeper_holds_a_lease_past_its_ttl(local()).await;
}

#[tokio::test]
async fn a_watch_sees_changes_in_order_from_a_revision() {
    watch::a_watch_sees_changes_in_order_from_a_revision(&*local()).await;
}

#[tokio::test]
async fn a_watch_from_a_compacted_revision_ends_compacted() {
    let coord = LocalCoordinator::new();
    watch::a_watch_from_a_compacted_revision_ends_compacted(&coord, async |revision| {
        coord.compact(revision)
    })
    .await;
}

#[tokio::test]
async fn a_watch_behind_the_bounded_history_ends_compacted() {
    let coord = LocalCoordinator::with_history(4);
    let first = common::put(&coord, "k", "0").await;
    for i in 1..6 {
        common::put(&coord, "k", &i.to_string()).await;
    }
    let mut stream = coord.watch(b"k", first - 1).await.expect("the watch opens");
    match stream.recv().await {
        Some(Err(CoordError::Compacted {
            requested,
            compacted,
        })) => {
            assert_eq!(requested, first);
            assert_eq!(compacted, first + 2, "six revisions, four kept");
        }
        other => panic!("expected Compacted, got {other:?}"),
    }
}

#[tokio::test]
async fn a_standby_takes_over_when_the_leader_resigns() {
    election::a_standby_takes_over_when_the_leader_resigns(local()).await;
}

#[tokio::test]
async fn a_standby_takes_over_when_the_leaders_lease_expires() {
    election::a_standby_takes_over_when_the_leaders_lease_expires(local()).await;
}

#[tokio::test]
async fn an_old_leaders_guard_fails() {
    election::an_old_leaders_guard_fails(local()).await;
}
