//! Appending: group commit, poisoning on failed writes and syncs, ASYNC_WAL's background
//! syncer, SKIP_WAL and close.

use crate::wal_support;

use basalt_storage::fs::{FaultyFs, FileSystem, LocalFs};
use basalt_storage::wal::{Wal, WalConfig, WalEdit};
use basalt_storage::Error;
use basalt_types::{Cell, Durability};
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};
use wal_support::{config, edit, mem_fs, open, segments};

/// `threads` threads each log `per_thread` SyncWal edits to their own region. Returns the
/// elapsed time and the syncs the log did; checks everything is replayed, in order.
fn synced_appends(threads: usize, per_thread: u64) -> (Duration, u64) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let (wal, _) = open(&fs, tmp.path(), config());
    let start = Arc::new(Barrier::new(threads + 1));
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (wal, start) = (wal.clone(), start.clone());
            thread::spawn(move || {
                start.wait();
                for seq in 1..=per_thread {
                    wal.append(&edit(&format!("r{t}"), seq, 1), Durability::SyncWal)
                        .expect("append");
                }
            })
        })
        .collect();
    start.wait();
    let began = Instant::now();
    for h in handles {
        h.join().expect("appender");
    }
    let elapsed = began.elapsed();
    let syncs = wal.sync_count();
    drop(wal);

    let (_wal, replayed) = open(&fs, tmp.path(), config());
    assert_eq!(replayed.len() as u64, threads as u64 * per_thread);
    for t in 0..threads {
        let region = format!("r{t}");
        let seqs: Vec<u64> = replayed
            .iter()
            .filter(|e| e.region == region)
            .map(|e| e.seq_id)
            .collect();
        assert_eq!(seqs, (1..=per_thread).collect::<Vec<_>>(), "{region}");
    }
    (elapsed, syncs)
}

#[test]
fn wal_concurrent_synced_appends_share_syncs() {
    let appends = 240u64;
    let (alone, alone_syncs) = synced_appends(1, appends);
    let (shared, shared_syncs) = synced_appends(8, appends / 8);
    let rate = |d: Duration| appends as f64 / d.as_secs_f64();
    eprintln!(
        "1 thread: {appends} appends, {alone_syncs} syncs, {:.0}/s; \
         8 threads: {appends} appends, {shared_syncs} syncs, {:.0}/s",
        rate(alone),
        rate(shared)
    );
    assert_eq!(
        alone_syncs, appends,
        "alone, every append needs its own sync"
    );
    assert!(
        shared_syncs < appends,
        "{shared_syncs} syncs for {appends} appends"
    );
}

#[test]
fn wal_failed_syncs_and_writes_poison_without_losing_acknowledged_edits() {
    for fail_writes in [false, true] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let faulty = Arc::new(FaultyFs::new(Arc::new(LocalFs)));
        let faults = faulty.faults();
        let fs: Arc<dyn FileSystem> = faulty;
        let (wal, _) = open(&fs, tmp.path(), config());
        let acked: Vec<_> = (1..=5).map(|s| edit("a", s, 2)).collect();
        for e in &acked {
            wal.append(e, Durability::SyncWal).expect("append");
        }
        let switch = if fail_writes {
            &faults.fail_writes
        } else {
            &faults.fail_syncs
        };
        switch.store(true, Ordering::SeqCst);

        let failed = wal.append(&edit("a", 6, 1), Durability::FsyncWal);
        assert!(matches!(failed, Err(Error::Io { .. })), "{failed:?}");
        let why = wal.poisoned().expect("poisoned");
        assert!(why.contains("injected"), "{why}");
        switch.store(false, Ordering::SeqCst);
        for durability in [
            Durability::SyncWal,
            Durability::AsyncWal,
            Durability::SkipWal,
        ] {
            let later = wal.append(&edit("a", 7, 1), durability);
            assert!(matches!(later, Err(Error::Poisoned(_))), "{later:?}");
        }
        assert!(matches!(wal.sync(), Err(Error::Poisoned(_))));
        assert!(matches!(wal.close(), Err(Error::Poisoned(_))));
        drop(wal);

        let local: Arc<dyn FileSystem> = Arc::new(LocalFs);
        let (_wal, replayed) = open(&local, tmp.path(), config());
        assert_eq!(replayed[..5], acked[..], "fail_writes={fail_writes}");
        // The failed edit may have reached the disk (a failed sync), but nothing else.
        assert!(replayed.len() <= 6, "{replayed:?}");
    }
}

#[test]
fn wal_a_sync_failing_under_concurrent_appenders_never_loses_an_ack() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let faulty = Arc::new(FaultyFs::new(Arc::new(LocalFs)));
    let faults = faulty.faults();
    let fs: Arc<dyn FileSystem> = faulty;
    let (wal, _) = open(&fs, tmp.path(), config());
    let (acks, acked) = mpsc::channel();
    // Each appender logs until its first error; the main thread makes syncs fail once a few
    // appends were acknowledged, so every appender ends on an error.
    let handles: Vec<_> = (0..6)
        .map(|t| {
            let (wal, acks) = (wal.clone(), acks.clone());
            thread::spawn(move || {
                let region = format!("r{t}");
                for seq in 1..=1_000_000 {
                    match wal.append(&edit(&region, seq, 1), Durability::SyncWal) {
                        Ok(()) => acks.send((region.clone(), seq)).expect("receiver lives"),
                        Err(e) => return Some(e),
                    }
                }
                None
            })
        })
        .collect();
    drop(acks);
    let mut all_acked: Vec<_> = acked.iter().take(30).collect();
    faults.fail_syncs.store(true, Ordering::SeqCst);
    let errors: Vec<Option<Error>> = handles
        .into_iter()
        .map(|h| h.join().expect("appender"))
        .collect();
    all_acked.extend(acked.iter());
    assert!(
        wal.poisoned().is_some(),
        "the sync failure poisoned the log"
    );
    for e in &errors {
        let e = e.as_ref().expect("every appender ends on an error");
        assert!(matches!(e, Error::Io { .. } | Error::Poisoned(_)), "{e}");
    }
    drop(wal);

    let local: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let (_wal, replayed) = open(&local, tmp.path(), config());
    for (region, seq) in &all_acked {
        assert!(
            replayed
                .iter()
                .any(|e| &e.region == region && e.seq_id == *seq),
            "acknowledged {region}/{seq} was lost"
        );
    }
}

#[test]
fn wal_async_edits_are_synced_by_the_background_thread_within_the_interval() {
    let (mem, fs) = mem_fs();
    let dir = std::path::PathBuf::from("/wal");
    let fast = WalConfig {
        async_sync_interval_ms: 20,
        ..config()
    };
    let (wal, _) = open(&fs, &dir, fast);
    let before = mem.syncs();
    wal.append(&edit("a", 1, 1), Durability::AsyncWal)
        .expect("append");
    assert!(
        mem.wait_for_syncs(before + 1, Duration::from_secs(10)),
        "no background sync happened"
    );
    drop(wal);
    let (_wal, replayed) = open(&fs, &dir, config());
    assert_eq!(replayed, vec![edit("a", 1, 1)]);
}

#[test]
fn wal_async_appends_past_the_handoff_size_wake_the_syncer_before_its_interval() {
    let (mem, fs) = mem_fs();
    let dir = std::path::PathBuf::from("/wal");
    let ten_minutes = WalConfig {
        async_sync_interval_ms: 600_000,
        ..config()
    };
    let (wal, _) = open(&fs, &dir, ten_minutes);
    let before = mem.syncs();
    // 100 KiB per edit: the eleventh leaves more than 1 MiB buffered, far below the
    // 8 MiB at which an appender would sync by itself.
    let big = |seq: u64| WalEdit {
        region: "a".into(),
        seq_id: seq,
        cells: vec![Cell::put("row", "cf", "q", 1, vec![7u8; 100 * 1024]).with_seq(seq)],
        nonce: None,
    };
    for seq in 1..=11 {
        wal.append(&big(seq), Durability::AsyncWal).expect("append");
    }
    assert!(
        mem.wait_for_syncs(before + 1, Duration::from_secs(10)),
        "the syncer was not woken by a full buffer"
    );
    drop(wal);
    let (_wal, replayed) = open(&fs, &dir, config());
    assert_eq!(replayed, (1..=11).map(big).collect::<Vec<_>>());
}

#[test]
fn wal_close_and_drop_stop_the_syncer_at_once_and_flush_async_edits() {
    let (_mem, fs) = mem_fs();
    let dir = std::path::PathBuf::from("/wal");
    let ten_minutes = WalConfig {
        async_sync_interval_ms: 600_000,
        ..config()
    };
    let began = Instant::now();
    let (wal, _) = open(&fs, &dir, ten_minutes.clone());
    wal.append(&edit("a", 1, 1), Durability::AsyncWal)
        .expect("append");
    wal.close().expect("close");
    assert_eq!(wal.sync_count(), 1, "close synced the buffered edit");
    let after = wal.append(&edit("a", 2, 1), Durability::AsyncWal);
    assert!(matches!(after, Err(Error::Closed(_))), "{after:?}");
    drop(wal);
    let (wal, replayed) = open(&fs, &dir, ten_minutes);
    assert_eq!(replayed, vec![edit("a", 1, 1)]);
    wal.append(&edit("a", 2, 1), Durability::AsyncWal)
        .expect("append");
    drop(wal);
    let (_wal, replayed) = open(&fs, &dir, config());
    assert_eq!(replayed.len(), 2, "drop synced the buffered edit");
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "{:?}",
        began.elapsed()
    );
}

#[test]
fn wal_skip_wal_writes_nothing() {
    let (mem, fs) = mem_fs();
    let dir = std::path::PathBuf::from("/wal");
    let (wal, _) = open(&fs, &dir, config());
    let path = segments(&fs, &dir).pop().expect("active segment");
    let empty = mem.read(&path).len();
    for seq in 1..=3 {
        wal.append(&edit("a", seq, 3), Durability::SkipWal)
            .expect("append");
    }
    wal.close().expect("close");
    assert_eq!(mem.read(&path).len(), empty);
    assert_eq!(wal.sync_count(), 0);
}

#[test]
fn wal_bad_configs_and_oversized_edits_are_refused() {
    let (_mem, fs) = mem_fs();
    let dir = std::path::PathBuf::from("/wal");
    for bad in [
        WalConfig {
            segment_size_bytes: 0,
            ..config()
        },
        WalConfig {
            async_sync_interval_ms: 0,
            ..config()
        },
    ] {
        let err = Wal::open(fs.clone(), dir.clone(), bad).expect_err("invalid");
        assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
    }
    let (wal, _) = open(&fs, &dir, config());
    let mut huge = edit("a", 1, 0);
    huge.region = "r".repeat(70_000);
    let err = wal
        .append(&huge, Durability::SyncWal)
        .expect_err("too long");
    assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
    assert!(
        wal.poisoned().is_none(),
        "a refused edit does not poison the log"
    );
    wal.append(&edit("a", 2, 1), Durability::SyncWal)
        .expect("append");
}
