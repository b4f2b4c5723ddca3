//! Leases: keys go with their lease, by expiry or revoke; the keeper holds one alive.

use super::{next_event, WAIT};
use basalt_coord::boot_clock::BootInstant;
use basalt_coord::{CoordError, Coordinator, EventKind, LeaseKeeper, LeaseState, Op, Txn};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Puts `key` under `lease`; the revision it took.
async fn put_leased(coord: &dyn Coordinator, key: &str, lease: i64) -> i64 {
    let txn = Txn {
        success: vec![Op::Put {
            key: key.into(),
            value: b"v".to_vec(),
            lease,
        }],
        ..Txn::default()
    };
    coord.txn(txn).await.expect("put under the lease").revision
}

pub async fn an_expired_lease_takes_its_keys(coord: &dyn Coordinator) {
    let lease = coord
        .grant_lease(Duration::from_secs(2))
        .await
        .expect("grant");
    let granted = Instant::now();
    let revision = put_leased(coord, "eph/k", lease).await;
    let kv = coord.get(b"eph/k").await.expect("get").expect("present");
    assert_eq!(kv.lease, lease);

    let mut events = coord.watch(b"eph/", revision).await.expect("watch");
    let event = next_event(&mut events).await;
    assert_eq!(
        (event.kind, event.kv.key.as_slice()),
        (EventKind::Delete, &b"eph/k"[..])
    );
    assert!(
        granted.elapsed() >= Duration::from_secs(1),
        "not before its TTL: {:?}",
        granted.elapsed()
    );
    assert_eq!(coord.get(b"eph/k").await.expect("get"), None);
    assert_eq!(
        coord.keep_alive(lease).await,
        Err(CoordError::LeaseGone(lease))
    );
}

pub async fn a_revoked_lease_is_gone(coord: &dyn Coordinator) {
    let lease = coord
        .grant_lease(Duration::from_secs(30))
        .await
        .expect("grant");
    put_leased(coord, "rev/a", lease).await;
    put_leased(coord, "rev/b", lease).await;
    let ttl = coord.keep_alive(lease).await.expect("keep alive");
    assert!(
        ttl >= Duration::from_secs(29) && ttl <= Duration::from_secs(30),
        "ttl {ttl:?}"
    );

    coord.revoke_lease(lease).await.expect("revoke");
    assert!(
        coord.list(b"rev/").await.expect("list").kvs.is_empty(),
        "its keys went with it"
    );
    assert_eq!(
        coord.keep_alive(lease).await,
        Err(CoordError::LeaseGone(lease))
    );
    assert_eq!(
        coord.revoke_lease(lease).await,
        Err(CoordError::LeaseGone(lease))
    );
    let late = Txn {
        success: vec![Op::Put {
            key: b"rev/c".to_vec(),
            value: vec![],
            lease,
        }],
        ..Txn::default()
    };
    assert_eq!(coord.txn(late).await, Err(CoordError::LeaseGone(lease)));
    assert_eq!(coord.get(b"rev/c").await.expect("get"), None);
}

/// Waits until `keeper`'s state satisfies `wanted`, within `within`.
pub async fn wait_state(
    keeper: &LeaseKeeper,
    within: Duration,
    wanted: impl Fn(&LeaseState) -> bool,
) -> LeaseState {
    let mut states = keeper.subscribe();
    let waited = tokio::time::timeout(within, states.wait_for(|state| wanted(state)))
        .await
        .map(|found| found.map(|state| *state));
    match waited {
        Ok(Ok(state)) => state,
        Ok(Err(_)) => panic!("the keeper's state channel closed"),
        Err(_) => panic!(
            "state still {:?} after {within:?}",
            *keeper.subscribe().borrow()
        ),
    }
}

pub async fn the_keeper_holds_a_lease_past_its_ttl(coord: Arc<dyn Coordinator>) {
    let ttl = Duration::from_secs(2);
    let started = Instant::now();
    let keeper = LeaseKeeper::start(coord.clone(), ttl)
        .await
        .expect("keeper starts");
    assert!(keeper.is_live());
    put_leased(&*coord, "kept/k", keeper.id()).await;

    // Renewals move the deadline on; once it is 2 TTLs past the start the key has lived
    // through more than a TTL only thanks to them.
    let horizon = BootInstant::now() + (2 * ttl).saturating_sub(started.elapsed());
    wait_state(
        &keeper,
        WAIT,
        |state| matches!(state, LeaseState::Live { deadline } if *deadline > horizon),
    )
    .await;
    assert!(started.elapsed() > ttl);
    assert!(keeper.is_live());
    assert!(
        coord.get(b"kept/k").await.expect("get").is_some(),
        "kept alive"
    );

    keeper.revoke().await.expect("revoke");
    assert!(!keeper.is_live());
    assert_eq!(*keeper.subscribe().borrow(), LeaseState::Gone);
    assert_eq!(coord.get(b"kept/k").await.expect("get"), None);
}
