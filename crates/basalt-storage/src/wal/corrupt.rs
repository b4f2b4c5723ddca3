//! `wal/corrupt/`: where damaged log bytes are kept instead of deleted.
//!
//! Nothing in the log is deleted on inference. A segment no region needs, a segment set
//! aside by `--skip-corrupt-wal` and the bytes cut from a torn tail all land here, named
//! after their segment (`wal-<id>.log`, `wal-<id>.log.tail-at-<offset>`), with `.1`, `.2`,
//! ... appended if the name is taken. Replay never reads this folder; an operator removes
//! what is in it.

use super::segment;
use crate::error::{Error, Result};
use crate::fs::FileSystem;
use std::path::{Path, PathBuf};

pub const CORRUPT_DIR: &str = "corrupt";

/// `<wal>/corrupt`.
pub fn dir(wal_dir: &Path) -> PathBuf {
    wal_dir.join(CORRUPT_DIR)
}

/// The highest segment id named in the corrupt folder, so that a new segment never takes
/// the id of one kept there.
pub fn highest_id(fs: &dyn FileSystem, wal_dir: &Path) -> Result<Option<u64>> {
    let dir = dir(wal_dir);
    let names = fs
        .list(&dir)
        .map_err(|e| Error::io(format!("listing {}", dir.display()), e))?;
    Ok(names
        .iter()
        .filter_map(|name| {
            let end = name.find(".log")? + ".log".len();
            segment::parse_file_name(&name[..end])
        })
        .max())
}

/// Moves `file` (in the log folder) into the corrupt folder; returns where it went.
pub fn move_aside(fs: &dyn FileSystem, wal_dir: &Path, file: &Path) -> Result<PathBuf> {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let to = free_path(fs, wal_dir, &name)?;
    fs.rename(file, &to)
        .and_then(|()| fs.sync_dir(&dir(wal_dir)))
        .and_then(|()| fs.sync_dir(wal_dir))
        .map_err(|e| {
            let what = format!("moving {} to {}", file.display(), to.display());
            Error::io(what, e)
        })?;
    Ok(to)
}

/// Writes `bytes` durably as `name` in the corrupt folder; returns the path.
pub fn keep_copy(fs: &dyn FileSystem, wal_dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf> {
    let to = free_path(fs, wal_dir, name)?;
    let write = || -> std::io::Result<()> {
        let mut file = fs.create(&to)?;
        file.write_all(bytes)?;
        file.sync_data()?;
        fs.sync_dir(&dir(wal_dir))
    };
    write().map_err(|e| Error::io(format!("keeping damaged log bytes in {}", to.display()), e))?;
    Ok(to)
}

/// `name` in the corrupt folder (created if missing), or `name.N` if that is taken.
fn free_path(fs: &dyn FileSystem, wal_dir: &Path, name: &str) -> Result<PathBuf> {
    let dir = dir(wal_dir);
    let io = |e| Error::io(format!("preparing {}", dir.display()), e);
    fs.create_dir_all(&dir)
        .and_then(|()| fs.sync_dir(wal_dir))
        .map_err(io)?;
    let mut path = dir.join(name);
    let mut n = 0u32;
    while fs.exists(&path).map_err(io)? {
        n += 1;
        path = dir.join(format!("{name}.{n}"));
    }
    Ok(path)
}
