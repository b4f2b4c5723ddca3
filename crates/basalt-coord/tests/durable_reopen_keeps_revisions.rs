//! A durable coordinator reopened holds what it acknowledged: every key with its
//! create/mod revision and version, and the revision counter; compares on revisions keep
//! working across the restart. What cannot outlive a process does not: leased keys go (a
//! new revision), and the watch history starts after the reopened revision.

use crate::durable;

use basalt_coord::{Compare, CoordError, Coordinator, LocalCoordinator, Op, Txn};
use durable::{open, put, state};
use std::time::Duration;

#[tokio::test]
async fn keys_revisions_and_versions_survive_a_reopen() {
    let dir = tempfile::tempdir().expect("temp dir");
    let before = {
        let coord = open(dir.path());
        put(&coord, "a", "1").await;
        put(&coord, "a", "2").await;
        put(&coord, "b", "1").await;
        put(&coord, "c", "1").await;
        let delete = Txn {
            success: vec![Op::delete("c")],
            ..Txn::default()
        };
        coord.txn(delete).await.expect("delete");
        state(&coord).await
    };
    let coord = open(dir.path());
    assert_eq!(state(&coord).await, before);
    let a = coord.get(b"a").await.expect("get").expect("a kept");
    assert_eq!((a.create_revision, a.mod_revision, a.version), (2, 3, 2));
    assert_eq!(
        coord.revision(),
        6,
        "five changes after the empty store's 1"
    );
    assert_eq!(put(&coord, "a", "3").await, 7, "the counter goes on");
    let a = coord.get(b"a").await.expect("get").expect("a");
    assert_eq!((a.create_revision, a.version), (2, 3));
}

#[tokio::test]
async fn a_guard_on_a_mod_revision_holds_across_a_reopen() {
    let dir = tempfile::tempdir().expect("temp dir");
    let revision = {
        let coord = open(dir.path());
        put(&coord, "owner", "m1").await
    };
    let coord = open(dir.path());
    let guarded = |revision| Txn {
        compares: vec![Compare::mod_revision("owner", revision)],
        success: vec![Op::put("owner", "m2")],
        ..Txn::default()
    };
    assert!(
        !coord
            .txn(guarded(revision - 1))
            .await
            .expect("txn")
            .succeeded
    );
    assert!(coord.txn(guarded(revision)).await.expect("txn").succeeded);
    assert!(
        !coord.txn(guarded(revision)).await.expect("txn").succeeded,
        "the guard moved with the put"
    );
}

#[tokio::test]
async fn leased_keys_are_gone_after_a_reopen_at_a_new_revision() {
    let dir = tempfile::tempdir().expect("temp dir");
    let revision = {
        let coord = open(dir.path());
        let lease = coord
            .grant_lease(Duration::from_secs(60))
            .await
            .expect("lease");
        let txn = Txn {
            success: vec![
                Op::Put {
                    key: b"live/rs1".to_vec(),
                    value: b"up".to_vec(),
                    lease,
                },
                Op::put("table/t1", "enabled"),
            ],
            ..Txn::default()
        };
        coord.txn(txn).await.expect("txn").revision
    };
    let coord = open(dir.path());
    assert_eq!(coord.get(b"live/rs1").await.expect("get"), None);
    assert!(coord.get(b"table/t1").await.expect("get").is_some());
    assert_eq!(
        coord.revision(),
        revision + 1,
        "their deletion is a revision"
    );
    drop(coord);
    let coord = open(dir.path());
    assert_eq!(coord.revision(), revision + 1, "and it was journaled");
    let lease = coord
        .grant_lease(Duration::from_secs(60))
        .await
        .expect("lease");
    assert!(lease > 0);
}

#[tokio::test]
async fn a_watch_from_before_the_reopen_ends_compacted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let revision = {
        let coord = open(dir.path());
        put(&coord, "k", "1").await
    };
    let coord = open(dir.path());
    let mut old = coord.watch(b"k", revision - 1).await.expect("watch opens");
    assert!(matches!(
        old.recv().await,
        Some(Err(CoordError::Compacted { .. }))
    ));
    let mut fresh = coord.watch(b"k", revision).await.expect("watch opens");
    let next = put(&coord, "k", "2").await;
    let event = fresh.recv().await.expect("an event").expect("no error");
    assert_eq!(event.kv.mod_revision, next);
}

#[tokio::test]
async fn a_second_open_of_the_same_folder_is_refused_while_the_first_lives() {
    let dir = tempfile::tempdir().expect("temp dir");
    let first = open(dir.path());
    match LocalCoordinator::open(dir.path()) {
        Err(CoordError::Storage(message)) => assert!(message.contains("in use"), "{message}"),
        other => panic!("expected the folder to be in use, got {other:?}"),
    }
    drop(first);
    open(dir.path());
}
