//! The local disk cache under `StoreFs` reads: a range read twice is fetched once (the
//! counters say so), an object written again under its name is never served from the old
//! blocks, a reader pinned to the old version fails rather than mix versions, and the
//! cache stays within its bound. On memory, a folder and moto's S3.

use crate::common;

use basalt_storage::fs::{write_atomic, FileSystem};
use basalt_store::{CacheStats, StoreFs, StoreOptions};
use common::*;
use std::path::Path;
use tempfile::TempDir;

const BLOCK: u64 = 64 * 1024;

fn cached(backend: &Backend, capacity: u64) -> (TempDir, StoreFs) {
    let dir = tempfile::tempdir().expect("cache dir");
    let fs = backend.reopen(StoreOptions {
        cache_dir: Some(dir.path().to_path_buf()),
        cache_bytes: capacity,
        cache_block_bytes: BLOCK,
        ..StoreOptions::default()
    });
    (dir, fs)
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| (i % 241) as u8 ^ seed).collect()
}

fn read(fs: &dyn FileSystem, path: &str, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![0; len];
    fs.open(Path::new(path))?.read_exact_at(&mut buf, offset)?;
    Ok(buf)
}

fn a_second_read_hits_the_cache_and_fetches_nothing(backend: &Backend) {
    let (_dir, fs) = cached(backend, 1 << 20);
    let data = pattern(200 * 1024, 0);
    write_file(&fs, "/db/cf/1.hfile", &data);
    let first = read(&fs, "/db/cf/1.hfile", 70_000, 100).expect("read");
    assert_eq!(first, data[70_000..70_100]);
    assert_eq!(
        fs.stats(),
        CacheStats {
            hits: 0,
            misses: 1,
            bytes_fetched: BLOCK,
            bytes_cached: BLOCK + 4,
        },
        "one aligned block fetched and cached"
    );
    let again = read(&fs, "/db/cf/1.hfile", 70_000, 100).expect("read again");
    assert_eq!(again, first);
    let stats = fs.stats();
    assert_eq!((stats.hits, stats.misses), (1, 1));
    assert_eq!(stats.bytes_fetched, BLOCK, "nothing more fetched");
    let across = read(&fs, "/db/cf/1.hfile", BLOCK - 10, 20).expect("read across blocks");
    assert_eq!(across, data[BLOCK as usize - 10..BLOCK as usize + 10]);
    let stats = fs.stats();
    assert_eq!(
        (stats.hits, stats.misses),
        (2, 2),
        "block 1 hit, block 0 missed"
    );
    let tail = read(&fs, "/db/cf/1.hfile", 200 * 1024 - 8, 8).expect("the short last block");
    assert_eq!(tail, data[data.len() - 8..]);
}

fn a_rewritten_object_is_never_served_stale(backend: &Backend) {
    let (_dir, fs) = cached(backend, 1 << 20);
    write_atomic(&fs, Path::new("/db/MANIFEST"), &[1u8; 100]).expect("first");
    assert_eq!(read(&fs, "/db/MANIFEST", 0, 100).expect("read"), [1u8; 100]);
    write_atomic(&fs, Path::new("/db/MANIFEST"), &[2u8; 100]).expect("same name, same size");
    assert_eq!(read(&fs, "/db/MANIFEST", 0, 100).expect("read"), [2u8; 100]);
}

fn a_reader_of_an_old_version_fails_rather_than_mix(backend: &Backend) {
    let (_dir, fs) = cached(backend, 1 << 20);
    let old = pattern(2 * BLOCK as usize, 1);
    write_file(&fs, "/db/pinned", &old);
    let reader = fs.open(Path::new("/db/pinned")).expect("open");
    let mut buf = vec![0; 16];
    reader
        .read_exact_at(&mut buf, 0)
        .expect("block 0 of the old version");
    write_file(&fs, "/db/pinned", &pattern(2 * BLOCK as usize, 9));
    let error = reader
        .read_exact_at(&mut buf, BLOCK)
        .expect_err("block 1 is of another version now");
    assert!(
        error.to_string().contains("changed since it was opened"),
        "{error}"
    );
}

fn the_cache_stays_within_its_bound(backend: &Backend) {
    let capacity = 4 * (BLOCK + 4);
    let (dir, fs) = cached(backend, capacity);
    let data = pattern(1 << 20, 3);
    write_file(&fs, "/db/cf/big.hfile", &data);
    let reader = fs.open(Path::new("/db/cf/big.hfile")).expect("open");
    let mut buf = vec![0; 4096];
    for offset in (0..data.len()).step_by(4096) {
        reader.read_exact_at(&mut buf, offset as u64).expect("read");
        assert_eq!(buf, data[offset..offset + 4096]);
    }
    let stats = fs.stats();
    assert_eq!(stats.misses, 16, "each block fetched once, read in order");
    assert!(stats.bytes_cached <= capacity, "{stats:?}");
    let on_disk: u64 = walk(dir.path().join("blocks").as_path());
    assert!(on_disk <= capacity, "{on_disk} bytes of blocks on disk");
}

fn walk(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| {
            let e = e.expect("entry");
            match e.file_type().expect("type").is_dir() {
                true => walk(&e.path()),
                false => e.metadata().expect("metadata").len(),
            }
        })
        .sum()
}

fn suite(backend: Backend) {
    a_second_read_hits_the_cache_and_fetches_nothing(&backend);
    a_rewritten_object_is_never_served_stale(&backend);
    a_reader_of_an_old_version_fails_rather_than_mix(&backend);
    the_cache_stays_within_its_bound(&backend);
}

#[test]
fn the_read_cache_on_memory() {
    suite(memory());
}

#[test]
fn the_read_cache_on_a_folder() {
    suite(folder());
}

#[test]
fn the_read_cache_on_s3() {
    suite(moto());
}

#[test]
fn without_a_cache_every_read_fetches() {
    let backend = memory();
    write_file(&backend.fs, "/f", &[7u8; 1000]);
    read(&backend.fs, "/f", 10, 100).expect("read");
    read(&backend.fs, "/f", 10, 100).expect("read");
    let stats = backend.fs.stats();
    assert_eq!((stats.hits, stats.misses, stats.bytes_fetched), (0, 0, 200));
}
