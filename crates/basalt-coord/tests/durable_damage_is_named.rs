//! What opening a damaged folder does. A torn last record (a crash mid-append, never
//! acknowledged) is cut off and logged, its bytes kept beside the journal; damage
//! anywhere else refuses to open, naming the file, the offset and the cause, and leaves
//! every file as it was. A file that is not the coordinator's is reported and left alone.

use crate::durable;

use basalt_coord::{CoordError, DurableOptions, LocalCoordinator};
use durable::{journal, open, put, snapshot, state, with_logs};
use std::fs;
use std::path::Path;

/// A folder holding three committed puts (revisions 2, 3, 4); the journal's length
/// after each one.
fn three_puts(dir: &Path) -> Vec<u64> {
    let coord = open(dir);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let mut ends = vec![fs::metadata(journal(dir)).expect("journal").len()];
    for key in ["a", "b", "c"] {
        runtime.block_on(put(&coord, key, "v"));
        ends.push(fs::metadata(journal(dir)).expect("journal").len());
    }
    ends
}

fn keys(coord: &LocalCoordinator) -> Vec<String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let (kvs, _) = runtime.block_on(state(coord));
    kvs.iter()
        .map(|kv| String::from_utf8_lossy(&kv.key).into_owned())
        .collect()
}

#[test]
fn a_torn_last_record_is_cut_logged_and_kept_aside() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ends = three_puts(dir.path());
    let cut = ends[2] + (ends[3] - ends[2]) / 2;
    let whole = fs::read(journal(dir.path())).expect("journal");
    fs::write(journal(dir.path()), &whole[..cut as usize]).expect("tear");
    let (coord, logs) = with_logs(|| open(dir.path()));
    assert_eq!(
        keys(&coord),
        ["a", "b"],
        "the torn put was never acknowledged"
    );
    assert_eq!(coord.revision(), 3);
    assert!(logs.contains("torn journal tail"), "{logs}");
    assert!(logs.contains(&format!("offset={}", ends[2])), "{logs}");
    let kept = dir.path().join(format!("journal.tail-at-{}", ends[2]));
    assert_eq!(
        fs::read(kept).expect("the torn bytes are kept"),
        &whole[ends[2] as usize..cut as usize]
    );
    assert_eq!(
        fs::metadata(journal(dir.path())).expect("journal").len(),
        ends[2]
    );
}

#[test]
fn a_flipped_byte_mid_journal_refuses_to_open_naming_file_and_offset() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ends = three_puts(dir.path());
    let mut bytes = fs::read(journal(dir.path())).expect("journal");
    bytes[ends[1] as usize + 20] ^= 0x40;
    fs::write(journal(dir.path()), &bytes).expect("flip");
    let error = LocalCoordinator::open(dir.path()).expect_err("damage refuses to open");
    let message = error.to_string();
    match error {
        CoordError::Damaged {
            file,
            offset,
            cause,
        } => {
            assert_eq!(Path::new(&file), journal(dir.path()));
            assert_eq!(offset, ends[1], "the record holding the byte");
            assert!(cause.contains("checksum"), "{cause}");
            assert!(message.contains(&file) && message.contains(&ends[1].to_string()));
        }
        other => panic!("expected Damaged, got {other:?}"),
    }
    assert_eq!(
        fs::read(journal(dir.path())).expect("journal"),
        bytes,
        "untouched"
    );
}

#[test]
fn a_damaged_snapshot_refuses_to_open() {
    let dir = tempfile::tempdir().expect("temp dir");
    let options = DurableOptions {
        journal_records_max: 2,
        ..DurableOptions::default()
    };
    {
        let coord = LocalCoordinator::open_with(dir.path(), options).expect("opens");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        for key in ["a", "b", "c"] {
            runtime.block_on(put(&coord, key, "v"));
        }
    }
    let mut bytes = fs::read(snapshot(dir.path())).expect("a snapshot was written");
    bytes[30] ^= 1;
    fs::write(snapshot(dir.path()), &bytes).expect("flip");
    match LocalCoordinator::open_with(dir.path(), options) {
        Err(CoordError::Damaged {
            file,
            offset,
            cause,
        }) => {
            assert_eq!(Path::new(&file), snapshot(dir.path()));
            assert_eq!(offset, bytes.len() as u64 - 4, "where its checksum is");
            assert!(cause.contains("checksum"), "{cause}");
        }
        other => panic!("expected Damaged, got {other:?}"),
    }
}

#[test]
fn a_journal_without_its_snapshot_refuses_to_open() {
    let dir = tempfile::tempdir().expect("temp dir");
    let options = DurableOptions {
        journal_records_max: 2,
        ..DurableOptions::default()
    };
    drop(three_puts_with(dir.path(), options));
    let aside = dir.path().join("elsewhere");
    fs::rename(snapshot(dir.path()), &aside).expect("move the snapshot away");
    match LocalCoordinator::open_with(dir.path(), options) {
        Err(CoordError::Damaged { cause, .. }) => assert!(cause.contains("snapshot"), "{cause}"),
        other => panic!("expected Damaged, got {other:?}"),
    }
}

fn three_puts_with(dir: &Path, options: DurableOptions) -> LocalCoordinator {
    let coord = LocalCoordinator::open_with(dir, options).expect("opens");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    for key in ["a", "b", "c"] {
        runtime.block_on(put(&coord, key, "v"));
    }
    coord
}

#[test]
fn a_newer_journal_is_refused_as_newer_not_damaged() {
    let dir = tempfile::tempdir().expect("temp dir");
    three_puts(dir.path());
    let mut bytes = fs::read(journal(dir.path())).expect("journal");
    bytes[8..12].copy_from_slice(&2u32.to_be_bytes());
    let crc = crc32c_of(&bytes[..20]);
    bytes[20..24].copy_from_slice(&crc.to_be_bytes());
    fs::write(journal(dir.path()), &bytes).expect("rewrite");
    match LocalCoordinator::open(dir.path()) {
        Err(CoordError::Storage(message)) => {
            assert!(message.contains("newer"), "{message}");
        }
        other => panic!("expected a newer-format error, got {other:?}"),
    }
}

/// CRC32C (Castagnoli), bit by bit: the test does not trust the code under test for it.
fn crc32c_of(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for byte in bytes {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn a_stranger_in_the_folder_is_reported_and_left_in_place() {
    let dir = tempfile::tempdir().expect("temp dir");
    three_puts(dir.path());
    let stranger = dir.path().join("notes.txt");
    fs::write(&stranger, "mine").expect("write");
    let (coord, logs) = with_logs(|| open(dir.path()));
    assert_eq!(keys(&coord), ["a", "b", "c"]);
    assert!(logs.contains("not a coordinator file"), "{logs}");
    assert!(logs.contains("notes.txt"), "{logs}");
    assert_eq!(fs::read_to_string(stranger).expect("kept"), "mine");
}
