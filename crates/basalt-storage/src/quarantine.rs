//! The quarantine: where start-up and `basalt hbck` put what they will not serve but must
//! not delete — a region folder the catalog does not name, a store file no manifest names,
//! a damaged store file an operator set aside.
//!
//! ```text
//! <root>/quarantine/<path relative to root>           the item, moved there as it was
//! <root>/quarantine/<path relative to root>.reason    text: where from, why, when
//! ```
//! An item keeps its path below the data root, so `quarantine/data/default/t/<region>` is
//! what was `data/default/t/<region>`; a second item of the same path gets a `~N` suffix.
//! The reason file is written (durably) before the item moves, so a crash between the two
//! leaves a reason without its item (listed as missing), never an item without a reason.
//!
//! Nothing here goes by age. Only [`purge`], which an operator runs explicitly
//! (`basalt hbck --purge-quarantine`), deletes items, logging each one.

use crate::fs::{self, FileSystem};
use crate::{Error, Result};
use std::io;
use std::path::{Path, PathBuf};

/// The quarantine folder's name under the data root.
pub const DIR: &str = "quarantine";

/// The suffix of an item's reason file.
const REASON_SUFFIX: &str = ".reason";

/// How many `~N` suffixes are tried before giving up on a free name.
const SUFFIXES_MAX: u32 = 1000;

/// The quarantine folder of the data root `root`.
pub fn dir(root: &Path) -> PathBuf {
    root.join(DIR)
}

/// One quarantined item, as [`list`] finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Where the item is now, relative to the data root (`quarantine/...`).
    pub path: PathBuf,
    /// Where it was, relative to the data root.
    pub original: String,
    pub reason: String,
    /// When it was moved, ms since the epoch.
    pub quarantined_at_ms: i64,
    /// Bytes it holds (a folder: every file below it); 0 when missing.
    pub bytes: u64,
    /// False when the reason file is there but the item is not (the move was interrupted,
    /// or someone removed it by hand).
    pub present: bool,
}

/// Moves `item` (a file or a folder under `root`) into the quarantine with `reason`;
/// returns its new path. Logged at warn.
pub fn move_in(
    fs: &dyn FileSystem,
    root: &Path,
    item: &Path,
    reason: &str,
    now_ms: i64,
) -> Result<PathBuf> {
    let relative = item.strip_prefix(root).map_err(|_| {
        Error::invalid(format!(
            "cannot quarantine {}: it is not under the data folder {}",
            item.display(),
            root.display()
        ))
    })?;
    let io_err = |what: &str, path: &Path, e: io::Error| {
        Error::io(format!("quarantine: {what} {}", path.display()), e)
    };
    let target = free_name(fs, &dir(root).join(relative))?;
    let parent = target.parent().unwrap_or(root).to_path_buf();
    fs.create_dir_all(&parent)
        .map_err(|e| io_err("creating", &parent, e))?;
    let text = format!(
        "original: {}\nreason: {}\nquarantined_at_ms: {now_ms}\n",
        relative.display(),
        reason.replace('\n', " ")
    );
    let reason_path = reason_path(&target);
    fs::write_atomic(fs, &reason_path, text.as_bytes())
        .map_err(|e| io_err("writing", &reason_path, e))?;
    fs.rename(item, &target)
        .map_err(|e| io_err("moving into", &target, e))?;
    fs.sync_dir(&parent)
        .map_err(|e| io_err("syncing", &parent, e))?;
    if let Some(from) = item.parent() {
        fs.sync_dir(from).map_err(|e| io_err("syncing", from, e))?;
    }
    tracing::warn!(from = %item.display(), to = %target.display(), reason, "moved to quarantine");
    Ok(target)
}

/// `path`, or the first `path~N` that neither exists nor has a reason file.
fn free_name(fs: &dyn FileSystem, path: &Path) -> Result<PathBuf> {
    let taken = |p: &Path| -> Result<bool> {
        let exists = |p: &Path| {
            fs.exists(p)
                .map_err(|e| Error::io(format!("quarantine: checking {}", p.display()), e))
        };
        Ok(exists(p)? || exists(&reason_path(p))?)
    };
    if !taken(path)? {
        return Ok(path.to_path_buf());
    }
    for n in 1..=SUFFIXES_MAX {
        let mut name = path.as_os_str().to_os_string();
        name.push(format!("~{n}"));
        let candidate = PathBuf::from(name);
        if !taken(&candidate)? {
            return Ok(candidate);
        }
    }
    Err(Error::invalid(format!(
        "quarantine: {SUFFIXES_MAX} items named {} already",
        path.display()
    )))
}

fn reason_path(item: &Path) -> PathBuf {
    let mut name = item.as_os_str().to_os_string();
    name.push(REASON_SUFFIX);
    PathBuf::from(name)
}

/// Every quarantined item under `root`, sorted by path. An empty list when there is no
/// quarantine folder.
pub fn list(root: &Path) -> io::Result<Vec<Item>> {
    let mut reasons = Vec::new();
    collect_reasons(&dir(root), &mut reasons)?;
    reasons.sort();
    let mut items = Vec::with_capacity(reasons.len());
    for reason_file in reasons {
        let text = std::fs::read_to_string(&reason_file)?;
        let name = reason_file.to_string_lossy();
        let item_path = PathBuf::from(name.strip_suffix(REASON_SUFFIX).unwrap_or(&name));
        let field = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key))
                .map(|v| v.trim().to_string())
                .unwrap_or_default()
        };
        let present = item_path.symlink_metadata().is_ok();
        items.push(Item {
            path: item_path
                .strip_prefix(root)
                .unwrap_or(&item_path)
                .to_path_buf(),
            original: field("original:"),
            reason: field("reason:"),
            quarantined_at_ms: field("quarantined_at_ms:").parse().unwrap_or(0),
            bytes: if present { size_of(&item_path)? } else { 0 },
            present,
        });
    }
    Ok(items)
}

/// Reason files below `dir`: an item's own folder is not searched (reason files sit beside
/// their items, never inside them).
fn collect_reasons(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let mut items = Vec::new();
    let mut folders = Vec::new();
    for entry in entries {
        let entry = entry?;
        let path = entry.path();
        if path.to_string_lossy().ends_with(REASON_SUFFIX) {
            items.push(path);
        } else if entry.file_type()?.is_dir() {
            folders.push(path);
        }
    }
    for folder in folders {
        if !items.contains(&reason_path(&folder)) {
            collect_reasons(&folder, out)?;
        }
    }
    out.extend(items);
    Ok(())
}

/// Bytes of a file, or of every file below a folder.
fn size_of(path: &Path) -> io::Result<u64> {
    let meta = path.symlink_metadata()?;
    if !meta.is_dir() {
        return Ok(meta.len());
    }
    let mut total = 0;
    for entry in std::fs::read_dir(path)? {
        total += size_of(&entry?.path())?;
    }
    Ok(total)
}

/// Deletes every quarantined item and its reason file, logging each at warn, then the
/// folders left empty; returns what was deleted. Run only on an operator's explicit order.
pub fn purge(root: &Path) -> io::Result<Vec<Item>> {
    let items = list(root)?;
    for item in &items {
        let path = root.join(&item.path);
        if item.present {
            if path.symlink_metadata()?.is_dir() {
                std::fs::remove_dir_all(&path)?;
            } else {
                std::fs::remove_file(&path)?;
            }
        }
        std::fs::remove_file(reason_path(&path))?;
        tracing::warn!(item = %item.path.display(), original = %item.original, bytes = item.bytes,
            reason = %item.reason, "purged from quarantine on the operator's order");
    }
    remove_empty_folders(&dir(root))?;
    Ok(items)
}

/// Removes `dir` and the folders below it that hold no file.
fn remove_empty_folders(dir: &Path) -> io::Result<bool> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(true),
        Err(e) => return Err(e),
    };
    let mut empty = true;
    for entry in entries {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            empty &= remove_empty_folders(&entry.path())?;
        } else {
            empty = false;
        }
    }
    if empty {
        std::fs::remove_dir(dir)?;
    }
    Ok(empty)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::LocalFs;

    #[test]
    fn items_keep_their_path_and_reason_until_purged() {
        let root = tempfile::tempdir().expect("temp dir");
        let region = root.path().join("data/default/t/abc");
        std::fs::create_dir_all(region.join("cf")).expect("mkdir");
        std::fs::write(region.join("cf/1.hfile"), b"12345").expect("write");
        let file = root.path().join("data/default/u/def/cf/2.hfile");
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        std::fs::write(&file, b"123").expect("write");

        let moved = move_in(&LocalFs, root.path(), &region, "not in the catalog", 7).expect("move");
        assert_eq!(moved, root.path().join("quarantine/data/default/t/abc"));
        move_in(&LocalFs, root.path(), &file, "damaged\nindex", 8).expect("move");
        // The same path again gets a suffix.
        std::fs::create_dir_all(&region).expect("mkdir");
        let again = move_in(&LocalFs, root.path(), &region, "again", 9).expect("move");
        assert_eq!(again, root.path().join("quarantine/data/default/t/abc~1"));
        assert!(!region.exists() && !file.exists());

        let items = list(root.path()).expect("list");
        let shown: Vec<_> = items
            .iter()
            .map(|i| {
                (
                    i.path.display().to_string(),
                    i.original.as_str(),
                    i.reason.as_str(),
                    i.bytes,
                )
            })
            .collect();
        assert_eq!(
            shown,
            vec![
                (
                    "quarantine/data/default/t/abc".into(),
                    "data/default/t/abc",
                    "not in the catalog",
                    5
                ),
                (
                    "quarantine/data/default/t/abc~1".into(),
                    "data/default/t/abc",
                    "again",
                    0
                ),
                (
                    "quarantine/data/default/u/def/cf/2.hfile".into(),
                    "data/default/u/def/cf/2.hfile",
                    "damaged index",
                    3
                ),
            ]
        );
        assert!(items.iter().all(|i| i.present));

        let purged = purge(root.path()).expect("purge");
        assert_eq!(purged.len(), 3);
        assert!(list(root.path()).expect("list").is_empty());
        assert!(!dir(root.path()).exists(), "empty folders are removed too");
    }

    #[test]
    fn an_item_outside_the_root_is_refused() {
        let root = tempfile::tempdir().expect("temp dir");
        let other = tempfile::tempdir().expect("temp dir");
        let err = move_in(&LocalFs, root.path(), other.path(), "x", 0).expect_err("outside");
        assert!(
            err.to_string().contains("not under the data folder"),
            "{err}"
        );
    }
}
