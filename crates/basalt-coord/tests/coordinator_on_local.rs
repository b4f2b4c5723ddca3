//! The behaviour suite (`common`) against `LocalCoordinator`, in memory and durable in a
//! folder, plus what only the local store has: a bounded history.

use crate::common;

/// The suite against coordinators made by `$make`, which yields `(guard, coordinator)`:
/// the guard (a temporary folder, or nothing) lives as long as the test.
macro_rules! suite {
    ($name:ident, $make:expr) => {
        mod $name {
            use super::common::{self, election, kv, lease, watch};
            #[allow(unused_imports, reason = "used by one of the makers")]
            use basalt_coord::{CoordError, Coordinator, DurableOptions, LocalCoordinator};
            use std::sync::Arc;

            fn make(history: usize) -> (Option<tempfile::TempDir>, LocalCoordinator) {
                let make: fn(usize) -> (Option<tempfile::TempDir>, LocalCoordinator) = $make;
                make(history)
            }

            fn local() -> (Option<tempfile::TempDir>, Arc<dyn Coordinator>) {
                let (dir, coord) = make(basalt_coord::local::HISTORY_EVENTS_MAX);
                (dir, Arc::new(coord))
            }

            #[tokio::test]
            async fn put_get_and_list() {
                let (_dir, coord) = local();
                kv::put_get_and_list(&*coord).await;
            }

            #[tokio::test]
            async fn txn_compares_choose_the_branch() {
                let (_dir, coord) = local();
                kv::txn_compares_choose_the_branch(&*coord).await;
            }

            #[tokio::test]
            async fn an_expired_lease_takes_its_keys() {
                let (_dir, coord) = local();
                lease::an_expired_lease_takes_its_keys(&*coord).await;
            }

            #[tokio::test]
            async fn a_revoked_lease_is_gone() {
                let (_dir, coord) = local();
                lease::a_revoked_lease_is_gone(&*coord).await;
            }

            #[tokio::test]
            async fn the_keeper_holds_a_lease_past_its_ttl() {
                let (_dir, coord) = local();
                lease::the_keeper_holds_a_lease_past_its_ttl(coord).await;
            }

            #[tokio::test]
            async fn a_watch_sees_changes_in_order_from_a_revision() {
                let (_dir, coord) = local();
                watch::a_watch_sees_changes_in_order_from_a_revision(&*coord).await;
            }

            #[tokio::test]
            async fn a_watch_from_a_compacted_revision_ends_compacted() {
                let (_dir, coord) = make(basalt_coord::local::HISTORY_EVENTS_MAX);
                watch::a_watch_from_a_compacted_revision_ends_compacted(&coord, async |revision| {
                    coord.compact(revision)
                })
                .await;
            }

            #[tokio::test]
            async fn a_watch_behind_the_bounded_history_ends_compacted() {
                let (_dir, coord) = make(4);
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
            async fn a_watch_on_a_quiet_prefix_keeps_up_with_a_busy_store() {
                let (_dir, coord) = make(4);
                let start = common::put(&coord, "quiet/0", "0").await;
                let mut stream = coord
                    .watch(b"quiet/", start)
                    .await
                    .expect("the watch opens");
                // Far more changes elsewhere than the history keeps, the watch task running
                // between them (as it does between a master's transactions).
                for i in 0..20 {
                    common::put(&coord, "busy", &i.to_string()).await;
                    tokio::task::yield_now().await;
                }
                let last = common::put(&coord, "quiet/1", "1").await;
                match stream.recv().await {
                    Some(Ok(event)) => assert_eq!(event.kv.mod_revision, last),
                    other => panic!("expected the quiet prefix's change, got {other:?}"),
                }
            }

            #[tokio::test]
            async fn a_standby_takes_over_when_the_leader_resigns() {
                let (_dir, coord) = local();
                election::a_standby_takes_over_when_the_leader_resigns(coord).await;
            }

            #[tokio::test]
            async fn a_standby_takes_over_when_the_leaders_lease_expires() {
                let (_dir, coord) = local();
                election::a_standby_takes_over_when_the_leaders_lease_expires(coord).await;
            }

            #[tokio::test]
            async fn an_old_leaders_guard_fails() {
                let (_dir, coord) = local();
                election::an_old_leaders_guard_fails(coord).await;
            }
        }
    };
}

suite!(in_memory, |history| (
    None,
    LocalCoordinator::with_history(history)
));

suite!(durable, |history| {
    let dir = tempfile::tempdir().expect("temp dir");
    let options = DurableOptions {
        history_events_max: history,
        ..DurableOptions::default()
    };
    let coord = LocalCoordinator::open_with(dir.path(), options).expect("the folder opens");
    (Some(dir), coord)
});
