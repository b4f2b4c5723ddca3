//! Logs (files under a `wal/` folder) on `StoreFs`, on memory, a folder and moto's S3:
//! each sync is one new immutable chunk object, a log written with many syncs reads back
//! whole, a second writer of the same log is refused at its first sync (put-if-absent),
//! and truncation and renames keep the chunks consistent.

use crate::common;

use basalt_storage::fs::{read_all, FileSystem};
use basalt_store::StoreOptions;
use common::*;
use std::io::ErrorKind;
use std::path::Path;

const LOG: &str = "/db/wal/wal-00000000000000000001.log";

fn chunk_keys(backend: &Backend, log: &str) -> Vec<String> {
    let prefix = format!("{}/", log.trim_start_matches('/'));
    keys(&backend.store())
        .into_iter()
        .filter(|k| k.starts_with(&prefix))
        .collect()
}

fn each_sync_is_one_chunk_and_the_log_reads_back_whole(backend: &Backend) {
    let fs = &backend.fs;
    let mut log = fs.create(Path::new(LOG)).expect("create");
    let mut expected = Vec::new();
    for i in 0..40u32 {
        let record = format!("record {i:03};").repeat(1 + (i as usize % 3));
        log.write_all(record.as_bytes()).expect("append");
        expected.extend_from_slice(record.as_bytes());
        log.sync_data().expect("group commit");
        log.sync_data()
            .expect("a sync with nothing new writes nothing");
    }
    let chunks = chunk_keys(backend, LOG);
    assert_eq!(chunks.len(), 40, "one chunk per sync that had bytes");
    assert_eq!(chunks[0], "db/wal/wal-00000000000000000001.log/0000000000");
    assert_eq!(chunks[39], "db/wal/wal-00000000000000000001.log/0000000039");
    assert_eq!(read_all(fs, Path::new(LOG)).expect("read"), expected);
    let reader = fs.open(Path::new(LOG)).expect("open");
    let mut across = vec![0u8; 30];
    reader
        .read_exact_at(&mut across, 5)
        .expect("read across chunks");
    assert_eq!(across, expected[5..35]);
    assert_eq!(
        fs.list(Path::new("/db/wal")).expect("list"),
        vec!["wal-00000000000000000001.log".to_string()],
        "a log lists as one file"
    );
    assert!(fs.exists(Path::new(LOG)).expect("exists"));
}

fn a_second_writer_is_refused_and_chunks_never_change(backend: &Backend) {
    let log = "/db/wal/wal-00000000000000000002.log";
    let other_server = backend.reopen(StoreOptions::default());
    let mut first = backend.fs.create(Path::new(log)).expect("create");
    let mut second = other_server
        .create(Path::new(log))
        .expect("create elsewhere");
    first.write_all(b"owner's edit").expect("write");
    first.sync_data().expect("owner syncs");
    second.write_all(b"zombie's edit").expect("write");
    let refused = second.sync_data().expect_err("the chunk is taken");
    assert_eq!(refused.kind(), ErrorKind::AlreadyExists);
    assert!(refused.to_string().contains("another writer"), "{refused}");
    assert_eq!(read_file(&backend.fs, log), b"owner's edit");
    let again = backend
        .fs
        .create(Path::new(log))
        .expect_err("a log is never recreated");
    assert_eq!(again.kind(), ErrorKind::AlreadyExists);
}

fn a_chunk_write_that_had_landed_is_recognised_as_its_own(backend: &Backend) {
    let log = "/db/wal/wal-00000000000000000007.log";
    let mut file = backend.fs.create(Path::new(log)).expect("create");
    file.write_all(b"first batch").expect("write");
    // The first attempt's PUT landed but its answer was lost; the retry finds the chunk.
    let (store, chunk) = (
        backend.store(),
        format!("{}/0000000000", log.trim_start_matches('/')),
    );
    basalt_store::blocking(async move { store.put_if_absent(&chunk, "first batch".into()).await })
        .expect("the earlier attempt");
    file.sync_data()
        .expect("the same bytes are this writer's own chunk");
    file.write_all(b", second").expect("write");
    file.sync_data().expect("sync");
    assert_eq!(read_file(&backend.fs, log), b"first batch, second");
}

fn truncation_drops_the_tail_across_chunks(backend: &Backend) {
    let fs = &backend.fs;
    let log = "/db/wal/wal-00000000000000000003.log";
    let mut file = fs.create(Path::new(log)).expect("create");
    for part in [&b"header.."[..], b"record-1", b"record-2", b"torn"] {
        file.write_all(part).expect("write");
        file.sync_data().expect("sync");
    }
    drop(file);
    fs.truncate(Path::new(log), 12).expect("cut inside chunk 1");
    assert_eq!(read_file(fs, log), b"header..reco");
    assert_eq!(
        chunk_keys(backend, log).len(),
        2,
        "chunks past the cut are gone"
    );
    fs.truncate(Path::new(log), 8)
        .expect("cut at a chunk boundary");
    assert_eq!(read_file(fs, log), b"header..");
    let longer = fs.truncate(Path::new(log), 100).expect_err("cannot grow");
    assert_eq!(longer.kind(), ErrorKind::InvalidInput);
}

fn a_log_moved_aside_keeps_its_bytes(backend: &Backend) {
    let fs = &backend.fs;
    let log = "/db/wal/wal-00000000000000000004.log";
    let mut file = fs.create(Path::new(log)).expect("create");
    for part in [&b"one,"[..], b"two,", b"three"] {
        file.write_all(part).expect("write");
        file.sync_data().expect("sync");
    }
    drop(file);
    let aside = "/db/wal/corrupt/wal-00000000000000000004.log";
    fs.rename(Path::new(log), Path::new(aside))
        .expect("move aside");
    assert!(!fs.exists(Path::new(log)).expect("exists"));
    assert_eq!(read_file(fs, aside), b"one,two,three");
    assert_eq!(
        chunk_keys(backend, aside).len(),
        3,
        "still one chunk per sync"
    );
    fs.rename(Path::new(aside), Path::new("/db/evidence.log"))
        .expect("out of the log folder");
    assert_eq!(read_file(fs, "/db/evidence.log"), b"one,two,three");
    fs.remove_file(Path::new("/db/evidence.log"))
        .expect("remove");
    write_file(fs, "/db/wal/wal-00000000000000000005.log", b"x");
    fs.remove_file(Path::new("/db/wal/wal-00000000000000000005.log"))
        .expect("remove log");
    assert!(!fs
        .exists(Path::new("/db/wal/wal-00000000000000000005.log"))
        .expect("exists"));
}

fn a_gap_in_the_chunks_is_named_not_skipped(backend: &Backend) {
    let fs = &backend.fs;
    let log = "/db/wal/wal-00000000000000000006.log";
    let mut file = fs.create(Path::new(log)).expect("create");
    for part in [&b"a"[..], b"b", b"c"] {
        file.write_all(part).expect("write");
        file.sync_data().expect("sync");
    }
    let store = backend.store();
    let middle = format!("{}/0000000001", log.trim_start_matches('/'));
    basalt_store::blocking(async move { store.delete(&middle).await }).expect("delete");
    let error = fs.open(Path::new(log)).expect_err("a gap");
    assert_eq!(error.kind(), ErrorKind::InvalidData);
    assert!(error.to_string().contains("chunk 1 is missing"), "{error}");
}

fn suite(backend: Backend) {
    each_sync_is_one_chunk_and_the_log_reads_back_whole(&backend);
    a_second_writer_is_refused_and_chunks_never_change(&backend);
    a_chunk_write_that_had_landed_is_recognised_as_its_own(&backend);
    truncation_drops_the_tail_across_chunks(&backend);
    a_log_moved_aside_keeps_its_bytes(&backend);
    a_gap_in_the_chunks_is_named_not_skipped(&backend);
}

#[test]
fn logs_on_memory() {
    suite(memory());
}

#[test]
fn logs_on_a_folder() {
    suite(folder());
}

#[test]
fn logs_on_s3() {
    suite(moto());
}
