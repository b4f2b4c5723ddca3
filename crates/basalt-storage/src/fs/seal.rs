//! Sealing a log folder on a shared folder (design §5.3, fencing layer 1, for POSIX).
//!
//! A paused or cut-off server may still hold its log open when the master declares it
//! dead. On a shared folder nothing stops its file descriptor from writing, so the fence
//! is a record the writer looks for after every sync, before it acknowledges:
//!
//! 1. `sealed` is created empty: from here on, the writer acknowledges nothing more.
//! 2. Each segment's length is noted. Whatever a writer synced before step 1 is within it;
//!    whatever comes later was never acknowledged. A segment of format version 3 may be
//!    preallocated or reused, so later writes can land inside the file's length: its
//!    noted length is the end of its last readable record (`scan::sealed_len`).
//! 3. `sealed` is rewritten with `<segment> <length>` lines: replay reads those segments,
//!    each to its length, and nothing else, so every reader of the folder (and a second
//!    run of the recovery) replays the same edits.
//!
//! A second call finds the record and returns it unchanged; one that finds the record
//! still empty (a recovery that stopped between steps 1 and 3) does steps 2 and 3 again,
//! which is safe because nobody has replayed from the folder yet.

use super::{read_all, write_atomic, FileSystem, SealedLogs, SEAL_RECORD};
use crate::wal::segment;
use std::io;
use std::path::Path;

/// Seals the log folder `dir` on `fs` (see the module's story).
pub(super) fn seal_folder(fs: &dyn FileSystem, dir: &Path) -> io::Result<SealedLogs> {
    let record = dir.join(SEAL_RECORD);
    if fs.exists(&record)? {
        let text = read_all(fs, &record)?;
        if !text.is_empty() {
            let text = String::from_utf8_lossy(&text);
            return SealedLogs::decode(&text).ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{}: not a seal record: {text:?}", record.display()),
                )
            });
        }
    } else {
        fs.create_dir_all(dir)?;
        write_atomic(fs, &record, b"")?;
    }
    let mut logs = Vec::new();
    for name in fs.list(dir)? {
        if let Some(id) = segment::parse_file_name(&name) {
            let bytes = read_all(fs, &dir.join(&name))?;
            let len = crate::wal::scan::sealed_len(&bytes, id) as u64;
            logs.push((name, len));
        }
    }
    let sealed = SealedLogs { logs };
    write_atomic(fs, &record, sealed.encode().as_bytes())?;
    tracing::info!(dir = %dir.display(), logs = sealed.logs.len(), "sealed a dead server's log folder");
    Ok(sealed)
}
