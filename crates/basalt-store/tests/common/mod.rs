//! Shared set-up: a `StoreFs` on each kind of store (memory, a folder, moto's S3).
#![allow(dead_code)]

use basalt_storage::fs::{read_all, FileSystem};
use basalt_store::testing::MotoServer;
use basalt_store::{Store, StoreFs, StoreOptions};
use std::path::Path;
use std::sync::Arc;
use tempfile::TempDir;

/// A file system and what keeps its store alive (a folder, a server).
pub struct Backend {
    pub fs: StoreFs,
    pub url: String,
    _folder: Option<TempDir>,
    _moto: Option<MotoServer>,
}

impl Backend {
    pub fn store(&self) -> Arc<dyn Store> {
        self.fs.store().clone()
    }

    /// Another file system on the same store (as a second server would have).
    pub fn reopen(&self, options: StoreOptions) -> StoreFs {
        StoreFs::new(self.store(), options).expect("file system reopens")
    }
}

pub fn memory() -> Backend {
    Backend {
        fs: StoreFs::open("memory://", StoreOptions::default()).expect("memory store"),
        url: "memory://".into(),
        _folder: None,
        _moto: None,
    }
}

pub fn folder() -> Backend {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("file://{}", dir.path().display());
    Backend {
        fs: StoreFs::open(&url, StoreOptions::default()).expect("folder store"),
        url,
        _folder: Some(dir),
        _moto: None,
    }
}

pub fn moto() -> Backend {
    let moto = MotoServer::start().expect("moto starts");
    let url = moto.url("tests");
    Backend {
        fs: StoreFs::open(&url, moto.options()).expect("s3 store"),
        url,
        _folder: None,
        _moto: Some(moto),
    }
}

/// Writes `bytes` to `path` and syncs.
pub fn write_file(fs: &dyn FileSystem, path: &str, bytes: &[u8]) {
    let mut file = fs.create(Path::new(path)).expect("create");
    file.write_all(bytes).expect("write");
    file.sync_data().expect("sync");
}

pub fn read_file(fs: &dyn FileSystem, path: &str) -> Vec<u8> {
    read_all(fs, Path::new(path)).expect("read")
}

/// Every key in the store, sorted.
pub fn keys(store: &Arc<dyn Store>) -> Vec<String> {
    let store = store.clone();
    let listed =
        basalt_store::blocking(
            async move { store.list("", basalt_store::ListMode::Recursive).await },
        )
        .expect("list");
    listed.objects.into_iter().map(|o| o.key).collect()
}
