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
        ..WalConfig::default()
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

/// The expiry's watermark file sits beside the servers' folders in `oldWALs/retained/`:
/// reading the kept logs and a later expiry pass both pass over it (they used to list it
/// as a server's folder and fail with "Not a directory", so kept logs stopped expiring
/// after the first removal and point-in-time restores failed).
#[test]
fn the_expiry_watermark_is_not_taken_for_a_servers_folder() {
    let dir = tempfile::tempdir().expect("dir");
    let retained = dir.path().join("oldWALs").join(crate::wal::RETAINED_DIR);
    std::fs::create_dir_all(retained.join("rs1")).expect("server folder");
    std::fs::write(retained.join(crate::wal::expire::WATERMARK), "5\n").expect("watermark");
    std::fs::write(retained.join("EXPIRED_BEFORE.tmp"), "6\n").expect("staged watermark");
    let fs = LocalFs;
    let found = segments(&fs, dir.path()).expect("the kept logs are read");
    assert!(
        found.keys().all(|server| server == "rs1"),
        "{:?}",
        found.keys()
    );
    for _ in 0..2 {
        let removed = crate::wal::expire::expire_retained(&fs, dir.path(), 1, now_ms())
            .expect("an expiry pass");
        assert!(removed.is_empty());
    }
}
