//! The journal folds into a snapshot once it passes its bound; the state read back after
//! a reopen is the same, whether the fold finished or a crash stopped it between writing
//! the snapshot and restarting the journal (the old journal's records the snapshot
//! already holds are skipped).

use crate::durable;

use basalt_coord::{Coordinator, DurableOptions, LocalCoordinator, Op, Txn};
use durable::{journal, put, snapshot, state};
use std::fs;

fn small() -> DurableOptions {
    DurableOptions {
        journal_bytes_max: 8 * 1024,
        journal_records_max: 1_000,
        ..DurableOptions::default()
    }
}

#[tokio::test]
async fn many_writes_cross_the_bound_and_reopen_to_the_same_state() {
    let dir = tempfile::tempdir().expect("temp dir");
    let before = {
        let coord = LocalCoordinator::open_with(dir.path(), small()).expect("opens");
        for i in 0..600 {
            put(&coord, &format!("k/{:03}", i % 97), &format!("value {i}")).await;
            if i % 50 == 0 {
                let txn = Txn {
                    success: vec![Op::DeletePrefix {
                        prefix: format!("k/{}", i % 10).into_bytes(),
                    }],
                    ..Txn::default()
                };
                coord.txn(txn).await.expect("delete prefix");
            }
        }
        state(&coord).await
    };
    assert!(snapshot(dir.path()).exists(), "the journal was folded");
    let journal_bytes = fs::metadata(journal(dir.path())).expect("journal").len();
    assert!(
        journal_bytes <= 8 * 1024 + 200,
        "the journal restarted: {journal_bytes}"
    );
    let coord = durable::open_with(dir.path(), small());
    assert_eq!(state(&coord).await, before);
    drop(coord);
    let coord = LocalCoordinator::open(dir.path()).expect("reopens with the defaults");
    assert_eq!(state(&coord).await, before);
}

#[tokio::test]
async fn a_crash_between_snapshot_and_journal_restart_replays_nothing_twice() {
    let dir = tempfile::tempdir().expect("temp dir");
    let options = DurableOptions {
        journal_records_max: 5,
        ..DurableOptions::default()
    };
    let (old_journal, before) = {
        let coord = LocalCoordinator::open_with(dir.path(), options).expect("opens");
        for i in 0..4 {
            put(&coord, "k", &i.to_string()).await;
        }
        let old_journal = fs::read(journal(dir.path())).expect("journal");
        put(&coord, "k", "4").await; // the fifth record: folded
        (old_journal, state(&coord).await)
    };
    // The journal a crash after the snapshot's rename would leave: records 2..=5, all
    // older than the snapshot (revision 6). Replaying them would set `k` back to "3".
    let restarted = fs::read(journal(dir.path())).expect("journal");
    assert_eq!(restarted.len(), 24, "only a header after the fold");
    fs::write(journal(dir.path()), &old_journal).expect("put the old journal back");
    let coord = durable::open_with(dir.path(), options);
    assert_eq!(state(&coord).await, before);
    let k = coord.get(b"k").await.expect("get").expect("k");
    assert_eq!((k.version, k.value.as_slice()), (5, &b"4"[..]));
}
