//! The log on a full disk (injected `ENOSPC`): appends are refused with a clear error and
//! never acknowledged nor logged later, the log is not poisoned, the segment a failed write
//! tore is cut back, and appends resume by themselves in a fresh segment once space returns.
//! A failed sync stays fatal even when it blames the disk.

use crate::wal_support;

use basalt_storage::fs::{Faults, FaultyFs, FileSystem, LocalFs};
use basalt_storage::wal::{Wal, WalConfig, WalEdit};
use basalt_storage::{Error, ErrorKind};
use basalt_types::Durability;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use wal_support::{config, edit, open, segments};

fn faulty() -> (Arc<Faults>, Arc<dyn FileSystem>) {
    let faulty = Arc::new(FaultyFs::new(Arc::new(LocalFs)));
    (faulty.faults(), faulty)
}

/// What a log folder replays, read with no fault injected.
fn replay(dir: &Path, config: WalConfig) -> Vec<WalEdit> {
    let local: Arc<dyn FileSystem> = Arc::new(LocalFs);
    open(&local, dir, config).1
}

fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).expect("metadata").len()
}

fn assert_refused(result: basalt_storage::Result<()>) {
    let err = result.expect_err("refused on a full disk");
    assert!(err.is_no_space(), "{err:?}");
    assert_eq!(err.kind(), ErrorKind::Unavailable);
    let text = err.to_string();
    assert!(
        text.starts_with("disk full: ") && text.contains("once space is freed"),
        "{text}"
    );
}

#[test]
fn wal_a_full_disk_refuses_appends_then_they_resume_in_a_fresh_segment() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (faults, fs) = faulty();
    let (wal, _) = open(&fs, tmp.path(), config());
    let mut acked: Vec<_> = (1..=5).map(|s| edit("a", s, 2)).collect();
    for e in &acked {
        wal.append(e, Durability::SyncWal).expect("append");
    }
    let first = segments(&fs, tmp.path()).pop().expect("a segment");
    let synced_len = file_len(&first);

    // Part of the next record fits: the write tears the segment, which is cut back.
    faults.fill_disk_after(10);
    assert_refused(wal.append(&edit("a", 6, 2), Durability::SyncWal));
    assert_eq!(
        file_len(&first),
        synced_len,
        "cut back to its synced records"
    );
    assert!(wal.poisoned().is_none() && wal.refusing());
    // Still full: no segment can be started, and none is left half made.
    assert_refused(wal.append(&edit("a", 7, 1), Durability::FsyncWal));
    assert_eq!(segments(&fs, tmp.path()), vec![first.clone()]);

    faults.free_space();
    let resumed = edit("a", 8, 1);
    wal.append(&resumed, Durability::SyncWal)
        .expect("space is back");
    acked.push(resumed);
    assert!(!wal.refusing());
    let now = segments(&fs, tmp.path());
    assert_eq!(now.len(), 2, "a fresh segment: {now:?}");
    assert_eq!(
        wal.closed_segment_ids().len(),
        1,
        "the abandoned one is closed"
    );
    assert_eq!(wal.waiting_len(), 0, "no refusal left behind");
    drop(wal);

    assert_eq!(
        replay(tmp.path(), config()),
        acked,
        "refused edits never logged"
    );
}

#[test]
fn wal_a_roll_on_a_full_disk_is_tried_again_at_the_next_append() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (faults, fs) = faulty();
    let small = WalConfig {
        segment_size_bytes: 300,
        ..config()
    };
    let (wal, _) = open(&fs, tmp.path(), small.clone());
    let mut acked: Vec<_> = (1..=2).map(|s| edit("a", s, 3)).collect();
    for e in &acked {
        wal.append(e, Durability::SyncWal).expect("append");
    }
    let full = segments(&fs, tmp.path());
    assert!(file_len(&full[0]) >= 300, "the next append rolls");

    faults.fill_disk_after(0);
    for seq in 3..=4 {
        assert_refused(wal.append(&edit("a", seq, 1), Durability::SyncWal));
        assert_eq!(
            segments(&fs, tmp.path()),
            full,
            "the new segment's partial file was removed"
        );
    }
    faults.free_space();
    for seq in 5..=6 {
        let e = edit("a", seq, 1);
        wal.append(&e, Durability::SyncWal).expect("rolled");
        acked.push(e);
    }
    assert_eq!(segments(&fs, tmp.path()).len(), 2);
    drop(wal);
    assert_eq!(replay(tmp.path(), small), acked);
}

#[test]
fn wal_opens_on_a_full_disk_and_starts_its_segment_once_space_returns() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (faults, fs) = faulty();
    let mut acked: Vec<_> = (1..=3).map(|s| edit("a", s, 1)).collect();
    {
        let (wal, _) = open(&fs, tmp.path(), config());
        for e in &acked {
            wal.append(e, Durability::SyncWal).expect("append");
        }
    }
    let before = segments(&fs, tmp.path());

    faults.fill_disk_after(0);
    let (wal, replayed) = Wal::open(fs.clone(), tmp.path().to_path_buf(), config())
        .expect("a full disk does not stop the log from opening");
    assert_eq!(replayed, acked, "everything is there to serve reads");
    assert_eq!(
        segments(&fs, tmp.path()),
        before,
        "no empty segment left behind"
    );
    assert_refused(wal.append(&edit("a", 4, 1), Durability::SyncWal));
    // SKIP_WAL writes never touch the log: they are not refused.
    wal.append(&edit("a", 5, 1), Durability::SkipWal)
        .expect("skip");

    faults.free_space();
    let e = edit("a", 6, 1);
    wal.append(&e, Durability::SyncWal).expect("space is back");
    acked.push(e);
    drop(wal);
    assert_eq!(replay(tmp.path(), config()), acked);
}

#[test]
fn wal_async_edits_of_a_refused_batch_are_logged_with_the_next_one() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (faults, fs) = faulty();
    let (wal, _) = open(&fs, tmp.path(), config());
    // ASYNC_WAL appends are acknowledged at once: they must reach the log eventually.
    let early: Vec<_> = (1..=3).map(|s| edit("a", s, 1)).collect();
    for e in &early {
        wal.append(e, Durability::AsyncWal).expect("buffered");
    }
    faults.fill_disk_after(0);
    assert_refused(wal.append(&edit("b", 4, 1), Durability::SyncWal));
    let late = edit("a", 5, 1);
    wal.append(&late, Durability::AsyncWal).expect("buffered");
    assert_refused(wal.sync());
    faults.free_space();
    wal.sync().expect("space is back");
    drop(wal);

    let replayed = replay(tmp.path(), config());
    let mut expected = early.clone();
    expected.push(late);
    assert_eq!(
        replayed, expected,
        "the refused SYNC_WAL edit b/4 is absent"
    );
}

#[test]
fn wal_a_failed_sync_is_fatal_even_when_it_says_the_disk_is_full() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (faults, fs) = faulty();
    let (wal, _) = open(&fs, tmp.path(), config());
    let acked = edit("a", 1, 1);
    wal.append(&acked, Durability::SyncWal).expect("append");
    faults.fail_syncs_no_space.store(true, Ordering::SeqCst);
    // The written bytes may or may not be on disk: retrying them could not be trusted.
    let failed = wal.append(&edit("a", 2, 1), Durability::SyncWal);
    assert!(matches!(failed, Err(Error::Io { .. })), "{failed:?}");
    faults.fail_syncs_no_space.store(false, Ordering::SeqCst);
    let later = wal.append(&edit("a", 3, 1), Durability::SyncWal);
    assert!(matches!(later, Err(Error::Poisoned(_))), "{later:?}");
    assert!(wal.poisoned().is_some());
    drop(wal);
    let replayed = replay(tmp.path(), config());
    assert_eq!(replayed[0], acked);
    assert!(replayed.len() <= 2, "{replayed:?}");
}
