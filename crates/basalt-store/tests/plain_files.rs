//! The engine's `FileSystem` contract on `StoreFs`, for plain files (HFiles, manifests),
//! on memory, a folder and moto's S3: bytes are visible once synced and read back whole;
//! a rename replaces its target; a folder lists its files and sub-folders; removal and
//! truncation do what the local disk does.

use crate::common;

use basalt_storage::fs::{read_all, write_atomic, FileSystem};
use basalt_store::StoreOptions;
use common::*;
use std::io::ErrorKind;
use std::path::Path;

fn synced_bytes_read_back_and_unsynced_ones_are_not_visible(fs: &dyn FileSystem) {
    let path = Path::new("/db/data/t/r/cf/00000000000000000001.hfile");
    let mut file = fs.create(path).expect("create");
    file.write_all(b"hello ").expect("write");
    assert!(
        !fs.exists(path).expect("exists"),
        "nothing is visible before a sync"
    );
    file.write_all(b"world").expect("write");
    assert_eq!(file.len(), 11);
    file.sync_data().expect("sync");
    assert_eq!(read_all(fs, path).expect("read"), b"hello world");
    let reader = fs.open(path).expect("open");
    let mut middle = [0u8; 5];
    reader.read_exact_at(&mut middle, 3).expect("ranged read");
    assert_eq!(&middle, b"lo wo");
    let past = reader
        .read_exact_at(&mut middle, 8)
        .expect_err("past the end");
    assert_eq!(past.kind(), ErrorKind::UnexpectedEof);
    let missing = fs.open(Path::new("/db/nothing")).expect_err("missing");
    assert_eq!(missing.kind(), ErrorKind::NotFound);
}

fn rename_replaces_the_target_and_removes_the_source(fs: &dyn FileSystem) {
    write_atomic(fs, Path::new("/db/MANIFEST"), b"first").expect("first manifest");
    write_atomic(fs, Path::new("/db/MANIFEST"), b"second").expect("second manifest");
    assert_eq!(read_file(fs, "/db/MANIFEST"), b"second");
    assert!(!fs.exists(Path::new("/db/MANIFEST.tmp")).expect("exists"));
    write_file(fs, "/db/data/t/r/cf/.tmp/2.hfile", b"file two");
    fs.rename(
        Path::new("/db/data/t/r/cf/.tmp/2.hfile"),
        Path::new("/db/data/t/r/cf/2.hfile"),
    )
    .expect("publish");
    assert_eq!(read_file(fs, "/db/data/t/r/cf/2.hfile"), b"file two");
    let gone = fs
        .rename(Path::new("/db/none"), Path::new("/db/x"))
        .expect_err("missing");
    assert_eq!(gone.kind(), ErrorKind::NotFound);
}

fn a_folder_is_renamed_whole(fs: &dyn FileSystem) {
    write_file(fs, "/db/data/t/r1/cf/1.hfile", b"one");
    write_file(fs, "/db/data/t/r1/MANIFEST", b"m");
    fs.rename(
        Path::new("/db/data/t/r1"),
        Path::new("/db/quarantine/t/r1~1"),
    )
    .expect("rename folder");
    assert!(!fs.exists(Path::new("/db/data/t/r1")).expect("exists"));
    assert_eq!(read_file(fs, "/db/quarantine/t/r1~1/cf/1.hfile"), b"one");
    assert_eq!(
        fs.list(Path::new("/db/quarantine/t")).expect("list"),
        vec!["r1~1".to_string()]
    );
}

fn folders_list_files_and_subfolders_sorted(fs: &dyn FileSystem) {
    fs.create_dir_all(Path::new("/list/a")).expect("mkdir");
    fs.sync_dir(Path::new("/list")).expect("sync dir");
    write_file(fs, "/list/b.txt", b"b");
    write_file(fs, "/list/a/inner", b"i");
    write_file(fs, "/list/c#1 ~x", b"odd name");
    assert_eq!(
        fs.list(Path::new("/list")).expect("list"),
        vec!["a".to_string(), "b.txt".into(), "c#1 ~x".into()]
    );
    assert_eq!(read_file(fs, "/list/c#1 ~x"), b"odd name");
    assert!(fs.exists(Path::new("/list/a")).expect("a folder exists"));
    assert!(fs.list(Path::new("/nowhere")).expect("list").is_empty());
    fs.remove_file(Path::new("/list/b.txt")).expect("remove");
    assert!(!fs.exists(Path::new("/list/b.txt")).expect("exists"));
    fs.remove_dir_all(Path::new("/list")).expect("remove all");
    assert!(!fs.exists(Path::new("/list")).expect("exists"));
    fs.remove_dir_all(Path::new("/list"))
        .expect("removing nothing is fine");
}

fn truncate_keeps_the_prefix(fs: &dyn FileSystem) {
    write_file(fs, "/db/trunc", b"0123456789");
    fs.truncate(Path::new("/db/trunc"), 4).expect("truncate");
    assert_eq!(read_file(fs, "/db/trunc"), b"0123");
    let longer = fs
        .truncate(Path::new("/db/trunc"), 40)
        .expect_err("cannot grow");
    assert_eq!(longer.kind(), ErrorKind::InvalidInput);
}

fn a_file_larger_than_a_part_is_uploaded_in_parts(backend: &Backend) {
    let fs = backend.reopen(StoreOptions {
        upload_part_bytes: 5 << 20,
        ..StoreOptions::default()
    });
    let big: Vec<u8> = (0..(11u32 << 20) + 17).map(|i| (i % 251) as u8).collect();
    write_file(&fs, "/db/big.hfile", &big);
    assert_eq!(read_file(&fs, "/db/big.hfile"), big);
}

fn suite(backend: Backend) {
    let fs = &backend.fs;
    synced_bytes_read_back_and_unsynced_ones_are_not_visible(fs);
    rename_replaces_the_target_and_removes_the_source(fs);
    a_folder_is_renamed_whole(fs);
    folders_list_files_and_subfolders_sorted(fs);
    truncate_keeps_the_prefix(fs);
    a_file_larger_than_a_part_is_uploaded_in_parts(&backend);
}

#[test]
fn plain_files_on_memory() {
    suite(memory());
}

#[test]
fn plain_files_on_a_folder() {
    suite(folder());
}

#[test]
fn plain_files_on_s3() {
    suite(moto());
}
