//! The [`Store`] trait: what Basalt needs from an object store, and nothing more.
//!
//! Objects are whole: written at once ([`Store::put`], or an [`Upload`] in parts for large
//! ones), never modified in place, read by byte range. The one atomic primitive is
//! [`Store::put_if_absent`]: of many writers creating the same key, exactly one gets
//! [`Created::Created`]; the write-ahead log's chunks, and the fencing built on them, rest
//! on it (a store where it is not atomic is refused by [`crate::probe`]).
//!
//! Keys are `/`-separated UTF-8 strings relative to the store's root (the folder or the
//! bucket prefix of its URL), each segment non-empty and neither `.` nor `..`; a store
//! may encode characters it cannot hold, and gives keys back decoded. There are no
//! folders: a "folder" is the set of keys under a prefix, and listing with
//! [`ListMode::Children`] shows its immediate children, files and sub-folders alike.
//!
//! The trait is object safe (futures are boxed) so a store can be wrapped, for instance by
//! tests that make an operation fail or misbehave.

use crate::error::Result;
use bytes::Bytes;
use std::fmt::Debug;
use std::future::Future;
use std::ops::Range;
use std::pin::Pin;

/// A boxed future, so that the trait stays object safe.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>;

/// What [`Store::head`] tells of an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectInfo {
    pub size: u64,
    /// Changes whenever the object is written again (an ETag, a version id, or an
    /// equivalent the store derives); `None` if the store gives none.
    pub version: Option<String>,
}

/// The answer of [`Store::put_if_absent`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Created {
    /// This call created the object.
    Created,
    /// The key was taken; the object there was left as it was.
    AlreadyExists,
}

/// How far [`Store::list`] looks under its prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListMode {
    /// Every object under the prefix, at any depth.
    Recursive,
    /// The prefix's immediate children: objects directly under it, and the sub-prefixes
    /// (folders) holding deeper objects.
    Children,
}

/// One object of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedObject {
    /// The whole key (relative to the store's root).
    pub key: String,
    pub size: u64,
    pub version: Option<String>,
}

/// What a prefix holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    /// Sorted by key.
    pub objects: Vec<ListedObject>,
    /// With [`ListMode::Children`]: the keys of the sub-folders (no trailing `/`), sorted.
    pub folders: Vec<String>,
}

/// A large object written in parts (each but the last at least 5 MiB on S3); nothing is
/// visible until [`Upload::complete`].
pub trait Upload: Send + Debug {
    /// Sends the next part.
    fn put_part(&mut self, bytes: Bytes) -> StoreFuture<'_, ()>;
    /// Publishes the object, whole.
    fn complete(self: Box<Self>) -> StoreFuture<'static, ()>;
    /// Gives the upload up; what was sent is discarded.
    fn abort(self: Box<Self>) -> StoreFuture<'static, ()>;
}

/// An object store: a shared folder, an S3-compatible service, or memory.
pub trait Store: Send + Sync + Debug {
    /// Writes a whole object, replacing any object at `key` atomically.
    fn put(&self, key: &str, bytes: Bytes) -> StoreFuture<'_, ()>;
    /// Writes a whole object only if `key` is free: atomic among concurrent writers.
    fn put_if_absent(&self, key: &str, bytes: Bytes) -> StoreFuture<'_, Created>;
    /// Starts writing a large object in parts (replacing any object at `key` when done).
    fn upload(&self, key: &str) -> StoreFuture<'_, Box<dyn Upload>>;
    /// Bytes `range` of an object; all of them or an error. With `version`, fails with
    /// [`crate::StoreError::Changed`] unless the object is still that version.
    fn get_range(
        &self,
        key: &str,
        range: Range<u64>,
        version: Option<&str>,
    ) -> StoreFuture<'_, Bytes>;
    /// Size and version of an object, `None` if there is none at `key`.
    fn head(&self, key: &str) -> StoreFuture<'_, Option<ObjectInfo>>;
    /// What is under `prefix` (a folder key; `""` for the root).
    fn list(&self, prefix: &str, mode: ListMode) -> StoreFuture<'_, Listing>;
    /// Removes an object; removing a missing one is not an error everywhere (S3), so
    /// callers that care look first.
    fn delete(&self, key: &str) -> StoreFuture<'_, ()>;
    /// Copies an object inside the store, replacing any object at `to` atomically.
    fn copy(&self, from: &str, to: &str) -> StoreFuture<'_, ()>;
    /// The store's URL, for logs and errors.
    fn url(&self) -> &str;
}
