//! Store files shared by snapshots and clones on an object store (no hard links): a link
//! reads its target; a target removed while linked is kept in the archive and still read
//! through its links; the cleaner deletes an archived file only once no link names it;
//! a link to a link names the first target; a link refuses a file a removal is at work on.
//! On memory and on moto's S3.

use crate::common;

use basalt_storage::fs::FileSystem;
use common::*;
use std::io::ErrorKind;
use std::path::Path;

const TABLE_FILE: &str = "/data/ns/t/r1/f/00000000000000000001.hfile";
const SNAPSHOT_FILE: &str = "/snapshots/s1/r1/f/00000000000000000001.hfile";
const CLONE_FILE: &str = "/data/ns/c/r9/f/00000000000000000001.hfile";

fn under(backend: &Backend, prefix: &str) -> Vec<String> {
    keys(&backend.store())
        .into_iter()
        .filter(|k| k.starts_with(prefix))
        .collect()
}

fn a_linked_file_outlives_its_table_and_goes_with_its_last_link(backend: &Backend) {
    let fs = &backend.fs;
    let bytes: Vec<u8> = (0..10_000u32).map(|i| (i % 253) as u8).collect();
    write_file(fs, TABLE_FILE, &bytes);
    fs.hard_link(Path::new(TABLE_FILE), Path::new(SNAPSHOT_FILE))
        .expect("snapshot link");
    fs.hard_link(Path::new(SNAPSHOT_FILE), Path::new(CLONE_FILE))
        .expect("a clone links the snapshot's link");
    assert_eq!(read_file(fs, SNAPSHOT_FILE), bytes);
    assert_eq!(read_file(fs, CLONE_FILE), bytes);
    assert_eq!(
        under(backend, "links/").len(),
        2,
        "{:?}",
        keys(&backend.store())
    );
    assert!(
        under(backend, "links/")
            .iter()
            .all(|k| k.starts_with("links/data/ns/t/r1/f/")),
        "both name the table's file"
    );

    // A compaction (or a drop) removes the table's name: the bytes go to the archive.
    fs.remove_file(Path::new(TABLE_FILE)).expect("compaction");
    assert!(!fs.exists(Path::new(TABLE_FILE)).expect("exists"));
    assert_eq!(under(backend, "archive/").len(), 1);
    assert_eq!(read_file(fs, SNAPSHOT_FILE), bytes);
    assert_eq!(read_file(fs, CLONE_FILE), bytes);
    assert_eq!(fs.clean_archive().expect("cleaner"), 0, "still named");

    // The snapshot goes (its folder), then the clone's file (its compaction).
    fs.remove_dir_all(Path::new("/snapshots/s1"))
        .expect("delete snapshot");
    assert_eq!(
        fs.clean_archive().expect("cleaner"),
        0,
        "the clone names it"
    );
    assert_eq!(read_file(fs, CLONE_FILE), bytes);
    fs.remove_file(Path::new(CLONE_FILE))
        .expect("clone compaction");
    assert!(under(backend, "links/").is_empty());
    assert_eq!(fs.clean_archive().expect("cleaner"), 1);
    assert!(under(backend, "archive/").is_empty());
}

fn an_unlinked_file_is_deleted_and_a_busy_one_refuses_links(backend: &Backend) {
    let fs = &backend.fs;
    let file = "/data/ns/t/r2/f/00000000000000000007.hfile";
    write_file(fs, file, b"plain");
    fs.remove_file(Path::new(file)).expect("remove");
    assert!(under(backend, "archive/").is_empty(), "nothing named it");

    write_file(fs, file, b"busy");
    write_file(
        fs,
        "/links/data/ns/t/r2/f/00000000000000000007.hfile/.removing",
        b"",
    );
    let refused = fs
        .hard_link(Path::new(file), Path::new(SNAPSHOT_FILE))
        .expect_err("a removal is at work");
    assert_eq!(refused.kind(), ErrorKind::NotFound);
    assert!(refused.to_string().contains("being removed"), "{refused}");
    assert!(!fs.exists(Path::new(SNAPSHOT_FILE)).expect("exists"));
    let missing = fs
        .hard_link(
            Path::new("/data/ns/t/r2/f/9.hfile"),
            Path::new(SNAPSHOT_FILE),
        )
        .expect_err("no such file");
    assert_eq!(missing.kind(), ErrorKind::NotFound);
}

fn a_renamed_link_takes_its_back_reference_along(backend: &Backend) {
    let fs = &backend.fs;
    let file = "/data/ns/t/r4/f/00000000000000000003.hfile";
    write_file(fs, file, b"committed");
    fs.hard_link(
        Path::new(file),
        Path::new("/snapshots/.tmp/s2/r4/f/00000000000000000003.hfile"),
    )
    .expect("link while taking");
    fs.rename(Path::new("/snapshots/.tmp/s2"), Path::new("/snapshots/s2"))
        .expect("commit");
    fs.remove_file(Path::new(file)).expect("compaction");
    let link = "/snapshots/s2/r4/f/00000000000000000003.hfile";
    assert_eq!(read_file(fs, link), b"committed");
    fs.remove_dir_all(Path::new("/snapshots/s2"))
        .expect("delete snapshot");
    assert_eq!(
        fs.clean_archive().expect("cleaner"),
        1,
        "no back-reference left behind"
    );
}

fn a_renamed_linked_file_is_kept_for_its_links(backend: &Backend) {
    let fs = &backend.fs;
    let file = "/data/ns/t/r3/f/00000000000000000002.hfile";
    write_file(fs, file, b"set aside");
    fs.hard_link(Path::new(file), Path::new(SNAPSHOT_FILE))
        .expect("link");
    fs.rename(Path::new("/data/ns/t/r3"), Path::new("/quarantine/r3"))
        .expect("set aside");
    assert_eq!(read_file(fs, SNAPSHOT_FILE), b"set aside");
}

fn suite(backend: Backend) {
    a_linked_file_outlives_its_table_and_goes_with_its_last_link(&backend);
    an_unlinked_file_is_deleted_and_a_busy_one_refuses_links(&backend);
    a_renamed_link_takes_its_back_reference_along(&backend);
    a_renamed_linked_file_is_kept_for_its_links(&backend);
}

#[test]
fn shared_files_on_memory() {
    suite(memory());
}

#[test]
fn shared_files_on_s3() {
    suite(moto());
}
