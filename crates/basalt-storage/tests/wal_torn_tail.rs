//! Torn tails on real files: what a power loss leaves after the last record of the newest
//! segment (zeros, garbage, part of a record, a header alone or less) is cut back to the
//! last readable record, the cut bytes are kept in `wal/corrupt/`, every edit before it
//! is kept, and the log takes appends again.

use crate::wal_support;

use basalt_storage::fs::{FileSystem, LocalFs};
use basalt_storage::wal::edit::encode_segment_record;
use basalt_storage::wal::segment::file_name;
use basalt_storage::wal::{RecoveryMode, Wal, WalEdit};
use basalt_types::Durability;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use wal_support::{config, edit, open, segments};

fn write_log(fs: &Arc<dyn FileSystem>, dir: &Path, edits: &[WalEdit]) -> PathBuf {
    let (wal, _) = open(fs, dir, config());
    for e in edits {
        wal.append(e, Durability::SyncWal).expect("append");
    }
    wal.close().expect("close");
    segments(fs, dir).pop().expect("a segment")
}

fn append_bytes(path: &Path, bytes: &[u8]) {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open");
    file.write_all(bytes).expect("write");
}

/// Appends `tail` to a log of three edits, reopens it, and checks the outcome.
fn torn_tail_is_cut(tail: &[u8], what: &str) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let dir = tmp.path().join("wal");
    let edits: Vec<_> = (1..=3)
        .map(|s| edit(["a", "b"][s as usize % 2], s, 2))
        .collect();
    let path = write_log(&fs, &dir, &edits);
    let good = std::fs::read(&path).expect("read");
    append_bytes(&path, tail);

    let mode = RecoveryMode::FailNeedingRegions;
    let (wal, recovered) = Wal::recover(fs.clone(), dir.clone(), config(), mode).expect("opens");
    assert_eq!(recovered.edits, edits, "{what}: every edit before the tail");
    assert!(recovered.damaged.is_empty(), "{what}: a tail is not damage");
    assert_eq!(std::fs::read(&path).expect("read"), good, "{what}: cut");
    let name = path
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let kept = dir
        .join("corrupt")
        .join(format!("{name}.tail-at-{}", good.len()));
    assert_eq!(
        std::fs::read(&kept).expect("kept"),
        tail,
        "{what}: cut bytes kept"
    );

    let next = edit("c", 9, 1);
    wal.append(&next, Durability::SyncWal)
        .expect("appends after the cut");
    drop(wal);
    let (_wal, replayed) = open(&fs, &dir, config());
    let mut expected = edits;
    expected.push(next);
    assert_eq!(replayed, expected, "{what}: reopened");
}

/// Zeros after the last record are unused space (a preallocated segment's), not a torn
/// tail: nothing is cut or kept, and the log appends after them in a new segment.
#[test]
fn wal_a_zeroed_tail_is_unused_space() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let dir = tmp.path().join("wal");
    let edits: Vec<_> = (1..=3).map(|s| edit("a", s, 2)).collect();
    let path = write_log(&fs, &dir, &edits);
    append_bytes(&path, &[0; 4096]);
    let zeroed = std::fs::read(&path).expect("read");
    let mode = RecoveryMode::FailNeedingRegions;
    let (wal, recovered) = Wal::recover(fs.clone(), dir.clone(), config(), mode).expect("opens");
    assert_eq!(recovered.edits, edits);
    assert!(recovered.damaged.is_empty());
    assert_eq!(
        std::fs::read(&path).expect("read"),
        zeroed,
        "left as it was"
    );
    assert!(
        !dir.join("corrupt").exists(),
        "nothing kept: nothing was cut"
    );
    let next = edit("c", 9, 1);
    wal.append(&next, Durability::SyncWal).expect("appends");
    drop(wal);
    let (_wal, replayed) = open(&fs, &dir, config());
    assert_eq!(
        replayed,
        edits.into_iter().chain([next]).collect::<Vec<_>>()
    );
}

#[test]
fn wal_a_garbage_tail_is_cut() {
    let garbage: Vec<u8> = (0..3000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    torn_tail_is_cut(&garbage, "garbage");
}

#[test]
fn wal_a_partial_record_tail_is_cut() {
    let mut record = Vec::new();
    encode_segment_record(&edit("a", 4, 3), 1, &mut record).expect("encodable");
    // (Its first three bytes are zeros, the top of its length: unused space, above.)
    for len in [4, 11, 19, 20, 21, record.len() / 2, record.len() - 1] {
        torn_tail_is_cut(&record[..len], &format!("{len} bytes of a record"));
    }
}

#[test]
fn wal_a_newest_segment_without_a_readable_header_is_moved_aside() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let dir = tmp.path().join("wal");
    let path = write_log(&fs, &dir, &[edit("a", 1, 1)]);
    assert_eq!(path, dir.join(file_name(1)));
    // Zeros where a new segment's header should be: a power loss at its creation.
    let zeroed = dir.join(file_name(2));
    std::fs::write(&zeroed, [0u8; 24]).expect("write");
    let (_wal, replayed) = open(&fs, &dir, config());
    assert_eq!(replayed, vec![edit("a", 1, 1)]);
    assert!(!zeroed.exists(), "moved out of the log");
    let kept = dir.join("corrupt").join(zeroed.file_name().expect("name"));
    assert_eq!(std::fs::read(kept).expect("kept"), [0u8; 24]);
}
