//! Replay: round trips, every single-bit flip, truncation at every offset, corruption in
//! the middle of the log.

mod wal_support;

use basalt_storage::fs::{FileSystem, LocalFs};
use basalt_storage::wal::edit::encode_record;
use basalt_storage::wal::segment::SEGMENT_HEADER_LEN;
use basalt_storage::wal::{Wal, WalEdit};
use basalt_storage::Error;
use basalt_types::Durability;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use wal_support::{config, edit, mem_fs, open, segments};

const DURABILITIES: [Durability; 5] = [
    Durability::UseDefault,
    Durability::SkipWal,
    Durability::AsyncWal,
    Durability::SyncWal,
    Durability::FsyncWal,
];

/// Logs `edits` with SyncWal into a fresh log in `dir` and closes it.
fn write_log(fs: &Arc<dyn FileSystem>, dir: &Path, edits: &[WalEdit]) {
    let (wal, _) = open(fs, dir, config());
    for e in edits {
        wal.append(e, Durability::SyncWal).expect("append");
    }
    wal.close().expect("close");
}

/// Byte offsets where each record of a freshly written segment ends.
fn record_ends(edits: &[WalEdit]) -> Vec<usize> {
    let mut end = SEGMENT_HEADER_LEN;
    edits
        .iter()
        .map(|e| {
            let mut bytes = Vec::new();
            encode_record(e, &mut bytes).expect("encodable");
            end += bytes.len();
            end
        })
        .collect()
}

#[test]
fn wal_round_trip_keeps_every_logged_edit_in_order() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let dir = tmp.path().join("wal");
    let (wal, replayed) = open(&fs, &dir, config());
    assert!(replayed.is_empty());
    let mut expected = Vec::new();
    for seq in 1..=25u64 {
        let region = ["a", "b", "c"][seq as usize % 3];
        let e = edit(region, seq, 1 + seq as usize % 3);
        let durability = DURABILITIES[seq as usize % DURABILITIES.len()];
        wal.append(&e, durability).expect("append");
        if durability != Durability::SkipWal {
            expected.push(e);
        }
    }
    wal.close().expect("close");
    let closed = wal.append(&edit("a", 99, 1), Durability::SyncWal);
    assert!(matches!(closed, Err(Error::Closed(_))), "{closed:?}");
    drop(wal);

    let (wal, replayed) = open(&fs, &dir, config());
    assert_eq!(replayed, expected);
    // Logged again after a reopen: old segments stay until flushed, so both show up.
    wal.append(&edit("b", 26, 2), Durability::SyncWal)
        .expect("append");
    drop(wal);
    expected.push(edit("b", 26, 2));
    let (_wal, replayed) = open(&fs, &dir, config());
    assert_eq!(replayed, expected);
}

#[test]
fn wal_every_single_bit_flip_refuses_to_open() {
    let (mem, fs) = mem_fs();
    let dir = PathBuf::from("/wal");
    let edits: Vec<_> = (1..=3)
        .map(|s| edit(["a", "b"][s as usize % 2], s, 2))
        .collect();
    write_log(&fs, &dir, &edits);
    let path = segments(&fs, &dir).pop().expect("one segment");
    let good = mem.read(&path);
    assert_eq!(good.len(), *record_ends(&edits).last().expect("records"));

    for bit in 0..good.len() * 8 {
        let (mem, fs) = mem_fs();
        let mut flipped = good.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        mem.write(&path, flipped.clone());
        match Wal::open(fs, dir.clone(), config()) {
            Err(Error::Corruption { file, offset, .. }) => {
                assert_eq!(file, path, "bit {bit}");
                assert!(offset as usize <= bit / 8, "bit {bit} reported at {offset}");
            }
            Err(other) => panic!("bit {bit}: expected corruption, got {other}"),
            Ok((_, replayed)) => panic!("bit {bit} went unnoticed: {} edits", replayed.len()),
        }
        assert_eq!(mem.read(&path), flipped, "a refused log is left as it was");
    }
}

#[test]
fn wal_truncation_at_every_offset_keeps_the_complete_records() {
    let (mem, fs) = mem_fs();
    let dir = PathBuf::from("/wal");
    let first: Vec<_> = (1..=2).map(|s| edit("a", s, 1)).collect();
    let second: Vec<_> = (3..=6)
        .map(|s| edit(["a", "b"][s as usize % 2], s, 2))
        .collect();
    write_log(&fs, &dir, &first);
    let (wal, replayed) = open(&fs, &dir, config());
    assert_eq!(replayed, first);
    for e in &second {
        wal.append(e, Durability::SyncWal).expect("append");
    }
    wal.close().expect("close");
    drop(wal);
    let files = segments(&fs, &dir);
    assert_eq!(files.len(), 2);
    let (older, last) = (mem.read(&files[0]), mem.read(&files[1]));
    let ends = record_ends(&second);
    assert_eq!(last.len(), *ends.last().expect("records"));

    for cut in 0..=last.len() {
        let (mem, fs) = mem_fs();
        mem.write(&files[0], older.clone());
        mem.write(&files[1], last[..cut].to_vec());
        let kept = ends.iter().filter(|end| **end <= cut).count();
        let mut expected: Vec<_> = first.iter().chain(&second[..kept]).cloned().collect();

        let (wal, replayed) = open(&fs, &dir, config());
        assert_eq!(replayed, expected, "cut at {cut}");
        match ends.iter().copied().filter(|end| *end <= cut).max() {
            Some(valid) => assert_eq!(mem.read(&files[1]).len(), valid, "cut at {cut}"),
            // A torn header, or a header alone: the segment holds nothing and is removed.
            None => assert!(!fs.exists(&files[1]).expect("exists"), "cut at {cut}"),
        }
        let new = edit("c", 100, 1);
        wal.append(&new, Durability::SyncWal)
            .expect("append after repair");
        drop(wal);
        expected.push(new);
        let (_wal, replayed) = open(&fs, &dir, config());
        assert_eq!(replayed, expected, "reopen after cut at {cut}");
    }
}

#[test]
fn wal_corruption_in_a_middle_record_names_file_and_offset() {
    let (mem, fs) = mem_fs();
    let dir = PathBuf::from("/wal");
    let edits: Vec<_> = (1..=5).map(|s| edit("a", s, 2)).collect();
    write_log(&fs, &dir, &edits);
    let path = segments(&fs, &dir).pop().expect("segment");
    let ends = record_ends(&edits);
    let mut bytes = mem.read(&path);
    // The last byte of the third record's payload: a complete record with valid ones after.
    bytes[ends[2] - 1] ^= 0x40;
    mem.write(&path, bytes);
    let err = Wal::open(fs, dir, config()).expect_err("corrupt");
    match err {
        Error::Corruption { file, offset, .. } => {
            assert_eq!(file, path);
            assert_eq!(offset, ends[1] as u64, "offset of the third record");
        }
        other => panic!("expected corruption, got {other}"),
    }
}

#[test]
fn wal_a_torn_segment_before_the_last_is_corruption() {
    let (mem, fs) = mem_fs();
    let dir = PathBuf::from("/wal");
    let edits: Vec<_> = (1..=3).map(|s| edit("a", s, 1)).collect();
    write_log(&fs, &dir, &edits);
    write_log(&fs, &dir, &[edit("a", 4, 1)]);
    let files = segments(&fs, &dir);
    assert_eq!(files.len(), 2, "one segment per open");
    let ends = record_ends(&edits);
    let older = mem.read(&files[0]);
    mem.write(&files[0], older[..ends[1] + 5].to_vec());
    match Wal::open(fs.clone(), dir.clone(), config()) {
        Err(Error::Corruption { file, offset, .. }) => {
            assert_eq!(file, files[0]);
            assert_eq!(offset, ends[1] as u64);
        }
        other => panic!("expected corruption, got {other:?}"),
    }
    mem.write(&files[0], older[..SEGMENT_HEADER_LEN - 1].to_vec());
    let err = Wal::open(fs, dir, config()).expect_err("torn header before the last");
    assert!(matches!(err, Error::Corruption { .. }), "{err}");
}

#[test]
fn wal_files_that_are_not_segments_are_left_alone() {
    let (mem, fs) = mem_fs();
    let dir = PathBuf::from("/wal");
    write_log(&fs, &dir, &[edit("a", 1, 1)]);
    let stray = dir.join("notes.txt");
    mem.write(&stray, b"not a log".to_vec());
    let (_wal, replayed) = open(&fs, &dir, config());
    assert_eq!(replayed, vec![edit("a", 1, 1)]);
    assert_eq!(mem.read(&stray), b"not a log");
}
