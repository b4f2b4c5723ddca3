//! Snapshots (HBase's `snapshot`, `clone_snapshot`, `restore_snapshot`): a table's store
//! files at one point, kept as second names (hard links) of the files, so that nothing is
//! copied and no file a snapshot or a clone names is ever lost.
//!
//! ```text
//! <root>/snapshots/<name>/SNAPSHOT                          the manifest (manifest.rs), written last
//! <root>/snapshots/<name>/<region>/<family>/<id>.hfile      links to the region's files
//! <root>/snapshots/.tmp/<name>/                             a snapshot being taken
//! ```
//!
//! **Why links.** A store file's bytes stay on disk while any name of it remains: the
//! table's (until a compaction, a drop, a truncate or the janitor removes it), a
//! snapshot's, a clone's. The file system counts the names, so a compaction or a drop
//! deletes what it always deleted, and a dropped source table leaves its clones whole.
//! Deleting a snapshot removes its names only (an explicit, logged step); the bytes go
//! with the last name.
//!
//! **On an object store** there are no links; its file system
//! (`basalt_store::fs::links`) gives the same contract with link objects, a
//! back-reference per link, and an archive: a file a link names is moved there when the
//! table lets it go, and the master's cleaner deletes it once no link names it:
//!
//! ```text
//! snapshots/s/<r>/<f>/<id>.hfile  --link-->  data/<ns>/<t>/<r>/<f>/<id>.hfile   (T)
//! links/T/<hash of the link's key>           the back-reference, written before the link
//! compaction / drop / truncate / janitor of T: back-references? -> archive/T, else delete
//! a link reads T, or archive/T once T is gone; the cleaner deletes archive/T, logged,
//! once links/T/ is empty
//! ```
//!
//! The steps below are the same on both; only `hard_link` and the deletes differ.
//!
//! **No half snapshot.** A snapshot is built under `.tmp/<name>/` — links first, the
//! manifest last — then its folder is renamed to `<name>/` in one step. Only folders with a
//! valid manifest are listed; a leftover `.tmp/<name>/` (a crash mid-snapshot) holds links
//! only and is moved to the quarantine when the name is taken again.
//!
//! # Layout
//! - [`manifest`]: the `SNAPSHOT` file.
//! - [`take`]: taking one: flush, compact away split references, link, commit.
//! - [`pitr`]: point-in-time restore: the refusal rule, and the kept logs' edits after the
//!   snapshot (its regions' and their descendants' by splits and merges) written as store
//!   files for the restored regions.
//! - [`lineage`]: for tables keeping their logs, each region a split, merge, restore or
//!   clone makes is recorded with its parents (`snapshots/.lineage/`).
//! - [`clone`]: a new table from a snapshot, and a disabled table rolled back to one.
//! - this file: names, listing, deleting, and the cleaner of expired snapshots.

pub mod clone;
pub mod lineage;
pub mod manifest;
pub mod pitr;
pub mod take;

use crate::database::Database;
use crate::error::io;
use basalt_api::snapshot::SNAPSHOT_DOES_NOT_EXIST;
use basalt_api::{ApiError, ErrorKind, Result, SnapshotDescription};
use basalt_storage::fs::FileSystem;
use basalt_types::TableDescriptor;
use manifest::SnapshotManifest;
use std::path::{Path, PathBuf};

/// The manifest's file name in a snapshot folder.
pub const MANIFEST: &str = "SNAPSHOT";
/// Snapshots being taken.
const TMP: &str = ".tmp";

/// The folder of every snapshot.
pub fn snapshots_dir(root: &Path) -> PathBuf {
    root.join("snapshots")
}

pub fn snapshot_dir(root: &Path, name: &str) -> PathBuf {
    snapshots_dir(root).join(name)
}

pub fn tmp_dir(root: &Path, name: &str) -> PathBuf {
    snapshots_dir(root).join(TMP).join(name)
}

/// Refuses a name HBase would refuse: letters, digits, `_`, `-` and `.`, not starting with
/// `.` or `-`.
pub fn check_name(name: &str) -> Result<()> {
    let legal = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    if name.is_empty()
        || name.starts_with(['.', '-'])
        || !name.chars().all(legal)
        || name.len() > 255
    {
        return Err(ApiError::invalid(format!(
            "Illegal snapshot name '{name}': only letters, digits, '_', '-' and '.' \
             (not first) are allowed"
        )));
    }
    Ok(())
}

pub(crate) fn not_found(name: &str) -> ApiError {
    ApiError::new(
        ErrorKind::NotFound,
        SNAPSHOT_DOES_NOT_EXIST,
        format!("Snapshot '{name}' doesn't exist on the filesystem"),
    )
}

/// Reads snapshot `name`'s manifest.
pub fn read(db: &Database, name: &str) -> Result<SnapshotManifest> {
    read_on(db.engine.context().fs.as_ref(), &db.root, name)
}

/// Reads snapshot `name`'s manifest under the data folder `root` on `fs`.
pub fn read_on(fs: &dyn FileSystem, root: &Path, name: &str) -> Result<SnapshotManifest> {
    check_name(name)?;
    let file = snapshot_dir(root, name).join(MANIFEST);
    match basalt_storage::fs::read_all(fs, &file) {
        Ok(bytes) => SnapshotManifest::decode(&bytes, &file.display().to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(not_found(name)),
        Err(e) => Err(io(format!("cannot read {}: {e}", file.display()))),
    }
}

/// Every completed snapshot (a folder with a readable manifest), by name. A folder whose
/// manifest is damaged is named in a warning and left alone.
pub fn all_on(fs: &dyn FileSystem, root: &Path) -> Result<Vec<SnapshotManifest>> {
    let dir = snapshots_dir(root);
    let names = fs
        .list(&dir)
        .map_err(|e| io(format!("cannot list {}: {e}", dir.display())))?;
    let mut out = Vec::new();
    for name in names.iter().filter(|n| check_name(n).is_ok()) {
        match read_on(fs, root, name) {
            Ok(m) => out.push(m),
            Err(e) if e.kind == ErrorKind::NotFound => {}
            Err(e) => tracing::warn!(snapshot = %name, error = %e, "snapshot not listed"),
        }
    }
    Ok(out)
}

pub fn describe(m: &SnapshotManifest) -> SnapshotDescription {
    SnapshotDescription {
        name: m.name.clone(),
        table: m.table.clone(),
        creation_time_ms: m.creation_ms,
        ttl_secs: m.ttl_secs,
        version: manifest::VERSION,
    }
}

/// `list_snapshots`: the snapshots whose whole name matches `pattern`.
pub fn list(db: &Database, pattern: Option<&str>) -> Result<Vec<SnapshotDescription>> {
    list_on(db.engine.context().fs.as_ref(), &db.root, pattern)
}

/// As [`list`], under the data folder `root` on `fs`.
pub fn list_on(
    fs: &dyn FileSystem,
    root: &Path,
    pattern: Option<&str>,
) -> Result<Vec<SnapshotDescription>> {
    let matcher = match pattern {
        Some(p) => Some(
            regex::Regex::new(&format!("^(?:{p})$"))
                .map_err(|e| ApiError::invalid(format!("bad snapshot pattern '{p}': {e}")))?,
        ),
        None => None,
    };
    Ok(all_on(fs, root)?
        .iter()
        .filter(|m| matcher.as_ref().is_none_or(|r| r.is_match(&m.name)))
        .map(describe)
        .collect())
}

/// `delete_snapshot`: the manifest goes first (the snapshot is no longer listed), then its
/// links; a file's bytes stay while the table or a clone still names it.
pub fn delete(db: &Database, name: &str) -> Result<()> {
    let _ddl = db.ddl.write();
    delete_on(
        db.engine.context().fs.as_ref(),
        &db.root,
        name,
        "deleted by request",
    )
}

/// Deletes snapshot `name` under `root` on `fs`, logging `why`.
pub fn delete_on(fs: &dyn FileSystem, root: &Path, name: &str, why: &str) -> Result<()> {
    let manifest = read_on(fs, root, name)?;
    let dir = snapshot_dir(root, name);
    let file = dir.join(MANIFEST);
    tracing::info!(snapshot = %name, table = %manifest.table, reason = why,
        "deleting a snapshot: its manifest, then its links");
    fs.remove_file(&file)
        .map_err(|e| io(format!("cannot remove {}: {e}", file.display())))?;
    fs.remove_dir_all(&dir)
        .map_err(|e| io(format!("cannot remove {}: {e}", dir.display())))
}

/// The snapshots under `root` whose TTL ran out at `now_ms`, with why.
pub fn expired_on(fs: &dyn FileSystem, root: &Path, now_ms: i64) -> Result<Vec<(String, String)>> {
    Ok(all_on(fs, root)?
        .into_iter()
        .filter(|m| m.expired(now_ms))
        .map(|m| {
            let why = format!(
                "its TTL of {}s since {} ran out",
                m.ttl_secs.unwrap_or(0),
                m.creation_ms
            );
            (m.name, why)
        })
        .collect())
}

/// The longest `WAL_RETENTION_SECS` among `descriptors` (`None`: no table keeps logs).
pub fn longest_retention<'a>(
    descriptors: impl IntoIterator<Item = &'a TableDescriptor>,
) -> Option<u64> {
    descriptors
        .into_iter()
        .filter_map(TableDescriptor::wal_retention_secs)
        .max()
}

/// Removes the kept log segments under `root` past `keep_secs` (the longest retention of
/// the tables keeping logs now; `None`: nothing goes); see `basalt_storage::wal::expire`.
/// Returns how many went.
pub fn expire_kept_logs_on(
    fs: &dyn FileSystem,
    root: &Path,
    keep_secs: Option<u64>,
    now_ms: i64,
) -> Result<usize> {
    let Some(keep_secs) = keep_secs else {
        return Ok(0);
    };
    let now = u64::try_from(now_ms).unwrap_or(0);
    let gone =
        basalt_storage::wal::expire::expire_retained(fs, root, keep_secs.saturating_mul(1000), now)
            .map_err(crate::error::from_storage)?;
    Ok(gone.len())
}

/// [`expire_kept_logs_on`] for the embedded database.
pub fn expire_kept_logs(db: &Database) -> Result<usize> {
    let keep_secs = longest_retention(
        db.catalog
            .read()
            .tables
            .values()
            .map(|t| t.descriptor.as_ref()),
    );
    let fs = db.engine.context().fs.clone();
    expire_kept_logs_on(fs.as_ref(), &db.root, keep_secs, db.clock.now_ms())
}

/// The cleaner: deletes every snapshot whose TTL ran out (each one logged). Returns how
/// many went.
pub fn expire(db: &Database) -> Result<usize> {
    let fs = db.engine.context().fs.clone();
    let expired = expired_on(fs.as_ref(), &db.root, db.clock.now_ms())?;
    for (name, why) in &expired {
        let _ddl = db.ddl.write();
        delete_on(fs.as_ref(), &db.root, name, why)?;
    }
    Ok(expired.len())
}
