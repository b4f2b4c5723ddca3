//! The start-up probe: healthy stores pass (memory, a folder, moto's S3); an unreachable
//! endpoint, a missing bucket and a store whose put-if-absent is check-then-put are each
//! refused with a message naming the store and the cause. `unsafe_lease_only_fencing`
//! lets the non-atomic store through, marked as such.

use crate::common;

use basalt_store::store::{ListMode, Listing, ObjectInfo, StoreFuture, Upload};
use basalt_store::testing::MotoServer;
use basalt_store::{probe_blocking, Created, ProbeError, Store, StoreFs};
use bytes::Bytes;
use common::*;
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

fn accepted(backend: &Backend) {
    let report = backend.fs.probe().expect("a healthy store passes");
    assert!(report.atomic_put_if_absent);
    assert_eq!(report.url, backend.url);
    assert!(
        keys(&backend.store()).is_empty(),
        "the probe leaves nothing behind"
    );
}

#[test]
fn healthy_stores_pass() {
    accepted(&memory());
    accepted(&folder());
    accepted(&moto());
}

#[test]
fn an_unreachable_endpoint_is_refused_naming_it() {
    // A server that was started and stopped: nothing listens on its port any more.
    let stopped = MotoServer::start().expect("moto starts");
    let (url, options) = (stopped.url("p"), stopped.options());
    let endpoint = stopped.endpoint();
    drop(stopped);
    let fs = StoreFs::open(&url, options).expect("opening does not connect");
    let error = fs.probe().expect_err("refused");
    let text = error.to_string();
    assert!(
        text.contains(&url) && text.contains("writing a probe object"),
        "{text}"
    );
    assert!(
        text.to_lowercase().contains("connect") || text.contains(&endpoint),
        "the cause is named: {text}"
    );
}

#[test]
fn a_missing_bucket_is_refused_naming_it() {
    let moto = MotoServer::start().expect("moto starts");
    let url = "s3://no-such-bucket/p";
    let fs = StoreFs::open(url, moto.options()).expect("opening does not connect");
    let text = fs.probe().expect_err("refused").to_string();
    assert!(text.contains(url), "{text}");
    assert!(text.contains("the bucket does not exist"), "{text}");
    assert!(
        text.contains("NoSuchBucket"),
        "the service's own word: {text}"
    );
}

/// A store whose put-if-absent looks, waits (a network round trip), then puts: the
/// check-then-act race of some S3 look-alikes.
#[derive(Debug)]
struct CheckThenPut(Arc<dyn Store>);

impl Store for CheckThenPut {
    fn put(&self, key: &str, bytes: Bytes) -> StoreFuture<'_, ()> {
        self.0.put(key, bytes)
    }
    fn put_if_absent(&self, key: &str, bytes: Bytes) -> StoreFuture<'_, Created> {
        let key = key.to_owned();
        Box::pin(async move {
            if self.0.head(&key).await?.is_some() {
                return Ok(Created::AlreadyExists);
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
            self.0.put(&key, bytes).await?;
            Ok(Created::Created)
        })
    }
    fn upload(&self, key: &str) -> StoreFuture<'_, Box<dyn Upload>> {
        self.0.upload(key)
    }
    fn get_range(&self, key: &str, range: Range<u64>, v: Option<&str>) -> StoreFuture<'_, Bytes> {
        self.0.get_range(key, range, v)
    }
    fn head(&self, key: &str) -> StoreFuture<'_, Option<ObjectInfo>> {
        self.0.head(key)
    }
    fn list(&self, prefix: &str, mode: ListMode) -> StoreFuture<'_, Listing> {
        self.0.list(prefix, mode)
    }
    fn delete(&self, key: &str) -> StoreFuture<'_, ()> {
        self.0.delete(key)
    }
    fn copy(&self, from: &str, to: &str) -> StoreFuture<'_, ()> {
        self.0.copy(from, to)
    }
    fn url(&self) -> &str {
        "check-then-put://"
    }
}

#[test]
fn a_store_without_atomic_create_is_refused_unless_accepted_as_unsafe() {
    let racy: Arc<dyn Store> = Arc::new(CheckThenPut(memory().store()));
    match probe_blocking(&racy, false).expect_err("refused") {
        ProbeError::NotAtomic {
            url,
            winners,
            creators,
        } => {
            assert_eq!(url, "check-then-put://");
            assert!(winners > 1 && creators == 8, "{winners} of {creators}");
        }
        other => panic!("refused for another reason: {other}"),
    }
    let report = probe_blocking(&racy, true).expect("accepted as unsafe");
    assert!(!report.atomic_put_if_absent);
}
