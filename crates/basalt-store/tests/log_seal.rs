//! Sealing a dead server's log folder on a store (cluster-design §5.3 layer 1; §5.8 cases
//! 1, 2, 4, 6 and 12), on memory, a folder and moto's S3: the writer's next sync fails at
//! the seal and is never acknowledged; a writer that wins the race for a chunk pushes the
//! seal to the next gap; a log begun after the seal fails at its first chunk; the seal is
//! recorded once and a second seal gives the same record; reads stop at the seal. Store
//! failures are retried for `log_retry_for` and then fail the sync; a retried chunk whose
//! first answer was lost is recognised as the writer's own.

use crate::common;

use basalt_storage::fs::{FileSystem, WritableFile, SEAL_RECORD};
use basalt_store::store::{Created, ListMode, Listing, ObjectInfo, StoreFuture, Upload};
use basalt_store::{Store, StoreError, StoreFs, StoreOptions};
use bytes::Bytes;
use common::*;
use std::io::ErrorKind;
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn log_in(dir: &str, n: u64) -> String {
    format!("{dir}/wal-{n:020}.log")
}

fn writer_with(fs: &StoreFs, dir: &str, n: u64, batches: &[&str]) -> Box<dyn WritableFile> {
    let mut file = fs.create(Path::new(&log_in(dir, n))).expect("create");
    for batch in batches {
        file.write_all(batch.as_bytes()).expect("write");
        file.sync_data().expect("sync before the seal");
    }
    file
}

fn a_sealed_log_refuses_its_writer_and_reads_to_the_seal(backend: &Backend) {
    const DIR: &str = "/db/wal/host,1,1";
    let log_path = |n| log_in(DIR, n);
    let fs = &backend.fs;
    let mut zombie = writer_with(fs, DIR, 1, &["one;", "two;", "three;"]);
    let sealed = fs
        .seal_logs(Path::new(DIR))
        .expect("seal")
        .expect("a store seals");
    assert_eq!(sealed.logs, vec![(name(1), 14)]);

    zombie.write_all(b"after;").expect("buffered");
    let refused = zombie.sync_data().expect_err("the seal took the chunk");
    assert_eq!(refused.kind(), ErrorKind::AlreadyExists);
    assert!(refused.to_string().contains("sealed"), "{refused}");
    assert_eq!(read_file(fs, &log_path(1)), b"one;two;three;");

    let again = fs
        .seal_logs(Path::new(DIR))
        .expect("seal again")
        .expect("sealed");
    assert_eq!(
        again, sealed,
        "a second seal returns the first one's record"
    );
    let record = read_file(fs, &format!("{DIR}/{SEAL_RECORD}"));
    assert_eq!(record, sealed.encode().as_bytes());
}

fn a_writer_winning_the_chunk_pushes_the_seal_to_the_next_gap(backend: &Backend) {
    const DIR: &str = "/db/wal/host,1,2";
    let log_path = |n| log_in(DIR, n);
    let store = backend.store();
    // The zombie's PUT of chunk 2 lands just before the seal's put of the same key.
    let racing = Arc::new(Racing {
        inner: store.clone(),
        zombie_chunk: format!("{}/0000000002", log_path(2).trim_start_matches('/')),
        fired: AtomicUsize::new(0),
    });
    let fs = StoreFs::new(racing.clone(), StoreOptions::default()).expect("fs");
    drop(writer_with(&fs, DIR, 2, &["aa;", "bb;"]));
    let sealed = fs.seal_logs(Path::new(DIR)).expect("seal").expect("sealed");
    assert_eq!(racing.fired.load(Ordering::SeqCst), 1, "the race happened");
    let len = sealed
        .logs
        .iter()
        .find(|(n, _)| *n == name(2))
        .expect("named")
        .1;
    assert_eq!(len, 9, "the zombie's chunk is before the seal, so replayed");
    assert_eq!(read_file(&fs, &log_path(2)), b"aa;bb;zz;");
    let chunks = keys(&store)
        .into_iter()
        .filter(|k| k.starts_with(log_path(2).trim_start_matches('/')))
        .count();
    assert_eq!(chunks, 4, "three chunks and the seal at the next gap");
    assert_eq!(fs.seal_logs(Path::new(DIR)).expect("again"), Some(sealed));
}

fn a_log_begun_after_the_seal_fails_at_its_first_chunk(backend: &Backend) {
    const DIR: &str = "/db/wal/host,1,3";
    let log_path = |n| log_in(DIR, n);
    let fs = &backend.fs;
    drop(writer_with(fs, DIR, 1, &["before;"]));
    let sealed = fs.seal_logs(Path::new(DIR)).expect("seal").expect("sealed");
    let mut late = fs.create(Path::new(&log_path(9))).expect("create");
    late.write_all(b"rolled after the seal").expect("write");
    let refused = late.sync_data().expect_err("the folder is sealed");
    assert!(
        refused.to_string().contains("sealed the log folder"),
        "{refused}"
    );
    assert!(
        !sealed.names(&name(9)),
        "the record does not name it: it is not replayed"
    );
}

fn reads_stop_at_the_seal_even_past_a_gap(backend: &Backend) {
    let fs = &backend.fs;
    let dir = "/db/wal/host,2,2";
    let log = log_in(dir, 1);
    let mut file = fs.create(Path::new(&log)).expect("create");
    for part in ["a;", "b;", "c;"] {
        file.write_all(part.as_bytes()).expect("write");
        file.sync_data().expect("sync");
    }
    // A crash with chunk 3 stored and chunk 2 not (an in-flight PUT never finished).
    let store = backend.store();
    let key = log.trim_start_matches('/').to_owned();
    basalt_store::blocking(async move {
        store.delete(&format!("{key}/0000000002")).await?;
        store.put(&format!("{key}/0000000003"), "d;".into()).await
    })
    .expect("a gap");
    let sealed = fs.seal_logs(Path::new(dir)).expect("seal").expect("sealed");
    assert_eq!(sealed.logs, vec![(format!("wal-{:020}.log", 1), 4)]);
    assert_eq!(read_file(fs, &log), b"a;b;", "nothing at or beyond the gap");
}

fn name(n: u64) -> String {
    format!("wal-{n:020}.log")
}

fn suite(backend: Backend) {
    a_sealed_log_refuses_its_writer_and_reads_to_the_seal(&backend);
    a_writer_winning_the_chunk_pushes_the_seal_to_the_next_gap(&backend);
    a_log_begun_after_the_seal_fails_at_its_first_chunk(&backend);
    reads_stop_at_the_seal_even_past_a_gap(&backend);
}

#[test]
fn seals_on_memory() {
    suite(memory());
}

#[test]
fn seals_on_a_folder() {
    suite(folder());
}

#[test]
fn seals_on_s3() {
    suite(moto());
}

#[test]
fn store_failures_are_retried_within_the_budget_then_the_sync_fails() {
    let backend = memory();
    let flaky = Arc::new(Flaky::new(backend.store()));
    let options = StoreOptions {
        log_retry_for: Duration::from_millis(600),
        ..StoreOptions::default()
    };
    let fs = StoreFs::new(flaky.clone(), options).expect("fs");
    let log = log_in("/db/wal/host,1,1", 1);

    // Three failures (503 SlowDown, say), then the store answers: the sync succeeds.
    flaky.fail_next.store(3, Ordering::SeqCst);
    let mut file = fs.create(Path::new(&log)).expect("create");
    file.write_all(b"kept;").expect("write");
    file.sync_data().expect("retried until the store answered");

    // The put lands but its answer is lost: the retry finds its own chunk.
    flaky.lose_answer_next.store(1, Ordering::SeqCst);
    file.write_all(b"answer lost;").expect("write");
    file.sync_data()
        .expect("its own chunk, not another writer's");
    assert_eq!(read_file(&fs, &log), b"kept;answer lost;");

    // The store keeps failing past the budget: the sync fails, nothing is stored.
    flaky.fail_next.store(usize::MAX, Ordering::SeqCst);
    file.write_all(b"never acknowledged").expect("write");
    let started = Instant::now();
    let failed = file.sync_data().expect_err("the budget ran out");
    let took = started.elapsed();
    assert!(failed.to_string().contains("injected"), "{failed}");
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_secs(5),
        "{took:?}"
    );
    flaky.fail_next.store(0, Ordering::SeqCst);
    assert_eq!(read_file(&fs, &log), b"kept;answer lost;");
}

#[test]
fn a_store_slower_than_the_budget_fails_the_sync() {
    let backend = memory();
    let flaky = Arc::new(Flaky::new(backend.store()));
    let options = StoreOptions {
        log_retry_for: Duration::from_millis(300),
        ..StoreOptions::default()
    };
    let fs = StoreFs::new(flaky.clone(), options).expect("fs");
    let mut file = fs
        .create(Path::new(&log_in("/db/wal/host,1,1", 1)))
        .expect("create");
    file.write_all(b"slow").expect("write");
    flaky.delay_ms.store(2_000, Ordering::SeqCst);
    let started = Instant::now();
    let failed = file.sync_data().expect_err("too slow");
    assert!(
        started.elapsed() < Duration::from_millis(1_500),
        "bounded by the budget"
    );
    assert!(failed.to_string().contains("no answer within"), "{failed}");
}

/// A store that runs the zombie's PUT of `zombie_chunk` just before the seal's.
#[derive(Debug)]
struct Racing {
    inner: Arc<dyn Store>,
    zombie_chunk: String,
    fired: AtomicUsize,
}

/// A store that fails puts on demand, loses answers, or answers late.
#[derive(Debug)]
struct Flaky {
    inner: Arc<dyn Store>,
    fail_next: AtomicUsize,
    lose_answer_next: AtomicUsize,
    delay_ms: AtomicUsize,
}

impl Flaky {
    fn new(inner: Arc<dyn Store>) -> Self {
        Self {
            inner,
            fail_next: AtomicUsize::new(0),
            lose_answer_next: AtomicUsize::new(0),
            delay_ms: AtomicUsize::new(0),
        }
    }

    fn injected(&self, key: &str) -> StoreError {
        StoreError::Failed {
            url: self.inner.url().to_owned(),
            op: "put",
            key: key.to_owned(),
            cause: "injected: 503 SlowDown".into(),
        }
    }
}

/// Takes one from `counter` if it is above zero.
fn take(counter: &AtomicUsize) -> bool {
    counter
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| match n {
            0 => None,
            usize::MAX => Some(usize::MAX),
            n => Some(n - 1),
        })
        .is_ok()
}

macro_rules! forward_reads {
    () => {
        fn put(&self, key: &str, bytes: Bytes) -> StoreFuture<'_, ()> {
            self.inner.put(key, bytes)
        }
        fn upload(&self, key: &str) -> StoreFuture<'_, Box<dyn Upload>> {
            self.inner.upload(key)
        }
        fn get_range(
            &self,
            key: &str,
            range: Range<u64>,
            version: Option<&str>,
        ) -> StoreFuture<'_, Bytes> {
            self.inner.get_range(key, range, version)
        }
        fn head(&self, key: &str) -> StoreFuture<'_, Option<ObjectInfo>> {
            self.inner.head(key)
        }
        fn list(&self, prefix: &str, mode: ListMode) -> StoreFuture<'_, Listing> {
            self.inner.list(prefix, mode)
        }
        fn delete(&self, key: &str) -> StoreFuture<'_, ()> {
            self.inner.delete(key)
        }
        fn copy(&self, from: &str, to: &str) -> StoreFuture<'_, ()> {
            self.inner.copy(from, to)
        }
        fn url(&self) -> &str {
            self.inner.url()
        }
    };
}

impl Store for Flaky {
    fn put_if_absent(&self, key: &str, bytes: Bytes) -> StoreFuture<'_, Created> {
        let key = key.to_owned();
        Box::pin(async move {
            let delay = self.delay_ms.load(Ordering::SeqCst) as u64;
            if delay > 0 {
                tokio::time::sleep(Duration::from_millis(delay)).await;
            }
            if take(&self.fail_next) {
                return Err(self.injected(&key));
            }
            let created = self.inner.put_if_absent(&key, bytes).await?;
            if take(&self.lose_answer_next) {
                return Err(self.injected(&key));
            }
            Ok(created)
        })
    }
    forward_reads!();
}

impl Store for Racing {
    fn put_if_absent(&self, key: &str, bytes: Bytes) -> StoreFuture<'_, Created> {
        let key = key.to_owned();
        Box::pin(async move {
            if key == self.zombie_chunk && bytes.is_empty() && take_once(&self.fired) {
                self.inner.put_if_absent(&key, "zz;".into()).await?;
            }
            self.inner.put_if_absent(&key, bytes).await
        })
    }
    forward_reads!();
}

fn take_once(fired: &AtomicUsize) -> bool {
    fired.fetch_add(1, Ordering::SeqCst) == 0
}
