//! One store file between the engine's file system and an export location, in chunks,
//! its CRC-32C computed on the way: up (an export, then read back and checked) and down
//! (an import, checked against the export's `CHECKSUMS` before it counts).

use crate::export::fail;
use crate::export::target::Target;
use crate::CliError;
use basalt_storage::fs::FileSystem;
use bytes::Bytes;
use std::path::Path;

/// Bytes read or sent at a time (a part of an upload: S3 wants at least 5 MiB).
pub const CHUNK_BYTES: u64 = 8 << 20;

fn chunks(size: u64) -> impl Iterator<Item = std::ops::Range<u64>> {
    (0..size.div_ceil(CHUNK_BYTES)).map(move |i| i * CHUNK_BYTES..((i + 1) * CHUNK_BYTES).min(size))
}

/// The size and CRC-32C of `path` on `fs`.
pub fn crc_of_file(fs: &dyn FileSystem, path: &Path) -> Result<(u64, u32), CliError> {
    read_file(fs, path, |_| Ok(()))
}

/// Reads `path` on `fs` through `each` chunk; returns its size and CRC-32C.
fn read_file(
    fs: &dyn FileSystem,
    path: &Path,
    mut each: impl FnMut(Bytes) -> Result<(), CliError>,
) -> Result<(u64, u32), CliError> {
    let err = |e: std::io::Error| fail(format!("cannot read {}: {e}", path.display()));
    let file = fs.open(path).map_err(err)?;
    let size = file.len();
    let mut crc = 0;
    for range in chunks(size) {
        let mut buf = vec![0; (range.end - range.start) as usize];
        file.read_exact_at(&mut buf, range.start).map_err(err)?;
        crc = crc32c::crc32c_append(crc, &buf);
        each(Bytes::from(buf))?;
    }
    Ok((size, crc))
}

/// The size and CRC-32C of the object `key` at `target`, `None` if there is none.
pub fn crc_of_object(target: &Target, key: &str) -> Result<Option<(u64, u32)>, CliError> {
    let mut crc = 0;
    let size = read_object(target, key, |chunk| {
        crc = crc32c::crc32c_append(crc, &chunk);
        Ok(())
    })?;
    Ok(size.map(|size| (size, crc)))
}

/// Reads the object `key` through `each` chunk; its size, `None` if there is none.
fn read_object(
    target: &Target,
    key: &str,
    mut each: impl FnMut(Bytes) -> Result<(), CliError>,
) -> Result<Option<u64>, CliError> {
    let store = target.store().clone();
    let k = key.to_owned();
    let head = basalt_store::blocking(async move { store.head(&k).await })
        .map_err(|e| target.err(key, e))?;
    let Some(info) = head else {
        return Ok(None);
    };
    for range in chunks(info.size) {
        let (store, k, version) = (target.store().clone(), key.to_owned(), info.version.clone());
        let bytes =
            basalt_store::blocking(
                async move { store.get_range(&k, range, version.as_deref()).await },
            )
            .map_err(|e| target.err(key, e))?;
        each(bytes)?;
    }
    Ok(Some(info.size))
}

/// Copies `path` on `fs` to `key` at `target` (in parts when large), then reads it back:
/// its size and CRC-32C, the same on both sides, or an error naming the file.
pub fn upload(
    fs: &dyn FileSystem,
    path: &Path,
    target: &Target,
    key: &str,
) -> Result<(u64, u32), CliError> {
    let small = fs
        .open(path)
        .map_err(|e| fail(format!("cannot read {}: {e}", path.display())))?
        .len()
        <= CHUNK_BYTES;
    let (size, crc) = if small {
        let mut whole = Vec::new();
        let sum = read_file(fs, path, |chunk| {
            whole.extend_from_slice(&chunk);
            Ok(())
        })?;
        target.put(key, whole)?;
        sum
    } else {
        send_in_parts(fs, path, target, key)?
    };
    match crc_of_object(target, key)? {
        Some(back) if back == (size, crc) => Ok((size, crc)),
        Some((back_size, back_crc)) => Err(target.err(
            key,
            format!(
                "checksum mismatch after the copy: {} holds {size} bytes with CRC {crc:08x}, \
                 the copy {back_size} bytes with CRC {back_crc:08x}",
                path.display()
            ),
        )),
        None => Err(target.err(key, "missing right after it was written")),
    }
}

/// A large file as an upload in parts of [`CHUNK_BYTES`].
fn send_in_parts(
    fs: &dyn FileSystem,
    path: &Path,
    target: &Target,
    key: &str,
) -> Result<(u64, u32), CliError> {
    let store = target.store().clone();
    let k = key.to_owned();
    let upload = basalt_store::blocking(async move { store.upload(&k).await })
        .map_err(|e| target.err(key, e))?;
    let mut upload = Some(upload);
    let sent = read_file(fs, path, |chunk| {
        let Some(mut part) = upload.take() else {
            return Err(target.err(key, "the upload was lost after a failed part"));
        };
        let (part, sent) = basalt_store::blocking(async move {
            let sent = part.put_part(chunk).await;
            Ok((part, sent))
        })
        .map_err(|e| target.err(key, e))?;
        upload = Some(part);
        sent.map_err(|e| target.err(key, e))
    });
    let Some(upload) = upload else {
        return Err(target.err(key, "the upload was lost after a failed part"));
    };
    let (size, crc) = match sent {
        Ok(done) => done,
        Err(e) => {
            let _ = basalt_store::blocking(async move { upload.abort().await });
            return Err(e);
        }
    };
    basalt_store::blocking(async move { upload.complete().await })
        .map_err(|e| target.err(key, e))?;
    Ok((size, crc))
}

/// Copies the object `key` at `target` to `path` on `fs` (synced); its size and CRC-32C.
pub fn download(
    target: &Target,
    key: &str,
    fs: &dyn FileSystem,
    path: &Path,
) -> Result<(u64, u32), CliError> {
    let err = |e: std::io::Error| fail(format!("cannot write {}: {e}", path.display()));
    if let Some(dir) = path.parent() {
        fs.create_dir_all(dir).map_err(err)?;
    }
    // A file left there (an earlier run's, or a crashed snapshot's link to a table's
    // file) loses its name only: writing through it would change what it shares.
    if fs.exists(path).map_err(err)? {
        fs.remove_file(path).map_err(err)?;
    }
    let mut file = fs.create(path).map_err(err)?;
    let mut crc = 0;
    let size = read_object(target, key, |chunk| {
        crc = crc32c::crc32c_append(crc, &chunk);
        file.write_all(&chunk).map_err(err)
    })?
    .ok_or_else(|| target.err(key, "missing: the export is incomplete"))?;
    file.sync_data().map_err(err)?;
    Ok((size, crc))
}
