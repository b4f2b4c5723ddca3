//! Appenders racing a disk that fills and frees again and again (injected `ENOSPC`, small
//! segments so that rolls fail too): every acknowledged edit is replayed, no refused one
//! ever is, and ASYNC_WAL edits caught in refused batches reach the log later.

use crate::wal_support;

use basalt_storage::fs::{FaultyFs, FileSystem, LocalFs};
use basalt_storage::wal::WalConfig;
use basalt_types::Durability;
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::Duration;
use wal_support::{config, edit, open};

/// What happened to one append.
struct Outcome {
    region: String,
    seq: u64,
    acked: bool,
}

const WAIT: Duration = Duration::from_secs(30);

#[test]
fn wal_appenders_racing_a_filling_disk_lose_no_ack_and_log_no_refused_edit() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let faulty = Arc::new(FaultyFs::new(Arc::new(LocalFs)));
    let faults = faulty.faults();
    let fs: Arc<dyn FileSystem> = faulty;
    let small = WalConfig {
        segment_size_bytes: 2048,
        ..config()
    };
    let (wal, _) = open(&fs, tmp.path(), small.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let durabilities = [
        Durability::SyncWal,
        Durability::SyncWal,
        Durability::FsyncWal,
        Durability::AsyncWal,
    ];
    let appenders: Vec<_> = durabilities
        .into_iter()
        .enumerate()
        .map(|(t, durability)| {
            let (wal, stop, tx) = (wal.clone(), stop.clone(), tx.clone());
            thread::spawn(move || {
                let region = format!("r{t}");
                for seq in 1.. {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let result = wal.append(&edit(&region, seq, 1), durability);
                    if let Err(e) = &result {
                        assert!(e.is_no_space(), "only refusals expected: {e}");
                    }
                    let outcome = Outcome {
                        region: region.clone(),
                        seq,
                        acked: result.is_ok(),
                    };
                    if tx.send(outcome).is_err() {
                        break;
                    }
                }
            })
        })
        .collect();
    drop(tx);

    let mut outcomes = Vec::new();
    let take = |count: usize, refused_wanted: usize, outcomes: &mut Vec<Outcome>| {
        let (mut seen, mut refused) = (0, 0);
        while seen < count || refused < refused_wanted {
            let outcome = rx.recv_timeout(WAIT).expect("appenders make progress");
            seen += 1;
            refused += usize::from(!outcome.acked);
            outcomes.push(outcome);
        }
    };
    for round in 0..8u64 {
        take(40, 0, &mut outcomes);
        faults.fill_disk_after(round * 97 % 400);
        take(0, 5, &mut outcomes);
        faults.free_space();
    }
    take(40, 0, &mut outcomes);
    stop.store(true, Ordering::SeqCst);
    for appender in appenders {
        appender.join().expect("appender");
    }
    outcomes.extend(rx.try_iter());
    wal.sync()
        .expect("space is back: ASYNC_WAL edits reach the log");
    assert_eq!(wal.waiting_len(), 0, "no refusal left behind");
    assert!(wal.poisoned().is_none());
    drop(wal);

    let local: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let (_wal, replayed) = open(&local, tmp.path(), small);
    let logged: BTreeSet<(String, u64)> = replayed
        .iter()
        .map(|e| (e.region.clone(), e.seq_id))
        .collect();
    assert_eq!(logged.len(), replayed.len(), "no edit logged twice");
    let mut last_seq: HashMap<&str, u64> = HashMap::new();
    for e in &replayed {
        let last = last_seq.entry(e.region.as_str()).or_insert(0);
        assert!(e.seq_id > *last, "{} replays in order", e.region);
        *last = e.seq_id;
    }
    let (acked, refused): (Vec<_>, Vec<_>) = outcomes.iter().partition(|o| o.acked);
    let lost: Vec<_> = acked
        .iter()
        .filter(|o| !logged.contains(&(o.region.clone(), o.seq)))
        .map(|o| (&o.region, o.seq))
        .collect();
    let revived: Vec<_> = refused
        .iter()
        .filter(|o| logged.contains(&(o.region.clone(), o.seq)))
        .map(|o| (&o.region, o.seq))
        .collect();
    eprintln!(
        "{} acknowledged, {} refused, {} replayed",
        acked.len(),
        refused.len(),
        replayed.len()
    );
    assert!(lost.is_empty(), "acknowledged edits lost: {lost:?}");
    assert!(revived.is_empty(), "refused edits logged: {revived:?}");
    assert!(refused.len() >= 40);
}
