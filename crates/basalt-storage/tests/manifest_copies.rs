//! A region's manifest is written twice (`MANIFEST`, `MANIFEST.2`): every bit flip and
//! every truncation of either copy reads the other; opening the region moves the damaged
//! copy aside and rewrites it; a commit cut short between the copies reads the newer one;
//! a single copy left by an older version is read and given its second copy; two unusable
//! copies, or two different ones of one generation, are an error naming both files; a copy
//! of a newer format is refused, never passed over for the other.

use basalt_storage::fs::LocalFs;
use basalt_storage::region::manifest::copies::{FILE_NAME, SECOND_COPY};
use basalt_storage::region::manifest::{FamilyFiles, FileEntry, Manifest};
use basalt_storage::Error;
use bytes::{BufMut, Bytes};
use std::path::Path;

fn sample() -> Manifest {
    let mut m = Manifest {
        next_file_id: 12,
        ..Manifest::default()
    };
    let files = FamilyFiles {
        flushed_seq: 40,
        files: vec![FileEntry::own(3), FileEntry::own(11)],
    };
    m.families.insert(Bytes::from_static(b"cf"), files);
    m.families
        .insert(Bytes::from_static(b"d"), FamilyFiles::default());
    m
}

/// A folder with both copies of `sample()` committed once.
fn committed() -> (tempfile::TempDir, Manifest) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut m = sample();
    m.store(&LocalFs, dir.path()).expect("store");
    (dir, m)
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join(name)).expect("read copy")
}

#[test]
fn a_commit_writes_two_equal_copies_one_generation_up() {
    let (dir, m) = committed();
    assert_eq!(m.generation, 1);
    assert_eq!(read(dir.path(), FILE_NAME), read(dir.path(), SECOND_COPY));
    assert_eq!(Manifest::load(&LocalFs, dir.path()).expect("load"), m);
    let mut next = m.clone();
    next.store(&LocalFs, dir.path()).expect("store");
    assert_eq!(next.generation, 2);
    assert_eq!(Manifest::load(&LocalFs, dir.path()).expect("load"), next);
}

#[test]
fn every_bit_flip_and_truncation_of_either_copy_reads_the_other() {
    let (dir, m) = committed();
    let good = read(dir.path(), FILE_NAME);
    for name in [FILE_NAME, SECOND_COPY] {
        let path = dir.path().join(name);
        let mut damaged = Vec::new();
        for bit in 0..good.len() * 8 {
            let mut bytes = good.clone();
            bytes[bit / 8] ^= 1 << (bit % 8);
            damaged.push((format!("{name} bit {bit}"), bytes));
        }
        for len in 0..good.len() {
            damaged.push((format!("{name} cut to {len} bytes"), good[..len].to_vec()));
        }
        for (what, bytes) in damaged {
            std::fs::write(&path, &bytes).expect("damage");
            let loaded = Manifest::load(&LocalFs, dir.path());
            assert_eq!(loaded.expect(&what), m, "{what}");
        }
        std::fs::write(&path, &good).expect("restore");
    }
}

#[test]
fn open_moves_a_damaged_copy_aside_and_rewrites_it() {
    for (name, damage) in [
        (FILE_NAME, "flip"),
        (SECOND_COPY, "flip"),
        (FILE_NAME, "empty"),
        (SECOND_COPY, "half"),
    ] {
        let (dir, m) = committed();
        let path = dir.path().join(name);
        let mut bytes = read(dir.path(), name);
        match damage {
            "flip" => bytes[20] ^= 0x10,
            "empty" => bytes.clear(),
            _ => bytes.truncate(bytes.len() / 2),
        }
        std::fs::write(&path, &bytes).expect("damage");
        let opened = Manifest::open(&LocalFs, dir.path()).expect("opens from the other copy");
        assert_eq!(opened.families, m.families, "{name} {damage}");
        assert_eq!(opened.generation, m.generation + 1, "committed again");
        let aside = dir.path().join(format!("{name}.damaged.1"));
        assert_eq!(read(dir.path(), &format!("{name}.damaged.1")), bytes);
        assert!(aside.exists());
        assert_eq!(read(dir.path(), FILE_NAME), read(dir.path(), SECOND_COPY));
        assert_eq!(Manifest::load(&LocalFs, dir.path()).expect("load"), opened);
    }
}

#[test]
fn a_commit_cut_short_between_the_copies_reads_the_newer_one() {
    let (dir, m) = committed();
    let old_second = read(dir.path(), SECOND_COPY);
    let mut next = m.clone();
    next.next_file_id = 13;
    next.store(&LocalFs, dir.path()).expect("store");
    // The crash came after the first rename: the second copy is a generation behind.
    std::fs::write(dir.path().join(SECOND_COPY), &old_second).expect("stale copy");
    assert_eq!(Manifest::load(&LocalFs, dir.path()).expect("load"), next);
    let opened = Manifest::open(&LocalFs, dir.path()).expect("open");
    assert_eq!(opened.next_file_id, 13);
    assert_eq!(read(dir.path(), FILE_NAME), read(dir.path(), SECOND_COPY));
}

/// `MANIFEST` as version 2 wrote it (no generation, one copy).
fn version_2_bytes() -> Vec<u8> {
    let mut out = Vec::new();
    out.put_slice(b"BSMF");
    out.put_u32(2);
    out.put_u64(12);
    out.put_u32(1);
    out.put_u8(2);
    out.put_slice(b"cf");
    out.put_u64(40);
    out.put_u32(1);
    out.put_u64(3);
    out.put_u8(0);
    let crc = crc32c::crc32c(&out);
    out.put_u32(crc);
    out
}

#[test]
fn an_older_versions_single_copy_is_read_and_given_a_second() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join(FILE_NAME), version_2_bytes()).expect("write");
    let loaded = Manifest::load(&LocalFs, dir.path()).expect("load");
    assert_eq!((loaded.generation, loaded.next_file_id), (0, 12));
    assert!(
        !dir.path().join(SECOND_COPY).exists(),
        "load changes nothing"
    );
    let opened = Manifest::open(&LocalFs, dir.path()).expect("open");
    assert_eq!(opened.families, loaded.families);
    assert_eq!(opened.generation, 1);
    let first = read(dir.path(), FILE_NAME);
    assert_eq!(first, read(dir.path(), SECOND_COPY));
    assert_eq!(
        first[4..8],
        3u32.to_be_bytes(),
        "rewritten in the current version"
    );
}

#[test]
fn no_usable_copy_is_an_error_naming_both_files() {
    let (dir, _) = committed();
    let flip = |name: &str| {
        let mut bytes = read(dir.path(), name);
        bytes[10] ^= 1;
        std::fs::write(dir.path().join(name), bytes).expect("damage");
    };
    flip(FILE_NAME);
    flip(SECOND_COPY);
    for result in [
        Manifest::load(&LocalFs, dir.path()),
        Manifest::open(&LocalFs, dir.path()),
    ] {
        let err = result.expect_err("both copies damaged");
        let text = err.to_string();
        assert!(matches!(err, Error::Corruption { .. }), "{text}");
        for name in [FILE_NAME, SECOND_COPY] {
            let path = dir.path().join(name).display().to_string();
            assert!(text.contains(&path), "{text} names {name}");
        }
    }
    assert!(
        !dir.path().join("MANIFEST.damaged.1").exists(),
        "nothing moved"
    );
    std::fs::remove_file(dir.path().join(SECOND_COPY)).expect("remove");
    let text = Manifest::load(&LocalFs, dir.path())
        .expect_err("one damaged, one missing")
        .to_string();
    assert!(text.contains("MANIFEST.2, is missing"), "{text}");
}

#[test]
fn two_different_copies_of_one_generation_are_refused() {
    let (dir, m) = committed();
    let mut other = m.clone();
    other.next_file_id = 99;
    other.generation -= 1;
    other.store(&LocalFs, dir.path()).expect("store");
    std::fs::write(dir.path().join(FILE_NAME), m.encode()).expect("write");
    let err = Manifest::load(&LocalFs, dir.path()).expect_err("which one?");
    assert!(err.to_string().contains("differ"), "{err}");
}

#[test]
fn a_newer_format_in_either_copy_is_refused() {
    for name in [FILE_NAME, SECOND_COPY] {
        let (dir, _) = committed();
        let mut bytes = read(dir.path(), name);
        bytes.truncate(bytes.len() - 4);
        bytes[4..8].copy_from_slice(&4u32.to_be_bytes());
        let crc = crc32c::crc32c(&bytes);
        bytes.put_u32(crc);
        std::fs::write(dir.path().join(name), bytes).expect("write");
        let err = Manifest::open(&LocalFs, dir.path()).expect_err("newer");
        let path = dir.path().join(name);
        let want = format!(
            "manifest format version 4 in {} is newer than this Basalt supports (3); upgrade Basalt",
            path.display()
        );
        assert_eq!(err.to_string(), want);
        assert!(matches!(err, Error::NewerFormat { .. }));
    }
}

/// A repair that cannot be written (a full disk) does not keep the region from opening;
/// the next open writes it.
#[test]
fn a_repair_that_cannot_be_written_still_opens() {
    use basalt_storage::fs::FaultyFs;
    use std::sync::atomic::Ordering;
    use std::sync::Arc;
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join(FILE_NAME), version_2_bytes()).expect("write");
    let faulty = FaultyFs::new(Arc::new(LocalFs));
    faulty.faults().fail_creates.store(true, Ordering::SeqCst);
    let opened = Manifest::open(&faulty, dir.path()).expect("opens without the repair");
    assert_eq!(opened.next_file_id, 12);
    assert_eq!(read(dir.path(), FILE_NAME), version_2_bytes(), "untouched");
    assert!(!dir.path().join(SECOND_COPY).exists());
    faulty.faults().fail_creates.store(false, Ordering::SeqCst);
    Manifest::open(&faulty, dir.path()).expect("open");
    assert_eq!(read(dir.path(), FILE_NAME), read(dir.path(), SECOND_COPY));
}
