//! The lease keeper against a real etcd losing members (on a cluster of its own):
//! - kill -9 of the leader member: keep-alives go on through the election, the owner never
//!   loses its lease, and calls move on to the members still up;
//! - all members killed: the local deadline passes and the keeper says so (its loop goes
//!   on trying);
//! - members back: the lease survived the outage, the keeper renews it and is live again.

use crate::common;

use basalt_coord::boot_clock::BootInstant;
use basalt_coord::testing::EtcdCluster;
use basalt_coord::{Coordinator, EtcdCoordinator, LeaseKeeper, LeaseState};
use common::lease::wait_state;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Every state the keeper goes through, as a task sees them.
fn record(keeper: &LeaseKeeper) -> Arc<Mutex<Vec<LeaseState>>> {
    let seen = Arc::new(Mutex::new(vec![*keeper.subscribe().borrow()]));
    let mut states = keeper.subscribe();
    let log = seen.clone();
    tokio::spawn(async move {
        while states.changed().await.is_ok() {
            let state = *states.borrow_and_update();
            log.lock().expect("the log").push(state);
        }
    });
    seen
}

#[tokio::test]
async fn the_keeper_rides_out_a_leader_crash_and_lapses_when_etcd_is_gone() {
    let cluster = EtcdCluster::start().expect("etcd starts");
    let coord: Arc<dyn Coordinator> = Arc::new(
        EtcdCoordinator::connect(cluster.endpoints(), "loss/", Duration::from_secs(2))
            .await
            .expect("connects"),
    );
    // TTL 6 s: renewals every 2 s, deadline 4.8 s after each; an etcd election takes
    // about 1.75 s here.
    let ttl = Duration::from_secs(6);
    let keeper = LeaseKeeper::start(coord.clone(), ttl)
        .await
        .expect("keeper");
    let seen = record(&keeper);
    common::put(&*coord, "before", "crash").await;

    let leader = cluster.leader().expect("a leader");
    let killed = BootInstant::now();
    cluster.kill(leader).expect("kill -9 the leader");

    // A renewal sent after the crash succeeds: the deadline moves past where the last
    // pre-crash renewal had put it, with no lapse on the way.
    let margin = basalt_coord::keeper::default_margin(ttl);
    let horizon = killed + ttl.saturating_sub(margin);
    let after_crash = wait_state(
        &keeper,
        Duration::from_secs(15),
        |state| matches!(state, LeaseState::Live { deadline } if *deadline > horizon),
    )
    .await;
    assert!(matches!(after_crash, LeaseState::Live { .. }));
    assert!(keeper.is_live());
    let states = seen.lock().expect("the log").clone();
    assert!(states.len() > 1, "renewals were seen: {states:?}");
    assert!(
        states
            .iter()
            .all(|state| matches!(state, LeaseState::Live { .. })),
        "the lease never lapsed through the election: {states:?}"
    );

    // A client whose first endpoint is the dead member moves on to the next.
    let mut endpoints = cluster.endpoints().to_vec();
    endpoints.rotate_left(leader - 1);
    let other = EtcdCoordinator::connect(&endpoints, "loss/", Duration::from_secs(2))
        .await
        .expect("connects past the dead member");
    let kv = other
        .get(b"before")
        .await
        .expect("reads go to a live member")
        .expect("kept");
    assert_eq!(kv.value, b"crash");

    // The rest of the cluster goes too: nothing can renew the lease any more.
    for member in 1..=3 {
        cluster.kill(member).expect("kill -9");
    }
    let gone = Instant::now();
    let state = wait_state(&keeper, ttl + Duration::from_secs(2), |state| {
        matches!(state, LeaseState::Lapsed { .. })
    })
    .await;
    assert!(!keeper.is_live());
    assert!(BootInstant::now() >= keeper.deadline());
    assert!(
        gone.elapsed() <= ttl,
        "lapsed at its deadline, not later: {:?}",
        gone.elapsed()
    );
    assert!(matches!(state, LeaseState::Lapsed { .. }));

    // Back: etcd kept the lease through the outage (a new leader refreshes every lease),
    // and the keeper, still trying, renews it.
    cluster.restart_stopped().expect("members restart");
    wait_state(&keeper, Duration::from_secs(20), |state| {
        matches!(state, LeaseState::Live { .. })
    })
    .await;
    assert!(keeper.is_live());
    keeper.revoke().await.expect("revoke");
}
