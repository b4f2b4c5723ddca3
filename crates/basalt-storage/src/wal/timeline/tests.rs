use super::*;
use crate::fs::LocalFs;
use crate::wal::{Wal, WalConfig};
use basalt_types::{Cell, Durability};
use std::sync::Arc;

fn edit(region: &str, seq: u64) -> WalEdit {
    WalEdit {
        region: region.into(),
        seq_id: seq,
        cells: vec![Cell::put("r", "f", "q", seq as i64, "v").with_seq(seq)],
        nonce: None,
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as u64
}

/// Spins until the wall clock has passed `ms` (a millisecond at most).
fn after(ms: u64) -> u64 {
    loop {
        let now = now_ms();
        if now > ms {
            return now;
        }
        std::hint::spin_loop();
    }
}

#[test]
fn retained_edits_carry_the_millisecond_they_were_logged_in_and_their_segments_are_archived() {
    let root = tempfile::tempdir().expect("dir");
    let dir = root.path().join("wal").join("h,1,1");
    let config = WalConfig {
        segment_size_bytes: 1,
        async_sync_interval_ms: 1000,
    };
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let (wal, _) = Wal::open(fs.clone(), dir.clone(), config).expect("opens");
    wal.set_retained("a", true);
    let mut windows = Vec::new();
    let mut at = now_ms();
    for seq in 1..=3 {
        let start = after(at);
        wal.append(&edit("a", seq), Durability::SyncWal)
            .expect("logged");
        wal.append(&edit("b", seq), Durability::SyncWal)
            .expect("logged");
        at = now_ms();
        windows.push((start, at));
    }
    // Every segment is flushed: those holding "a" move to the archive, the others go.
    wal.mark_flushed("a", 3).expect("flushed");
    wal.mark_flushed("b", 3).expect("flushed");
    drop(wal);
    let archived = fs
        .list(&crate::wal::retained_dir(&dir))
        .expect("the archive exists");
    assert!(
        !archived.is_empty(),
        "segments of a retained region are archived"
    );

    let all = segments(fs.as_ref(), root.path()).expect("listed");
    let server = all.get("h,1,1").expect("the server's log");
    let timed = read_server(fs.as_ref(), "h,1,1", server, &|e| e.region == "a").expect("read");
    assert_eq!(
        timed.iter().map(|t| t.edit.seq_id).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    for (t, (start, end)) in timed.iter().zip(&windows) {
        let ms = t.time_ms.expect("a retained edit has a time");
        assert!(
            (*start..=*end).contains(&ms),
            "edit {} timed {ms}, logged within {start}..={end}",
            t.edit.seq_id
        );
    }
    // Replay never hands a time mark to a region.
    let replayed =
        crate::wal::replay(fs.as_ref(), &dir, crate::wal::RecoveryMode::Refuse).expect("replays");
    assert!(replayed.edits.iter().all(|e| e.mark_ms().is_none()));
    assert!(replayed.segments.iter().all(|(_, r)| !r.contains_key("")));
}
