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
//! Version 1 is the layout of [`super`]: `wal/` and `data/<namespace>/<table>/<region>/`.
//! Each file kind in it carries its own format version as well.

use crate::fs::{self, FileSystem};
use crate::{Error, FileKind, Result};
use std::path::Path;

pub const FILE_NAME: &str = "VERSION";
/// The layout version this code writes and reads.
pub const VERSION: u32 = 1;
const PREFIX: &str = "basalt data folder format ";

/// The file's contents for `version`.
pub fn encode(version: u32) -> String {
    format!("{PREFIX}{version}\n")
}

/// Checks `<root>/VERSION`, writing it when absent.
pub fn check_or_create(fs: &dyn FileSystem, root: &Path) -> Result<()> {
    let path = root.join(FILE_NAME);
    let exists = fs
        .exists(&path)
        .map_err(|e| Error::io(format!("checking {}", path.display()), e))?;
    if !exists {
        fs::write_atomic(fs, &path, encode(VERSION).as_bytes())
            .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
        tracing::info!(file = %path.display(), version = VERSION, "wrote the data folder's version");
        return Ok(());
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
    if version > VERSION {
        return Err(Error::newer_format(&path, "data folder", version, VERSION));
    }
    Ok(())
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
        let err = check_or_create(&LocalFs, dir.path()).expect_err("newer");
        assert_eq!(
            err.to_string(),
            format!(
                "data folder format version 2 in {} is newer than this Basalt supports (1); upgrade Basalt",
                path.display()
            )
        );
    }
}
