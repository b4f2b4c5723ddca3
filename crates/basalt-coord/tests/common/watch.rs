//! Watches: every change under a prefix after a revision, in order; compaction ends one.

use super::{next_event, put};
use basalt_coord::{CoordError, Coordinator, EventKind, Op, Result, Txn};

pub async fn a_watch_sees_changes_in_order_from_a_revision(coord: &dyn Coordinator) {
    put(coord, "w/before", "x").await;
    let from = put(coord, "elsewhere", "x").await;
    let r1 = put(coord, "w/x", "1").await;
    let r2 = put(coord, "w/x", "2").await;
    let r3 = coord
        .txn(Txn {
            success: vec![Op::delete("w/x")],
            ..Txn::default()
        })
        .await
        .expect("delete")
        .revision;
    put(coord, "outside/y", "1").await;
    let both = Txn {
        success: vec![Op::put("w/a", "a"), Op::put("w/b", "b")],
        ..Txn::default()
    };
    let r4 = coord.txn(both).await.expect("two puts").revision;

    let mut events = coord.watch(b"w/", from).await.expect("watch");
    let mut seen = Vec::new();
    for _ in 0..5 {
        let event = next_event(&mut events).await;
        seen.push((
            event.kind,
            String::from_utf8_lossy(&event.kv.key).to_string(),
            event.kv.mod_revision,
            event.kv.value,
        ));
    }
    let expected = vec![
        (EventKind::Put, "w/x".to_string(), r1, b"1".to_vec()),
        (EventKind::Put, "w/x".to_string(), r2, b"2".to_vec()),
        (EventKind::Delete, "w/x".to_string(), r3, Vec::new()),
        (EventKind::Put, "w/a".to_string(), r4, b"a".to_vec()),
        (EventKind::Put, "w/b".to_string(), r4, b"b".to_vec()),
    ];
    assert_eq!(seen, expected);

    // Changes after the watch started arrive too.
    let r5 = put(coord, "w/live", "now").await;
    let event = next_event(&mut events).await;
    assert_eq!(
        (event.kind, event.kv.key.as_slice(), event.kv.mod_revision),
        (EventKind::Put, &b"w/live"[..], r5)
    );
}

/// `compact(revision)` forgets the coordinator's history below `revision`.
pub async fn a_watch_from_a_compacted_revision_ends_compacted(
    coord: &dyn Coordinator,
    compact: impl AsyncFn(i64) -> Result<()>,
) {
    let first = put(coord, "cw/k", "1").await;
    put(coord, "cw/k", "2").await;
    let last = put(coord, "cw/k", "3").await;
    compact(last).await.expect("compact");

    let mut stale = coord
        .watch(b"cw/", first - 1)
        .await
        .expect("the watch opens");
    match tokio::time::timeout(super::WAIT, stale.recv())
        .await
        .expect("an answer")
    {
        Some(Err(CoordError::Compacted {
            requested,
            compacted,
        })) => {
            assert_eq!(requested, first);
            assert_eq!(compacted, last);
        }
        other => panic!("expected Compacted, got {other:?}"),
    }

    // From the compaction revision on, the history is there.
    let mut fresh = coord.watch(b"cw/", last - 1).await.expect("watch");
    let event = next_event(&mut fresh).await;
    assert_eq!((event.kind, event.kv.mod_revision), (EventKind::Put, last));
}
