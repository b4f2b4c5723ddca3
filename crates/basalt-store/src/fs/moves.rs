//! Rename and truncate: the two operations that change objects already written.
//!
//! A **rename** copies, then deletes the source. The target appears whole (a copy is
//! atomic on every store), so publishing a file by renaming it is safe; a crash between
//! copy and delete leaves the source too, which is harmless (its name is a temporary's or
//! the file is the same). What is renamed:
//!
//! | source | target | done as |
//! |--------|--------|---------|
//! | a log (chunks) | a log path | each chunk copied to the same number under the target, then the sources deleted newest first; a target log that exists is refused |
//! | a log | a plain path | the chunks concatenated into one object |
//! | a plain object | a log path | the object copied as chunk 0 |
//! | a plain object | a plain path | one copy, replacing the target |
//! | a folder | anywhere | every object under it copied to the same relative key, then deleted |
//!
//! A store file that links name (see `links`) is copied to the archive before its name
//! goes, so the links still read it; a link's back-reference moves with the link (a
//! snapshot is committed by renaming its folder of links).
//!
//! A **truncate** (the engine cuts a torn log tail) keeps the file's first `len` bytes. A
//! plain object is put again with its prefix (atomic). A log loses its chunks past the
//! cut, newest first, so that a crash midway leaves a shorter log that is still whole, and
//! the chunk the cut falls in is put again with its kept part. Only the log's owner, at
//! recovery, truncates: no writer appends to it then.

use super::keys;
use super::read::{list_chunks, Chunk};
use super::write::block;
use super::StoreFs;
use crate::store::ListMode;
use bytes::{Bytes, BytesMut};
use std::io;

pub(super) fn rename(fs: &StoreFs, from: &str, to: &str) -> io::Result<()> {
    if fs.is_log(from) {
        let chunks = list_chunks(&fs.store, from)?;
        if !chunks.is_empty() {
            return rename_log(fs, chunks, to);
        }
    }
    if let Some(info) = fs.head(from)? {
        fs.before_move(from, to, info.size)?;
        let target = if fs.is_log(to) {
            refuse_existing_log(fs, to)?;
            keys::chunk_key(to, 0)
        } else {
            to.to_owned()
        };
        copy(fs, from, &target)?;
        return fs.delete(from);
    }
    let under = fs.list_under(from, ListMode::Recursive)?;
    if under.objects.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("{}: {from} does not exist", fs.store.url()),
        ));
    }
    for object in &under.objects {
        let rest = object.key.strip_prefix(from).unwrap_or(&object.key);
        fs.before_move(
            &object.key,
            &keys::join(to, rest.trim_start_matches('/')),
            object.size,
        )?;
    }
    let sources: Vec<String> = under.objects.into_iter().map(|o| o.key).collect();
    for source in &sources {
        let rest = source
            .strip_prefix(from)
            .map(|rest| rest.trim_start_matches('/'))
            .unwrap_or(source);
        copy(fs, source, &keys::join(to, rest))?;
    }
    let count = sources.len();
    fs.delete_all(sources)?;
    tracing::info!(
        url = fs.store.url(),
        from,
        to,
        objects = count,
        "renamed a folder"
    );
    Ok(())
}

fn copy(fs: &StoreFs, from: &str, to: &str) -> io::Result<()> {
    let (store, from, to) = (fs.store.clone(), from.to_owned(), to.to_owned());
    block(async move { store.copy(&from, &to).await })
}

fn refuse_existing_log(fs: &StoreFs, key: &str) -> io::Result<()> {
    if list_chunks(&fs.store, key)?.is_empty() {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "{}: log {key} exists: a log's chunks are never replaced",
            fs.store.url()
        ),
    ))
}

fn rename_log(fs: &StoreFs, chunks: Vec<Chunk>, to: &str) -> io::Result<()> {
    if fs.is_log(to) {
        refuse_existing_log(fs, to)?;
        for (n, chunk) in (0u64..).zip(&chunks) {
            copy(fs, &chunk.key, &keys::chunk_key(to, n))?;
        }
    } else {
        let whole = read_chunks(fs, &chunks)?;
        let (store, target) = (fs.store.clone(), to.to_owned());
        block(async move { store.put(&target, whole).await })?;
    }
    fs.delete_all(chunks.into_iter().rev().map(|c| c.key).collect())
}

fn read_chunks(fs: &StoreFs, chunks: &[Chunk]) -> io::Result<Bytes> {
    let mut whole = BytesMut::new();
    for chunk in chunks {
        whole.extend_from_slice(&get(fs, &chunk.key, chunk.len, None)?);
    }
    Ok(whole.freeze())
}

/// The first `len` bytes of `key` (at `version`, if given).
fn get(fs: &StoreFs, key: &str, len: u64, version: Option<String>) -> io::Result<Bytes> {
    let (store, key) = (fs.store.clone(), key.to_owned());
    block(async move { store.get_range(&key, 0..len, version.as_deref()).await })
}

fn longer_than_file(fs: &StoreFs, key: &str, len: u64, size: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{}: cannot truncate {key} to {len} bytes: it has {size}",
            fs.store.url()
        ),
    )
}

pub(super) fn truncate(fs: &StoreFs, key: &str, len: u64) -> io::Result<()> {
    if fs.is_log(key) {
        let chunks = list_chunks(&fs.store, key)?;
        if !chunks.is_empty() {
            return truncate_log(fs, key, chunks, len);
        }
    }
    let Some(info) = fs.head(key)? else {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("{}: {key} does not exist", fs.store.url()),
        ));
    };
    if len > info.size {
        return Err(longer_than_file(fs, key, len, info.size));
    }
    if len == info.size {
        return Ok(());
    }
    let kept = get(fs, key, len, info.version)?;
    let (store, key) = (fs.store.clone(), key.to_owned());
    block(async move { store.put(&key, kept).await })
}

fn truncate_log(fs: &StoreFs, key: &str, chunks: Vec<Chunk>, len: u64) -> io::Result<()> {
    let size = chunks.last().map_or(0, |c| c.start + c.len);
    if len > size {
        return Err(longer_than_file(fs, key, len, size));
    }
    let mut dropped = Vec::new();
    let mut cut = None;
    for chunk in chunks.iter().rev() {
        if chunk.start >= len {
            dropped.push(chunk.key.clone());
        } else {
            if chunk.start + chunk.len > len {
                cut = Some(chunk.clone());
            }
            break;
        }
    }
    let dropped_count = dropped.len();
    fs.delete_all(dropped)?;
    if let Some(chunk) = cut {
        let kept = get(fs, &chunk.key, len - chunk.start, None)?;
        let store = fs.store.clone();
        block(async move { store.put(&chunk.key, kept).await })?;
    }
    tracing::info!(
        url = fs.store.url(),
        log = key,
        from = size,
        to = len,
        chunks_dropped = dropped_count,
        "truncated a log"
    );
    Ok(())
}
