//! A dead server's log folder sealed on a shared folder (cluster-design §5.3 layer 1,
//! §5.8 cases 1 and 4): once the record is there the writer acknowledges nothing more
//! (its log is poisoned), replay reads each segment only to its sealed length and skips
//! segments begun after the seal, and a second seal returns the same record.

use crate::wal_support;

use basalt_storage::fs::{FileSystem, LocalFs, SEAL_RECORD};
use basalt_storage::wal::{replay, RecoveryMode, WalEdit};
use basalt_types::Durability;
use std::path::Path;
use std::sync::Arc;
use wal_support::{config, edit, open, segments};

fn replayed(fs: &Arc<dyn FileSystem>, dir: &Path) -> Vec<WalEdit> {
    replay(fs.as_ref(), dir, RecoveryMode::Refuse)
        .expect("a sealed folder replays")
        .edits
}

#[test]
fn wal_a_sealed_folder_acknowledges_nothing_more_and_replays_what_was_acknowledged() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let (wal, _) = open(&fs, tmp.path(), config());
    let acked: Vec<_> = (1..=5).map(|s| edit("a", s, 2)).collect();
    for e in &acked {
        wal.append(e, Durability::SyncWal)
            .expect("acknowledged before the seal");
    }
    let sealed = fs
        .seal_logs(tmp.path())
        .expect("seal")
        .expect("a shared folder seals");
    assert_eq!(sealed.logs.len(), 1);
    let segment = segments(&fs, tmp.path()).pop().expect("a segment");
    let sealed_len = std::fs::metadata(&segment).expect("metadata").len();
    assert_eq!(sealed.logs[0].1, sealed_len);

    // The zombie's next batch reaches the file, but the check after its sync refuses it.
    let refused = wal
        .append(&edit("a", 6, 2), Durability::SyncWal)
        .expect_err("sealed: not acknowledged");
    assert!(
        refused.to_string().contains("sealed by crash recovery"),
        "{refused}"
    );
    assert!(std::fs::metadata(&segment).expect("metadata").len() > sealed_len);
    wal.append(&edit("a", 7, 2), Durability::SyncWal)
        .expect_err("the log stays refused");

    assert_eq!(
        replayed(&fs, tmp.path()),
        acked,
        "exactly the acknowledged edits"
    );
    assert_eq!(
        fs.seal_logs(tmp.path()).expect("again"),
        Some(sealed),
        "a second seal gives the first record"
    );
    assert!(tmp.path().join(SEAL_RECORD).exists());
}

#[test]
fn wal_a_segment_begun_after_the_seal_is_not_replayed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let acked: Vec<_> = (1..=3).map(|s| edit("b", s, 1)).collect();
    {
        let (wal, _) = open(&fs, tmp.path(), config());
        for e in &acked {
            wal.append(e, Durability::SyncWal).expect("append");
        }
    }
    fs.seal_logs(tmp.path()).expect("seal");
    // A zombie rolling to a new segment after the seal: its first batch is refused.
    let (late, seen) = open(&fs, tmp.path(), config());
    assert_eq!(
        seen, acked,
        "opening the sealed folder reads the sealed edits"
    );
    late.append(&edit("b", 4, 1), Durability::SyncWal)
        .expect_err("the folder is sealed");
    assert_eq!(
        segments(&fs, tmp.path()).len(),
        2,
        "the late segment is on disk"
    );
    assert_eq!(replayed(&fs, tmp.path()), acked, "and is not replayed");
}

#[test]
fn wal_a_folder_that_is_not_sealed_replays_as_before() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let (wal, _) = open(&fs, tmp.path(), config());
    wal.append(&edit("c", 1, 1), Durability::SyncWal)
        .expect("append");
    // An empty record is a seal that did not finish: nobody replays such a folder before
    // the seal completes, and replay reads it whole.
    std::fs::write(tmp.path().join(SEAL_RECORD), b"").expect("empty record");
    assert_eq!(replayed(&fs, tmp.path()), vec![edit("c", 1, 1)]);
}
