//! Preallocated and reused (recycled) log segments on real files: a flushed segment's file
//! is kept as `wal-<id>.free` and becomes a later segment, overwritten from its first byte.
//! Its old records are still in it past the new ones; replay reads only the new (each
//! record names its segment), a torn write inside it is cut as a tail, damage in its
//! middle is still damage, a retained segment is archived and never reused, and a seal
//! fixes a preallocated segment at its last record.

use crate::wal_support;

use basalt_storage::fs::{FileSystem, LocalFs};
use basalt_storage::wal::edit::encode_segment_record;
use basalt_storage::wal::segment::{file_name, SEGMENT_HEADER_LEN};
use basalt_storage::wal::{replay, retained_dir, RecoveryMode, Wal, WalConfig, WalEdit};
use basalt_storage::Error;
use basalt_types::Durability;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use wal_support::{edit, open, segments};

/// Segments roll past 2 KiB, are preallocated to it, and two flushed ones are kept.
fn small() -> WalConfig {
    WalConfig {
        segment_size_bytes: 2048,
        recycle_segments: 2,
        preallocate_step_bytes: 1024,
        ..WalConfig::default()
    }
}

fn free_files(dir: &Path) -> Vec<PathBuf> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("list")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "free"))
        .collect();
    names.sort();
    names
}

fn record_len(e: &WalEdit) -> usize {
    let mut bytes = Vec::new();
    encode_segment_record(e, 0, &mut bytes).expect("encodable");
    bytes.len()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// A log that filled segments with region "old", flushed them all (so two became free
/// files), then logged `new` into a reused segment, left open as the newest. Returns the
/// log, the reused segment's path, and where its records end.
struct Recycled {
    _tmp: tempfile::TempDir,
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    wal: Arc<Wal>,
    new: Vec<WalEdit>,
    segment: PathBuf,
    end: usize,
}

fn recycled(new_count: u64) -> Recycled {
    let tmp = tempfile::tempdir().expect("tempdir");
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let dir = tmp.path().join("wal");
    let (wal, _) = open(&fs, &dir, small());
    for seq in 1..=40 {
        wal.append(&edit("old", seq, 3), Durability::SyncWal)
            .expect("append");
    }
    // One more, small, so that the segments of "old" are all closed.
    let filler = edit("filler", 1, 1);
    let before = segments(&fs, &dir).len();
    while segments(&fs, &dir).len() == before {
        wal.append(&filler, Durability::SyncWal).expect("append");
    }
    wal.mark_flushed("old", 40).expect("flushed");
    wal.mark_flushed("filler", 1).expect("flushed");
    assert_eq!(
        free_files(&dir).len(),
        2,
        "two flushed segments kept for reuse"
    );
    // Fill the active segment up so that the next roll reuses a free file.
    let mut new = Vec::new();
    let mut seq = 1;
    let rolled_into = |fs: &Arc<dyn FileSystem>| segments(fs, &dir).pop().expect("a segment");
    let active = rolled_into(&fs);
    while rolled_into(&fs) == active {
        let e = edit("new", seq, 1);
        wal.append(&e, Durability::SyncWal).expect("append");
        new.push(e);
        seq += 1;
    }
    assert_eq!(free_files(&dir).len(), 1, "the roll reused a free file");
    let segment = rolled_into(&fs);
    let in_segment_before = new.len() - 1;
    for _ in 0..new_count {
        let e = edit("new", seq, 1);
        wal.append(&e, Durability::SyncWal).expect("append");
        new.push(e);
        seq += 1;
    }
    let end = SEGMENT_HEADER_LEN
        + new[in_segment_before..]
            .iter()
            .map(record_len)
            .sum::<usize>();
    Recycled {
        _tmp: tmp,
        fs,
        dir,
        wal,
        new,
        segment,
        end,
    }
}

/// Every edit a replay of `dir` returns for region "new".
fn new_edits(edits: Vec<WalEdit>) -> Vec<WalEdit> {
    edits.into_iter().filter(|e| e.region == "new").collect()
}

#[test]
fn wal_a_recycled_segment_replays_only_its_new_records() {
    let r = recycled(2);
    r.wal.close().expect("close");
    let bytes = std::fs::read(&r.segment).expect("read");
    assert!(
        bytes.len() > r.end,
        "the reused file is longer than its new records"
    );
    assert!(
        contains(&bytes[r.end..], b"\x00\x03old"),
        "records of the file's earlier use are still in it"
    );
    let (wal, replayed) = open(&r.fs, &r.dir, small());
    assert!(
        replayed.iter().all(|e| e.region != "old"),
        "no stale record"
    );
    assert_eq!(new_edits(replayed), r.new);
    // Reopened again, the reused segment is no longer the newest: still no damage.
    drop(wal);
    let mode = RecoveryMode::FailNeedingRegions;
    let (_wal, recovered) =
        Wal::recover(r.fs.clone(), r.dir.clone(), small(), mode).expect("opens");
    assert!(recovered.damaged.is_empty(), "{:?}", recovered.damaged);
    assert_eq!(new_edits(recovered.edits), r.new);
}

#[test]
fn wal_a_torn_write_inside_a_recycled_segment_is_cut_and_the_log_appends_cleanly() {
    let r = recycled(2);
    // A kill -9 in the middle of the next batch: part of a record of this segment lands
    // over the earlier use's bytes, and the process is gone before it is synced.
    let id: u64 = r
        .segment
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(basalt_storage::wal::segment::parse_file_name)
        .expect("a segment name");
    let mut torn = Vec::new();
    encode_segment_record(&edit("new", 999, 2), id, &mut torn).expect("encodable");
    torn.truncate(torn.len() / 2);
    drop(r.wal);
    let mut bytes = std::fs::read(&r.segment).expect("read");
    bytes[r.end..r.end + torn.len()].copy_from_slice(&torn);
    std::fs::write(&r.segment, &bytes).expect("write");

    let mode = RecoveryMode::FailNeedingRegions;
    let (wal, recovered) = Wal::recover(r.fs.clone(), r.dir.clone(), small(), mode).expect("opens");
    assert!(recovered.damaged.is_empty(), "a torn tail is not damage");
    assert_eq!(new_edits(recovered.edits), r.new);
    let cut = std::fs::read(&r.segment).expect("read");
    assert_eq!(cut.len(), r.end, "cut back to the last whole record");
    let kept = r
        .dir
        .join("corrupt")
        .join(format!("{}.tail-at-{}", file_name(id), r.end));
    assert!(kept.exists(), "the cut bytes are kept");

    let next = edit("new", 1000, 1);
    wal.append(&next, Durability::SyncWal).expect("appends");
    drop(wal);
    let (_wal, replayed) = open(&r.fs, &r.dir, small());
    let mut expected = r.new.clone();
    expected.push(next);
    assert_eq!(new_edits(replayed), expected);
}

#[test]
fn wal_damage_in_the_middle_of_a_recycled_segment_is_reported() {
    let r = recycled(3);
    drop(r.wal);
    // The last byte of the reused segment's first new record (its payload).
    let first_end = SEGMENT_HEADER_LEN + record_len(&r.new[r.new.len() - 4]);
    let mut bytes = std::fs::read(&r.segment).expect("read");
    bytes[first_end - 1] ^= 0x01;
    std::fs::write(&r.segment, &bytes).expect("write");

    match Wal::open(r.fs.clone(), r.dir.clone(), small()) {
        Err(Error::Corruption { file, offset, .. }) => {
            assert_eq!(
                (file, offset),
                (r.segment.clone(), SEGMENT_HEADER_LEN as u64)
            );
        }
        other => panic!("expected a corruption error, got {other:?}"),
    }
    assert_eq!(std::fs::read(&r.segment).expect("read"), bytes, "untouched");
    let mode = RecoveryMode::FailNeedingRegions;
    let (_wal, recovered) =
        Wal::recover(r.fs.clone(), r.dir.clone(), small(), mode).expect("opens");
    let [damaged] = recovered.damaged.as_slice() else {
        panic!("{:?}", recovered.damaged)
    };
    assert_eq!(damaged.file, r.segment);
    let spans: Vec<(u64, u64)> = damaged.spans.iter().map(|s| (s.offset, s.len)).collect();
    let len = (first_end - SEGMENT_HEADER_LEN) as u64;
    assert_eq!(
        spans,
        vec![(SEGMENT_HEADER_LEN as u64, len)],
        "exactly the record"
    );
    let mut expected = r.new.clone();
    expected.remove(r.new.len() - 4);
    assert_eq!(new_edits(recovered.edits), expected);
}

#[test]
fn wal_a_version_2_folder_replays_and_takes_new_segments() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let dir = tmp.path().join("wal");
    let (wal, _) = open(&fs, &dir, small());
    let mut edits: Vec<_> = (1..=30).map(|s| edit("a", s, 2)).collect();
    edits[3].nonce = Some(basalt_types::Nonce { group: 5, nonce: 6 });
    for e in &edits {
        wal.append(e, Durability::SyncWal).expect("append");
    }
    drop(wal);
    let files = segments(&fs, &dir);
    assert!(files.len() > 1, "several segments");
    for file in &files {
        let bytes = std::fs::read(file).expect("read");
        std::fs::write(file, wal_support::downgrade_segment(&bytes, 2)).expect("write");
    }
    let (wal, replayed) = open(&fs, &dir, small());
    assert_eq!(replayed, edits, "an older Basalt's log replays in place");
    let next = edit("a", 31, 1);
    wal.append(&next, Durability::SyncWal).expect("append");
    drop(wal);
    let (_wal, replayed) = open(&fs, &dir, small());
    edits.push(next);
    assert_eq!(replayed, edits, "old and new segments side by side");
}

#[test]
fn wal_a_retained_segment_is_archived_and_never_recycled() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let dir = tmp.path().join("wal");
    let (wal, _) = open(&fs, &dir, small());
    wal.set_retained("kept", true);
    for seq in 1..=40 {
        wal.append(&edit("kept", seq, 3), Durability::SyncWal)
            .expect("append");
    }
    let before = segments(&fs, &dir).len();
    while segments(&fs, &dir).len() == before {
        wal.append(&edit("other", 1, 1), Durability::SyncWal)
            .expect("append");
    }
    wal.mark_flushed("kept", 40).expect("flushed");
    wal.mark_flushed("other", 1).expect("flushed");
    assert!(
        free_files(&dir).is_empty(),
        "no retained segment is kept for reuse"
    );
    let archive = retained_dir(&dir);
    let archived: Vec<_> = std::fs::read_dir(&archive)
        .expect("archive")
        .map(|e| e.expect("entry").path())
        .collect();
    assert!(!archived.is_empty(), "archived instead");
    let copies: Vec<Vec<u8>> = archived
        .iter()
        .map(|p| std::fs::read(p).expect("read"))
        .collect();
    // Many more rolls: new segments never take an archived file.
    for seq in 2..=60 {
        wal.append(&edit("other", seq, 3), Durability::SyncWal)
            .expect("append");
    }
    for (path, copy) in archived.iter().zip(&copies) {
        assert_eq!(&std::fs::read(path).expect("still archived"), copy);
    }
}

#[test]
fn wal_a_new_segment_is_preallocated_and_a_seal_fixes_it_at_its_last_record() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let config = WalConfig {
        preallocate_step_bytes: 64 * 1024,
        ..WalConfig::default()
    };
    let (wal, _) = open(&fs, tmp.path(), config.clone());
    let acked: Vec<_> = (1..=5).map(|s| edit("a", s, 2)).collect();
    for e in &acked {
        wal.append(e, Durability::SyncWal).expect("append");
    }
    let segment = segments(&fs, tmp.path()).pop().expect("a segment");
    let end = (SEGMENT_HEADER_LEN + acked.iter().map(record_len).sum::<usize>()) as u64;
    let file_len = std::fs::metadata(&segment).expect("metadata").len();
    assert!(file_len >= 64 * 1024, "preallocated: {file_len} bytes");

    let sealed = fs
        .seal_logs(tmp.path())
        .expect("seal")
        .expect("a shared folder seals");
    assert_eq!(
        sealed.logs[0].1, end,
        "sealed at the last record, not the file's end"
    );
    // The fenced writer's next batch lands inside the file, within its length...
    wal.append(&edit("a", 6, 2), Durability::SyncWal)
        .expect_err("sealed: not acknowledged");
    assert_eq!(
        std::fs::metadata(&segment).expect("metadata").len(),
        file_len
    );
    // ...and is never replayed.
    let replayed = replay(fs.as_ref(), tmp.path(), RecoveryMode::Refuse).expect("replays");
    assert_eq!(replayed.edits, acked);
}

#[test]
fn wal_a_free_file_found_at_open_is_adopted_and_new_ids_stay_above_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let dir = tmp.path().join("wal");
    std::fs::create_dir_all(&dir).expect("dir");
    // A free file a crashed log kept: segment 7's records, all flushed.
    let mut old = basalt_storage::wal::segment::encode_header(7).to_vec();
    for seq in 1..=20 {
        encode_segment_record(&edit("old", seq, 3), 7, &mut old).expect("encodable");
    }
    let free = dir.join("wal-00000000000000000007.free");
    std::fs::write(&free, &old).expect("write");

    let (wal, replayed) = open(&fs, &dir, small());
    assert!(replayed.is_empty(), "a free file is not a segment");
    assert_eq!(segments(&fs, &dir), vec![dir.join(file_name(8))]);
    let mut new = Vec::new();
    let mut seq = 1;
    while free.exists() {
        let e = edit("new", seq, 1);
        wal.append(&e, Durability::SyncWal).expect("append");
        new.push(e);
        seq += 1;
    }
    assert!(dir.join(file_name(9)).exists(), "the roll to 9 reused it");
    drop(wal);
    let (_wal, replayed) = open(&fs, &dir, small());
    assert_eq!(replayed, new);
}
