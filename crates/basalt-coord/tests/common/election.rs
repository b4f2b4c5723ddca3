//! Election: the lowest create revision leads; a standby takes over when the leader's key
//! goes; an old leader's guard fails.

use super::WAIT;
use basalt_coord::{campaign, leader, Coordinator, Leadership, Op, Txn};
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;

fn stand(
    coord: &Arc<dyn Coordinator>,
    name: &'static str,
    value: &'static str,
    lease: i64,
) -> JoinHandle<Leadership> {
    let coord = coord.clone();
    tokio::spawn(async move {
        campaign(&*coord, name, value.as_bytes(), lease)
            .await
            .expect("campaign")
    })
}

/// Shows that `standby` is still waiting: it does not finish within half a second.
async fn still_waiting(standby: &mut JoinHandle<Leadership>) {
    let early = tokio::time::timeout(Duration::from_millis(500), &mut *standby).await;
    assert!(
        early.is_err(),
        "the standby led while the leader held its key: {early:?}"
    );
}

async fn takes_over(standby: JoinHandle<Leadership>) -> Leadership {
    tokio::time::timeout(WAIT, standby)
        .await
        .expect("the standby took over in time")
        .expect("campaign task")
}

pub async fn a_standby_takes_over_when_the_leader_resigns(coord: Arc<dyn Coordinator>) {
    let first = coord
        .grant_lease(Duration::from_secs(30))
        .await
        .expect("grant");
    let second = coord
        .grant_lease(Duration::from_secs(30))
        .await
        .expect("grant");
    let leading = campaign(&*coord, "resign", b"m1", first)
        .await
        .expect("the first candidate leads");
    assert_eq!(
        leading.key,
        format!("election/resign/{first:016x}").into_bytes()
    );
    let current = leader(&*coord, "resign")
        .await
        .expect("leader")
        .expect("a leader");
    assert_eq!(
        (current.value.as_slice(), current.create_revision),
        (&b"m1"[..], leading.create_revision)
    );

    let mut standby = stand(&coord, "resign", "m2", second);
    still_waiting(&mut standby).await;
    assert!(leading.resign(&*coord).await.expect("resign"));
    let next = takes_over(standby).await;
    assert!(next.create_revision > leading.create_revision);
    let current = leader(&*coord, "resign")
        .await
        .expect("leader")
        .expect("a leader");
    assert_eq!(current.value, b"m2");
}

pub async fn a_standby_takes_over_when_the_leaders_lease_expires(coord: Arc<dyn Coordinator>) {
    let short = coord
        .grant_lease(Duration::from_secs(2))
        .await
        .expect("grant");
    let long = coord
        .grant_lease(Duration::from_secs(30))
        .await
        .expect("grant");
    let leading = campaign(&*coord, "expiry", b"m1", short)
        .await
        .expect("leads");
    let mut standby = stand(&coord, "expiry", "m2", long);
    still_waiting(&mut standby).await;
    // Nobody keeps `short` alive.
    let next = takes_over(standby).await;
    assert!(next.create_revision > leading.create_revision);
    assert_eq!(
        leader(&*coord, "expiry")
            .await
            .expect("leader")
            .expect("a leader")
            .value,
        b"m2"
    );
}

pub async fn an_old_leaders_guard_fails(coord: Arc<dyn Coordinator>) {
    let first = coord
        .grant_lease(Duration::from_secs(30))
        .await
        .expect("grant");
    let second = coord
        .grant_lease(Duration::from_secs(30))
        .await
        .expect("grant");
    let old = campaign(&*coord, "guard", b"m1", first)
        .await
        .expect("leads");
    let guarded = |leadership: &Leadership, value: &str| Txn {
        compares: vec![leadership.guard()],
        success: vec![Op::put("catalog", value)],
        failure: vec![],
    };
    assert!(
        coord
            .txn(guarded(&old, "by m1"))
            .await
            .expect("txn")
            .succeeded
    );

    let standby = stand(&coord, "guard", "m2", second);
    // The old leader loses its lease (as a paused master would).
    coord.revoke_lease(first).await.expect("revoke");
    let new = takes_over(standby).await;
    assert!(
        !coord
            .txn(guarded(&old, "by m1 again"))
            .await
            .expect("txn")
            .succeeded,
        "the old guard fails"
    );
    assert!(
        coord
            .txn(guarded(&new, "by m2"))
            .await
            .expect("txn")
            .succeeded
    );
    assert_eq!(
        coord
            .get(b"catalog")
            .await
            .expect("get")
            .expect("catalog")
            .value,
        b"by m2"
    );
    assert!(
        !old.resign(&*coord).await.expect("resign"),
        "resigning a lost lead deletes nothing"
    );
    assert!(leader(&*coord, "guard").await.expect("leader").is_some());
}
