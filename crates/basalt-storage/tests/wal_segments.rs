//! Segments: rolling by size, deleting fully flushed segments, a failed roll.

use crate::wal_support;

use basalt_storage::fs::{FaultyFs, FileSystem, LocalFs};
use basalt_storage::wal::{WalConfig, WalEdit};
use basalt_storage::Error;
use basalt_types::Durability;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use wal_support::{config, edit, mem_fs, open, segments};

fn small_segments() -> WalConfig {
    WalConfig {
        segment_size_bytes: 300,
        ..config()
    }
}

/// Region `a` gets seq 1..=10, then region `b` 11..=20, then both 21..=24.
fn phased_edits() -> Vec<WalEdit> {
    (1..=24)
        .map(|seq| {
            let region = match seq {
                1..=10 => "a",
                11..=20 => "b",
                _ => ["a", "b"][seq as usize % 2],
            };
            edit(region, seq, 1)
        })
        .collect()
}

fn is_subsequence(short: &[WalEdit], long: &[WalEdit]) -> bool {
    let mut long = long.iter();
    short.iter().all(|e| long.any(|l| l == e))
}

#[test]
fn wal_segments_roll_by_size_and_fully_flushed_ones_are_deleted() {
    let (_mem, fs) = mem_fs();
    let dir = PathBuf::from("/wal");
    let (wal, _) = open(&fs, &dir, small_segments());
    let edits = phased_edits();
    for e in &edits {
        wal.append(e, Durability::SyncWal).expect("append");
    }
    let rolled = segments(&fs, &dir);
    assert!(rolled.len() >= 6, "{} segments", rolled.len());
    assert_eq!(wal.closed_segment_ids().len(), rolled.len() - 1);

    wal.mark_flushed("a", 10).expect("mark");
    let after_a = segments(&fs, &dir);
    assert!(
        after_a.len() < rolled.len(),
        "segments holding only a<=10 went"
    );
    assert!(after_a.len() > 2, "segments still holding b stay");
    wal.mark_flushed("b", 14).expect("mark");
    drop(wal);

    let (wal, replayed) = open(&fs, &dir, small_segments());
    let unflushed: Vec<_> = edits
        .iter()
        .filter(|e| e.seq_id > if e.region == "a" { 10 } else { 14 })
        .cloned()
        .collect();
    assert!(replayed.len() < edits.len(), "something was deleted");
    assert!(is_subsequence(&replayed, &edits), "replay keeps log order");
    assert!(
        is_subsequence(&unflushed, &replayed),
        "every unflushed edit replays"
    );

    // Segments found on open are tracked too; the active segment is never deleted.
    wal.mark_flushed("a", u64::MAX).expect("mark");
    wal.mark_flushed("b", u64::MAX).expect("mark");
    let left = segments(&fs, &dir);
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(
        left[0] > *after_a.last().expect("segments"),
        "the newest, active one"
    );
    wal.append(&edit("c", 1, 1), Durability::SyncWal)
        .expect("append");
    drop(wal);
    let (_wal, replayed) = open(&fs, &dir, small_segments());
    assert_eq!(replayed, vec![edit("c", 1, 1)]);
}

#[test]
fn wal_a_failed_roll_poisons_and_keeps_acknowledged_edits() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let faulty = Arc::new(FaultyFs::new(Arc::new(LocalFs)));
    let faults = faulty.faults();
    let fs: Arc<dyn FileSystem> = faulty;
    let (wal, _) = open(&fs, tmp.path(), small_segments());
    let acked: Vec<_> = (1..=2).map(|seq| edit("a", seq, 3)).collect();
    for e in &acked {
        wal.append(e, Durability::SyncWal).expect("append");
    }
    let active = segments(&fs, tmp.path()).pop().expect("active segment");
    let len = std::fs::metadata(&active).expect("metadata").len();
    assert!(
        len >= 300,
        "the segment is full ({len} bytes): the next append rolls"
    );
    faults.fail_creates.store(true, Ordering::SeqCst);
    let failed = wal.append(&edit("a", 4, 1), Durability::SyncWal);
    assert!(matches!(failed, Err(Error::Io { .. })), "{failed:?}");
    let later = wal.append(&edit("a", 5, 1), Durability::SyncWal);
    assert!(matches!(later, Err(Error::Poisoned(_))), "{later:?}");
    drop(wal);

    let local: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let (_wal, replayed) = open(&local, tmp.path(), small_segments());
    assert_eq!(replayed, acked);
}

#[test]
fn wal_opens_that_log_nothing_leave_no_segments_behind() {
    let (_mem, fs) = mem_fs();
    let dir = PathBuf::from("/wal");
    for _ in 0..3 {
        let (wal, replayed) = open(&fs, &dir, config());
        assert!(replayed.is_empty());
        drop(wal);
    }
    assert_eq!(segments(&fs, &dir).len(), 1, "only the last open's segment");
}
