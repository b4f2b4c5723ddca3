//! The behaviour suite (`common`) against a real 3-member etcd cluster, shared by the
//! tests of this file; each test keeps its keys under a prefix of its own.

use crate::common;

use common::{election, etcd, kv, lease, watch};

#[tokio::test]
async fn put_get_and_list() {
    let (_cluster, coord) = etcd("put_get_and_list").await;
    kv::put_get_and_list(&*coord).await;
}

#[tokio::test]
async fn txn_compares_choose_the_branch() {
    let (_cluster, coord) = etcd("txn_compares").await;
    kv::txn_compares_choose_the_branch(&*coord).await;
}

#[tokio::test]
async fn an_expired_lease_takes_its_keys() {
    let (_cluster, coord) = etcd("expired_lease").await;
    lease::an_expired_lease_takes_its_keys(&*coord).await;
}

#[tokio::test]
async fn a_revoked_lease_is_gone() {
    let (_cluster, coord) = etcd("revoked_lease").await;
    lease::a_revoked_lease_is_gone(&*coord).await;
}

#[tokio::test]
async fn the_keeper_holds_a_lease_past_its_ttl() {
    let (_cluster, coord) = etcd("keeper").await;
    lease::the_keeper_holds_a_lease_past_its_ttl(coord).await;
}

#[tokio::test]
async fn a_watch_sees_changes_in_order_from_a_revision() {
    let (_cluster, coord) = etcd("watch_order").await;
    watch::a_watch_sees_changes_in_order_from_a_revision(&*coord).await;
}

#[tokio::test]
async fn a_standby_takes_over_when_the_leader_resigns() {
    let (_cluster, coord) = etcd("resign").await;
    election::a_standby_takes_over_when_the_leader_resigns(coord).await;
}

#[tokio::test]
async fn a_standby_takes_over_when_the_leaders_lease_expires() {
    let (_cluster, coord) = etcd("expiry").await;
    election::a_standby_takes_over_when_the_leaders_lease_expires(coord).await;
}

#[tokio::test]
async fn an_old_leaders_guard_fails() {
    let (_cluster, coord) = etcd("guard").await;
    election::an_old_leaders_guard_fails(coord).await;
}
