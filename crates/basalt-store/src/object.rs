//! [`ObjectStoreStore`]: the [`Store`] trait over the `object_store` crate, which speaks
//! to S3-compatible services, a local (or shared) folder, and memory.
//!
//! Keys are turned into `object_store` paths segment by segment; characters object stores
//! advise against (`~`, `#`, `%`, …) are percent-encoded on the way in and decoded on the
//! way out, so callers never see the encoding. Every error is mapped to a
//! [`StoreError`] naming the store's URL and the key.

use crate::error::{chain, Result, StoreError};
use crate::store::{
    Created, ListMode, ListedObject, Listing, ObjectInfo, Store, StoreFuture, Upload,
};
use bytes::Bytes;
use futures_util::StreamExt;
use object_store::path::{Path, PathPart};
use object_store::{
    GetOptions, GetRange, MultipartUpload, ObjectMeta, ObjectStore, ObjectStoreExt, PutMode,
    PutOptions, PutPayload,
};
use std::ops::Range;
use std::sync::Arc;

/// A [`Store`] over any `object_store` implementation, under a key prefix.
#[derive(Debug, Clone)]
pub struct ObjectStoreStore {
    inner: Arc<dyn ObjectStore>,
    /// Segments every key is put under (the prefix of `s3://bucket/prefix`).
    prefix: Vec<String>,
    url: String,
}

impl ObjectStoreStore {
    /// `inner` under the key prefix `prefix` (`/`-separated, may be empty); `url` names it
    /// in errors.
    pub fn new(inner: Arc<dyn ObjectStore>, prefix: &str, url: impl Into<String>) -> Self {
        Self {
            inner,
            prefix: prefix
                .split('/')
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
            url: url.into(),
        }
    }

    fn path(&self, key: &str) -> Result<Path> {
        let mut parts: Vec<PathPart<'_>> = self.prefix.iter().map(|p| p.as_str().into()).collect();
        if !key.is_empty() {
            for segment in key.split('/') {
                if segment.is_empty() || segment == "." || segment == ".." {
                    return Err(StoreError::BadKey {
                        url: self.url.clone(),
                        key: key.to_owned(),
                        reason: format!("segment {segment:?} is not allowed"),
                    });
                }
                parts.push(segment.into());
            }
        }
        Ok(Path::from_iter(parts))
    }

    /// The key of a path the store gave back (prefix removed, segments decoded).
    fn key_of(&self, path: &Path) -> String {
        let parts: Vec<String> = path
            .parts()
            .skip(self.prefix.len())
            .map(|p| percent_decode(p.as_ref()))
            .collect();
        parts.join("/")
    }

    fn error(&self, op: &'static str, key: &str, e: object_store::Error) -> StoreError {
        let (url, key) = (self.url.clone(), key.to_owned());
        let writing = matches!(op, "put" | "put-if-absent" | "upload" | "upload part");
        match e {
            // A write finds no object missing but its bucket.
            object_store::Error::NotFound { .. } if writing => StoreError::Failed {
                url,
                op,
                key,
                cause: format!("the bucket does not exist: {}", chain(&e)),
            },
            object_store::Error::NotFound { .. } => StoreError::NotFound { url, key },
            object_store::Error::AlreadyExists { .. } => StoreError::AlreadyExists { url, key },
            object_store::Error::PermissionDenied { .. }
            | object_store::Error::Unauthenticated { .. } => StoreError::Denied {
                url,
                op,
                key,
                cause: chain(&e),
            },
            other => StoreError::Failed {
                url,
                op,
                key,
                cause: chain(&other),
            },
        }
    }

    fn info(meta: &ObjectMeta) -> ObjectInfo {
        ObjectInfo {
            size: meta.size,
            version: meta.e_tag.clone().or_else(|| meta.version.clone()),
        }
    }
}

/// Decodes `%XX` escapes (what `object_store` encodes in a path segment).
fn percent_decode(raw: &str) -> String {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl Store for ObjectStoreStore {
    fn put(&self, key: &str, bytes: Bytes) -> StoreFuture<'_, ()> {
        let key = key.to_owned();
        Box::pin(async move {
            let path = self.path(&key)?;
            self.inner
                .put(&path, PutPayload::from(bytes))
                .await
                .map_err(|e| self.error("put", &key, e))?;
            Ok(())
        })
    }

    fn put_if_absent(&self, key: &str, bytes: Bytes) -> StoreFuture<'_, Created> {
        let key = key.to_owned();
        Box::pin(async move {
            let path = self.path(&key)?;
            let options = PutOptions::from(PutMode::Create);
            match self
                .inner
                .put_opts(&path, PutPayload::from(bytes), options)
                .await
            {
                Ok(_) => Ok(Created::Created),
                // S3 answers a lost race with 412 (or 409 for a concurrent one).
                Err(object_store::Error::AlreadyExists { .. })
                | Err(object_store::Error::Precondition { .. }) => Ok(Created::AlreadyExists),
                Err(e) => Err(self.error("put-if-absent", &key, e)),
            }
        })
    }

    fn upload(&self, key: &str) -> StoreFuture<'_, Box<dyn Upload>> {
        let key = key.to_owned();
        Box::pin(async move {
            let path = self.path(&key)?;
            let inner = self
                .inner
                .put_multipart(&path)
                .await
                .map_err(|e| self.error("upload", &key, e))?;
            Ok(Box::new(PartsUpload {
                inner,
                store: self.clone(),
                key,
            }) as Box<dyn Upload>)
        })
    }

    fn get_range(
        &self,
        key: &str,
        range: Range<u64>,
        version: Option<&str>,
    ) -> StoreFuture<'_, Bytes> {
        let key = key.to_owned();
        let version = version.map(str::to_owned);
        Box::pin(async move {
            let path = self.path(&key)?;
            if range.is_empty() {
                return Ok(Bytes::new());
            }
            let want = range.end - range.start;
            let options = GetOptions {
                if_match: version.clone(),
                range: Some(GetRange::Bounded(range.clone())),
                ..GetOptions::default()
            };
            let got = async { self.inner.get_opts(&path, options).await?.bytes().await }.await;
            let bytes = match got {
                Ok(bytes) => bytes,
                Err(object_store::Error::Precondition { .. }) => {
                    return Err(StoreError::Changed {
                        url: self.url.clone(),
                        key,
                        expected: version.unwrap_or_default(),
                    })
                }
                Err(e) => return Err(self.error("get", &key, e)),
            };
            if bytes.len() as u64 != want {
                return Err(StoreError::Failed {
                    url: self.url.clone(),
                    op: "get",
                    key,
                    cause: format!(
                        "asked for bytes {}..{}, got {} bytes (the object is shorter)",
                        range.start,
                        range.end,
                        bytes.len()
                    ),
                });
            }
            Ok(bytes)
        })
    }

    fn head(&self, key: &str) -> StoreFuture<'_, Option<ObjectInfo>> {
        let key = key.to_owned();
        Box::pin(async move {
            let path = self.path(&key)?;
            match self.inner.head(&path).await {
                Ok(meta) => Ok(Some(Self::info(&meta))),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(self.error("head", &key, e)),
            }
        })
    }

    fn list(&self, prefix: &str, mode: ListMode) -> StoreFuture<'_, Listing> {
        let prefix = prefix.to_owned();
        Box::pin(async move {
            let path = self.path(&prefix)?;
            let root = (!self.prefix.is_empty() || !prefix.is_empty()).then_some(&path);
            let mut listing = Listing::default();
            match mode {
                ListMode::Children => {
                    let found = match self.inner.list_with_delimiter(root).await {
                        Ok(found) => found,
                        Err(object_store::Error::NotFound { .. }) => return Ok(listing),
                        Err(e) => return Err(self.error("list", &prefix, e)),
                    };
                    listing.folders = found
                        .common_prefixes
                        .iter()
                        .map(|p| self.key_of(p))
                        .collect();
                    listing.objects = found.objects.iter().map(|m| self.listed(m)).collect();
                }
                ListMode::Recursive => {
                    let mut stream = self.inner.list(root);
                    while let Some(item) = stream.next().await {
                        match item {
                            Ok(meta) => listing.objects.push(self.listed(&meta)),
                            Err(object_store::Error::NotFound { .. }) => {}
                            Err(e) => return Err(self.error("list", &prefix, e)),
                        }
                    }
                }
            }
            listing.objects.sort_by(|a, b| a.key.cmp(&b.key));
            listing.folders.sort();
            Ok(listing)
        })
    }

    fn delete(&self, key: &str) -> StoreFuture<'_, ()> {
        let key = key.to_owned();
        Box::pin(async move {
            let path = self.path(&key)?;
            self.inner
                .delete(&path)
                .await
                .map_err(|e| self.error("delete", &key, e))
        })
    }

    fn copy(&self, from: &str, to: &str) -> StoreFuture<'_, ()> {
        let (from, to) = (from.to_owned(), to.to_owned());
        Box::pin(async move {
            let (source, target) = (self.path(&from)?, self.path(&to)?);
            self.inner
                .copy(&source, &target)
                .await
                .map_err(|e| self.error("copy", &from, e))
        })
    }

    fn url(&self) -> &str {
        &self.url
    }
}

impl ObjectStoreStore {
    fn listed(&self, meta: &ObjectMeta) -> ListedObject {
        let info = Self::info(meta);
        ListedObject {
            key: self.key_of(&meta.location),
            size: info.size,
            version: info.version,
        }
    }
}

/// An `object_store` multipart upload.
#[derive(Debug)]
struct PartsUpload {
    inner: Box<dyn MultipartUpload>,
    store: ObjectStoreStore,
    key: String,
}

impl Upload for PartsUpload {
    fn put_part(&mut self, bytes: Bytes) -> StoreFuture<'_, ()> {
        let part = self.inner.put_part(PutPayload::from(bytes));
        Box::pin(async move {
            part.await
                .map_err(|e| self.store.error("upload part", &self.key, e))
        })
    }

    fn complete(self: Box<Self>) -> StoreFuture<'static, ()> {
        Box::pin(async move {
            let mut this = self;
            match this.inner.complete().await {
                Ok(_) => Ok(()),
                Err(e) => Err(this.store.error("upload completion", &this.key, e)),
            }
        })
    }

    fn abort(self: Box<Self>) -> StoreFuture<'static, ()> {
        Box::pin(async move {
            let mut this = self;
            match this.inner.abort().await {
                Ok(()) => Ok(()),
                Err(e) => Err(this.store.error("upload abort", &this.key, e)),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_decoding_reverses_object_store_encoding() {
        for name in ["a~1", "x#2", "50%", "plain.hfile", "%", "%4", "wal-01.log"] {
            let part = PathPart::from(name);
            assert_eq!(percent_decode(part.as_ref()), name, "{name}");
        }
    }
}
