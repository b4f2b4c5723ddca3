//! Where an export lives: a folder (`file:///dir`) or an S3-compatible bucket
//! (`s3://bucket/prefix`), through `basalt_store` as the cluster's `--store` is; every
//! call blocks on the store's own runtime. Objects are written whole (a local folder
//! through a temporary file and a rename), so a part is either complete or absent.

use super::fail;
use crate::CliError;
use basalt_store::{ListMode, Store, StoreOptions};
use bytes::Bytes;
use std::sync::Arc;

/// An opened export location.
#[derive(Debug, Clone)]
pub struct Target {
    store: Arc<dyn Store>,
    url: String,
}

impl Target {
    /// Opens `url`; a missing local folder is created when `create` (export), refused
    /// otherwise (import).
    pub fn open(url: &str, endpoint: Option<&str>, create: bool) -> Result<Self, CliError> {
        if let Some(dir) = url.strip_prefix("file://") {
            if create && std::path::Path::new(dir).is_absolute() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| fail(format!("cannot create the folder {dir}: {e}")))?;
            }
        } else if !url.starts_with("s3://") {
            return Err(fail(format!(
                "{url}: expected file:///absolute/dir or s3://bucket/prefix"
            )));
        }
        let options = StoreOptions {
            endpoint: endpoint.map(str::to_owned),
            ..StoreOptions::default()
        };
        let store =
            basalt_store::open_store(url, &options).map_err(|e| fail(format!("{url}: {e}")))?;
        Ok(Self {
            store,
            url: url.to_owned(),
        })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// The store under it (for transfers in parts; see [`crate::snapshot::copy`]).
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// The names of the folders directly under the location, sorted.
    pub fn folders(&self) -> Result<Vec<String>, CliError> {
        let store = Arc::clone(&self.store);
        let listing =
            basalt_store::blocking(async move { store.list("", ListMode::Children).await })
                .map_err(|e| self.err("", e))?;
        Ok(listing
            .folders
            .into_iter()
            .map(|f| f.rsplit('/').next().unwrap_or_default().to_owned())
            .collect())
    }

    pub fn err(&self, key: &str, e: impl std::fmt::Display) -> CliError {
        fail(format!("{}/{key}: {e}", self.url.trim_end_matches('/')))
    }

    pub fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), CliError> {
        let (store, k) = (Arc::clone(&self.store), key.to_owned());
        basalt_store::blocking(async move { store.put(&k, Bytes::from(bytes)).await })
            .map_err(|e| self.err(key, e))
    }

    /// The whole object, or `None` if there is none.
    pub fn get(&self, key: &str) -> Result<Option<Bytes>, CliError> {
        let (store, k) = (Arc::clone(&self.store), key.to_owned());
        basalt_store::blocking(async move {
            match store.head(&k).await? {
                None => Ok(None),
                Some(info) => store.get_range(&k, 0..info.size, None).await.map(Some),
            }
        })
        .map_err(|e| self.err(key, e))
    }

    /// The names of the objects directly under the location, sorted.
    pub fn list(&self) -> Result<Vec<String>, CliError> {
        let store = Arc::clone(&self.store);
        let listing =
            basalt_store::blocking(async move { store.list("", ListMode::Children).await })
                .map_err(|e| self.err("", e))?;
        Ok(listing
            .objects
            .into_iter()
            .map(|o| o.key.rsplit('/').next().unwrap_or_default().to_owned())
            .collect())
    }
}
