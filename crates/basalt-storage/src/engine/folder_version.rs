//! `<root>/VERSION`: the data folder's layout version, checked before anything else in the
//! folder is read or changed, so that an older Basalt refuses a folder laid out by a newer
//! one instead of replaying, or cleaning up, what it does not understand.
//!
//! One line of text, written once when the folder is created (or first opened by a version
//! that writes it; a folder without the file is a version-1 folder):
//!
//! ```text
//! basalt data folder format 1\n
//! ```
//!
//! Version 1 is the layout of [`super`]: `wal/` and `data/<namespace>/<table>/<region>/`,
//! with the catalog in the `hbase:meta` region. Version 2 is a standalone folder served as
//! a cluster in one process: the same files, a log folder per region-server incarnation
//! (`wal/<server>/`) and the catalog in the in-process coordinator's `coordinator/`. The
//! engine reads both; only `basalt standalone` (and the tools that run it in process)
//! writes version 2, and the embedded catalog (`basalt_db::Database::open`) refuses it
//! rather than take the folder for one without a catalog. Each file kind in it carries
//! its own format version as well.

use crate::fs::{self, FileSystem};
use crate::{Error, FileKind, Result};
use std::path::Path;

pub const FILE_NAME: &str = "VERSION";
/// The layout version a new folder gets from the engine.
pub const VERSION: u32 = 1;
/// A standalone folder whose catalog is in `coordinator/` (the newest this code reads).
pub const COORDINATED: u32 = 2;
const PREFIX: &str = "basalt data folder format ";

/// The file's contents for `version`.
pub fn encode(version: u32) -> String {
    format!("{PREFIX}{version}\n")
}

/// Checks `<root>/VERSION`, writing version 1 when absent; the folder's version.
pub fn check_or_create(fs: &dyn FileSystem, root: &Path) -> Result<u32> {
    if let Some(version) = read(fs, root)? {
        return Ok(version);
    }
    write(fs, root, VERSION)?;
    Ok(VERSION)
}

/// Writes `<root>/VERSION` (atomically) as `version`.
pub fn write(fs: &dyn FileSystem, root: &Path, version: u32) -> Result<()> {
    let path = root.join(FILE_NAME);
    fs::write_atomic(fs, &path, encode(version).as_bytes())
        .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
    tracing::info!(file = %path.display(), version, "wrote the data folder's version");
    Ok(())
}

/// The folder's version, None when it has no `VERSION` file; a damaged one or one newer
/// than this code reads is an error naming the file.
pub fn read(fs: &dyn FileSystem, root: &Path) -> Result<Option<u32>> {
    let path = root.join(FILE_NAME);
    let exists = fs
        .exists(&path)
        .map_err(|e| Error::io(format!("checking {}", path.display()), e))?;
    if !exists {
        return Ok(None);
    }
    let bytes =
        fs::read_all(fs, &path).map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    let version = std::str::from_utf8(&bytes)
        .ok()
        .and_then(|text| {
            text.strip_prefix(PREFIX)?
                .strip_suffix('\n')?
                .parse::<u32>()
                .ok()
        })
        .filter(|v| *v > 0)
        .ok_or_else(|| {
            Error::corruption(
                FileKind::FolderVersion,
                &path,
                0,
                format!(
                    "not a data folder version ({:?}); expected {:?}",
                    String::from_utf8_lossy(&bytes),
                    encode(VERSION)
                ),
            )
        })?;
    if version > COORDINATED {
        return Err(Error::newer_format(
            &path,
            "data folder",
            version,
            COORDINATED,
        ));
    }
    Ok(Some(version))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::LocalFs;

    #[test]
    fn written_once_then_checked() {
        let dir = tempfile::tempdir().expect("temp dir");
        check_or_create(&LocalFs, dir.path()).expect("creates");
        let path = dir.path().join(FILE_NAME);
        let text = std::fs::read_to_string(&path).expect("read");
        assert_eq!(text, "basalt data folder format 1\n");
        check_or_create(&LocalFs, dir.path()).expect("checks");
        for bad in [
            "",
            "basalt data folder format 1",
            "basalt data folder format x\n",
            "format 0\n",
        ] {
            std::fs::write(&path, bad).expect("write");
            let err = check_or_create(&LocalFs, dir.path()).expect_err(bad);
            assert!(matches!(err, Error::Corruption { .. }), "{bad:?}: {err}");
        }
        std::fs::write(&path, encode(2)).expect("write");
        assert_eq!(check_or_create(&LocalFs, dir.path()).expect("reads 2"), 2);
        std::fs::write(&path, encode(3)).expect("write");
        let err = check_or_create(&LocalFs, dir.path()).expect_err("newer");
        assert_eq!(
            err.to_string(),
            format!(
                "data folder format version 3 in {} is newer than this Basalt supports (2); upgrade Basalt",
                path.display()
            )
        );
    }
}
