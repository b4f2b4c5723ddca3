//! Recovered edits: one region's edits, split out of a dead server's sealed log into the
//! region's own folder (cluster-design §5.4, server crash step 3), so that the region's
//! new owner reads only its own edits instead of the whole log.
//!
//! `<region folder>/recovered.edits/<server>`, written whole (temporary file, sync, rename)
//! by the master's split; the edits keep their sequence ids and nonces:
//!
//! ```text
//! | magic "BSRECEDT" | version u32 (1) | edit_count u64 | crc32c u32 of bytes 0..20 |
//! | edit_count log records (the log's framing: length, two checksums, payload) |
//! ```
//!
//! A file that does not read back whole is reported as damage; the log it came from is
//! still there, and the region reads that instead.

use super::edit::{decode_payload, encode_record};
use super::record::{check_payload, decode_header, RECORD_HEADER_LEN};
use super::WalEdit;
use crate::fs::{read_all, write_atomic, FileSystem};
use crate::{Error, FileKind, Result};
use bytes::Bytes;
use std::path::{Path, PathBuf};

/// The folder of a region's recovered edits.
pub const DIR_NAME: &str = "recovered.edits";

const MAGIC: &[u8; 8] = b"BSRECEDT";
const VERSION: u32 = 1;
const HEADER_LEN: usize = 24;

/// Where the edits of dead server `server` for the region in `region_dir` go.
pub fn path(region_dir: &Path, server: &str) -> PathBuf {
    region_dir.join(DIR_NAME).join(server)
}

/// The file's bytes for `edits`.
pub fn encode(edits: &[&WalEdit]) -> std::result::Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(HEADER_LEN);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_be_bytes());
    out.extend_from_slice(&(edits.len() as u64).to_be_bytes());
    let crc = crc32c::crc32c(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    for edit in edits {
        encode_record(edit, &mut out)?;
    }
    Ok(out)
}

/// The edits of a file's bytes; `path` names it in errors.
pub fn decode(bytes: Bytes, path: &Path) -> Result<Vec<WalEdit>> {
    let bad = |offset: usize, reason: String| {
        Error::corruption(FileKind::RecoveredEdits, path, offset as u64, reason)
    };
    if bytes.len() < HEADER_LEN || &bytes[..8] != MAGIC {
        return Err(bad(0, "not a recovered-edits file (no magic)".into()));
    }
    let word =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    if crc32c::crc32c(&bytes[..20]) != word(20) {
        return Err(bad(0, "header checksum mismatch".into()));
    }
    if word(8) != VERSION {
        return Err(Error::NewerFormat {
            what: "recovered edits",
            file: path.to_path_buf(),
            found: word(8),
            supported: VERSION,
        });
    }
    let count = u64::from_be_bytes(bytes[12..20].try_into().unwrap_or_default());
    let mut edits = Vec::new();
    let mut at = HEADER_LEN;
    while at < bytes.len() {
        let header: [u8; RECORD_HEADER_LEN] = bytes
            .get(at..at + RECORD_HEADER_LEN)
            .and_then(|h| h.try_into().ok())
            .ok_or_else(|| bad(at, "a record header is cut short".into()))?;
        let header = decode_header(&header).map_err(|why| bad(at, why))?;
        let start = at + RECORD_HEADER_LEN;
        let end = start + header.payload_len as usize;
        let payload = bytes
            .get(start..end)
            .ok_or_else(|| bad(at, "a record is cut short".into()))?;
        check_payload(&header, payload).map_err(|why| bad(at, why))?;
        edits.push(decode_payload(bytes.slice(start..end)).map_err(|why| bad(at, why))?);
        at = end;
    }
    if edits.len() as u64 != count {
        return Err(bad(
            at,
            format!("holds {} edits, its header says {count}", edits.len()),
        ));
    }
    Ok(edits)
}

/// Writes `edits` as the recovered edits of `server` for the region in `region_dir`.
pub fn write(
    fs: &dyn FileSystem,
    region_dir: &Path,
    server: &str,
    edits: &[&WalEdit],
) -> Result<()> {
    let file = path(region_dir, server);
    let bytes =
        encode(edits).map_err(|why| Error::invalid(format!("{}: {why}", file.display())))?;
    let dir = region_dir.join(DIR_NAME);
    fs.create_dir_all(&dir)
        .and_then(|()| write_atomic(fs, &file, &bytes))
        .map_err(|e| Error::io(format!("writing {}", file.display()), e))
}

/// The recovered edits of `server` for the region in `region_dir`, if the split wrote them.
pub fn read(fs: &dyn FileSystem, region_dir: &Path, server: &str) -> Result<Option<Vec<WalEdit>>> {
    let file = path(region_dir, server);
    match read_all(fs, &file) {
        Ok(bytes) => decode(Bytes::from(bytes), &file).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(format!("reading {}", file.display()), e)),
    }
}

/// Removes the recovered edits of `server` for the region in `region_dir` once the region
/// has flushed them (a missing file is fine).
pub fn remove(fs: &dyn FileSystem, region_dir: &Path, server: &str) -> Result<()> {
    let file = path(region_dir, server);
    match fs.remove_file(&file) {
        Ok(()) => {
            tracing::info!(file = %file.display(), "recovered edits replayed and flushed: removed");
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(format!("removing {}", file.display()), e)),
    }
}

#[cfg(test)]
mod tests;
