//! What is wrong, and how requests learn of it: regions that failed to open (HBase's
//! FAILED_OPEN), the quarantine, and where the catalog and the data folder disagree.
//!
//! A failure is kept in memory only ([`OpenFailure`] on the catalog entry), never written to
//! `hbase:meta`: the region is tried again at the next start, or when its table is disabled
//! and enabled. Until then its requests fail at once with a `NotServingRegionException`
//! naming the region, the file and the cause, of kind [`ErrorKind::DataCorruption`] so that
//! no client retries it (retrying cannot help until an operator acts).

use crate::database::Database;
use crate::error::NOT_SERVING;
use crate::meta::record::RegionRecord;
use basalt_api::{
    ApiError, ClusterHealth, ErrorKind, FailedRegion, Inconsistency, InconsistencyKind,
    QuarantinedItem,
};
use basalt_storage::Error as StorageError;
use basalt_types::escape::to_string_binary;
use basalt_types::TableName;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Why a region could not be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenFailure {
    pub table: TableName,
    /// HBase's region name: `table,start_key,region_id.encoded.`
    pub region_name: String,
    pub encoded_name: String,
    /// The file that could not be read, when the error names one.
    pub file: Option<PathBuf>,
    /// The error, in full (it names the file and offset too).
    pub cause: String,
}

impl OpenFailure {
    pub fn new(record: &RegionRecord, file: Option<PathBuf>, cause: String) -> Self {
        Self {
            table: record.table.clone(),
            region_name: record.region_name(),
            encoded_name: record.encoded_name.clone(),
            file,
            cause,
        }
    }

    /// The failure an engine error opening `record` amounts to.
    pub fn of_storage(record: &RegionRecord, error: &StorageError) -> Self {
        Self::new(record, damaged_file(error), error.to_string())
    }

    /// What a request to the region gets.
    pub fn error(&self) -> ApiError {
        ApiError::new(
            ErrorKind::DataCorruption,
            NOT_SERVING,
            format!(
                "Region {} is FAILED_OPEN: {}. It is not served until it is opened again \
                 (restart, or disable and enable {}); `basalt hbck` reports it",
                self.region_name, self.cause, self.table
            ),
        )
    }

    pub fn report(&self) -> FailedRegion {
        FailedRegion {
            table: self.table.clone(),
            region_name: self.region_name.clone(),
            encoded_name: self.encoded_name.clone(),
            file: self.file.as_ref().map(|f| f.display().to_string()),
            cause: self.cause.clone(),
        }
    }
}

/// The file an engine error names as damaged.
pub fn damaged_file(error: &StorageError) -> Option<PathBuf> {
    match error {
        StorageError::Corruption { file, .. } => Some(file.clone()),
        _ => None,
    }
}

/// Everything [`ClusterHealth`] lists, read under the DDL lock so that no split or create
/// is half done while the folders are compared with the catalog.
pub fn check(db: &Database) -> basalt_api::Result<ClusterHealth> {
    let _ddl = db.ddl.write();
    let catalog = db.catalog.read();
    let mut health = ClusterHealth::default();
    if let Some(failure) = &catalog.meta_failure {
        health.failed_regions.push(failure.report());
    }
    for entry in catalog.tables.values() {
        for region in entry.regions.values() {
            if let Some(failure) = &region.failure {
                health.failed_regions.push(failure.report());
            }
        }
    }
    health.quarantined = quarantined(db.root())?;
    if catalog.meta_failure.is_none() {
        let known: BTreeSet<PathBuf> = catalog
            .tables
            .values()
            .filter(|t| t.descriptor.name != crate::meta::meta_table_name())
            .flat_map(|t| {
                t.regions
                    .values()
                    .map(|e| &e.record)
                    .chain(t.retired.iter())
                    .map(|r| db.region_dir(&t.descriptor, r))
                    .collect::<Vec<_>>()
            })
            .collect();
        let orphan_dirs: BTreeSet<PathBuf> = db
            .orphan_rows
            .lock()
            .iter()
            .map(|r| db.table_dir(&r.table).join(&r.encoded_name))
            .collect();
        for dir in &known {
            if !dir.is_dir() {
                health.inconsistencies.push(Inconsistency {
                    kind: InconsistencyKind::MissingFolder,
                    table: table_of(db.root(), dir),
                    detail: format!(
                        "hbase:meta names region folder {} but it is missing",
                        dir.display()
                    ),
                });
            }
        }
        for dir in region_folders(db.root())? {
            if !known.contains(&dir) && !orphan_dirs.contains(&dir) {
                health.inconsistencies.push(Inconsistency {
                    kind: InconsistencyKind::UnknownFolder,
                    table: table_of(db.root(), &dir),
                    detail: format!("hbase:meta names no region for folder {}", dir.display()),
                });
            }
        }
        for orphan in db.orphan_rows.lock().iter() {
            health.inconsistencies.push(Inconsistency {
                kind: InconsistencyKind::OrphanRow,
                table: orphan.table.to_string(),
                detail: format!(
                    "hbase:meta has a row for region {} but no row for its table",
                    orphan.region_name()
                ),
            });
        }
        for entry in catalog.tables.values() {
            let records: Vec<&RegionRecord> = entry.regions.values().map(|e| &e.record).collect();
            health
                .inconsistencies
                .extend(tiling_problems(&entry.descriptor.name, &records));
        }
    }
    Ok(health)
}

/// The quarantine's items as the API reports them.
pub fn quarantined(root: &Path) -> basalt_api::Result<Vec<QuarantinedItem>> {
    let items = basalt_storage::quarantine::list(root).map_err(|e| {
        crate::error::io(format!(
            "cannot list {}: {e}",
            basalt_storage::quarantine::dir(root).display()
        ))
    })?;
    Ok(items
        .into_iter()
        .map(|i| QuarantinedItem {
            path: i.path.display().to_string(),
            original: i.original,
            reason: if i.present {
                i.reason
            } else {
                format!("{} (the item itself is missing)", i.reason)
            },
            bytes: i.bytes,
            quarantined_at_ms: i.quarantined_at_ms,
        })
        .collect())
}

/// `namespace:table` of a region folder `<root>/data/<ns>/<table>/<region>`.
fn table_of(root: &Path, dir: &Path) -> String {
    let parts: Vec<String> = dir
        .strip_prefix(root.join("data"))
        .unwrap_or(dir)
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    match parts.as_slice() {
        [ns, table, ..] if ns == "default" => table.clone(),
        [ns, table, ..] => format!("{ns}:{table}"),
        _ => dir.display().to_string(),
    }
}

/// Every region folder of every user table on disk (`hbase:meta`'s own is left out).
pub fn region_folders(root: &Path) -> basalt_api::Result<Vec<PathBuf>> {
    let data = root.join("data");
    let mut found = Vec::new();
    for namespace in subfolders(&data)? {
        for table in subfolders(&namespace)? {
            if table.ends_with("hbase/meta") {
                continue;
            }
            found.extend(subfolders(&table)?);
        }
    }
    Ok(found)
}

fn subfolders(dir: &Path) -> basalt_api::Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(crate::error::io(format!(
                "cannot list {}: {e}",
                dir.display()
            )))
        }
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry =
            entry.map_err(|e| crate::error::io(format!("cannot list {}: {e}", dir.display())))?;
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            found.push(entry.path());
        }
    }
    found.sort();
    Ok(found)
}

/// Holes and overlaps among a table's serving regions, sorted by start key: the first
/// must start at the empty key, each must start where the one before ends, the last must
/// end at the empty key.
pub fn tiling_problems(table: &TableName, regions: &[&RegionRecord]) -> Vec<Inconsistency> {
    let mut problems = Vec::new();
    let problem = |kind, detail: String| Inconsistency {
        kind,
        table: table.to_string(),
        detail,
    };
    let mut expected_start: Option<&[u8]> = Some(b"");
    for r in regions {
        match expected_start {
            None => problems.push(problem(
                InconsistencyKind::Overlap,
                format!(
                    "{} starts after the region ending at the last row",
                    r.region_name()
                ),
            )),
            Some(start) if start < r.start_key.as_ref() => problems.push(problem(
                InconsistencyKind::Hole,
                format!(
                    "no region holds rows from '{}' to '{}'",
                    to_string_binary(start),
                    to_string_binary(&r.start_key)
                ),
            )),
            Some(start) if start > r.start_key.as_ref() => problems.push(problem(
                InconsistencyKind::Overlap,
                format!(
                    "{} starts at '{}', inside the region before it (which ends at '{}')",
                    r.region_name(),
                    to_string_binary(&r.start_key),
                    to_string_binary(start)
                ),
            )),
            Some(_) => {}
        }
        expected_start = (!r.end_key.is_empty()).then_some(r.end_key.as_ref());
    }
    match expected_start {
        Some(_) if regions.is_empty() => problems.push(problem(
            InconsistencyKind::Hole,
            "no region holds any row (hbase:meta has no region row of the table)".into(),
        )),
        Some(start) => problems.push(problem(
            InconsistencyKind::Hole,
            format!("no region holds rows from '{}' on", to_string_binary(start)),
        )),
        None => {}
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::record::RegionState;
    use bytes::Bytes;

    fn region(start: &str, end: &str) -> RegionRecord {
        RegionRecord::new(
            TableName::parse("t").expect("valid"),
            1,
            Bytes::from(start.to_string()),
            Bytes::from(end.to_string()),
            RegionState::Open,
        )
    }

    fn kinds(regions: &[RegionRecord]) -> Vec<&'static str> {
        let refs: Vec<&RegionRecord> = regions.iter().collect();
        tiling_problems(&TableName::parse("t").expect("valid"), &refs)
            .iter()
            .map(|p| p.kind.name())
            .collect()
    }

    #[test]
    fn holes_and_overlaps_are_found_in_key_order() {
        assert!(kinds(&[region("", "")]).is_empty());
        assert_eq!(kinds(&[]), ["HOLE"]);
        assert!(kinds(&[region("", "m"), region("m", "")]).is_empty());
        assert_eq!(kinds(&[region("", "k"), region("m", "")]), ["HOLE"]);
        assert_eq!(kinds(&[region("", "p"), region("m", "")]), ["OVERLAP"]);
        assert_eq!(kinds(&[region("b", "")]), ["HOLE"]);
        assert_eq!(kinds(&[region("", "m")]), ["HOLE"]);
        assert_eq!(kinds(&[region("", ""), region("m", "")]), ["OVERLAP"]);
    }
}
