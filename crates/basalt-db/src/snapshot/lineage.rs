//! Region lineage for point-in-time restore: which regions a region came from.
//!
//! The catalog forgets a split or merged parent once the janitor cleans it up, and a
//! region's log name (its encoded name) is a hash that says nothing of its table. So when
//! a table keeps its logs (`WAL_RETENTION_SECS`), each region a split, a merge, a restore
//! (or clone), a create or a truncate makes gets a small record, written before the
//! catalog commit that names the region (a crash in between leaves a record of a region that never took an
//! edit, which changes nothing):
//!
//! ```text
//! <root>/snapshots/.lineage/<namespace>/<qualifier>/<encoded region name>
//! | magic "BSLN" | version u32 = 1 | length u32 | value | crc32c u32 of all before |
//! value: | table_len u16 | table | name_len u16 | encoded name | region_id u64 |
//!        | cause u8 (1 split, 2 merge, 3 from a snapshot, 4 create/truncate) |
//!        | parent_count u16 |
//!        | ( name_len u16 | parent's encoded name | parent's region_id u64 ) × count |
//! ```
//!
//! A restore follows a region back to the snapshot's regions through its parents
//! (`pitr::descent`); a region with no parents (made from a snapshot, or empty) starts
//! another history. Records are never rewritten; they stay after the table is dropped (a few
//! dozen bytes each), since a table re-created under the name must not borrow them.

use super::snapshots_dir;
use crate::error::io;
use crate::meta::folder_info::{frame, unframe};
use crate::meta::record::RegionRecord;
use basalt_api::{ApiError, Result};
use basalt_storage::fs::{read_all, write_atomic, FileSystem};
use basalt_types::{TableDescriptor, TableName};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 4] = b"BSLN";
/// The folder under `snapshots/` (a dot name: never a snapshot's).
pub const LINEAGE_DIR: &str = ".lineage";

/// How a region came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// One of a split's two daughters (one parent).
    Split,
    /// A merge of two adjacent regions (two parents).
    Merge,
    /// Written from a snapshot by a restore or a clone: no parents, a history of its own.
    FromSnapshot,
    /// Made empty by a create or a truncate: no parents, a history of its own.
    Created,
}

/// One region's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lineage {
    pub table: TableName,
    /// Its encoded name (folder and log name).
    pub region: String,
    /// Its region id: about its creation's millisecond.
    pub region_id: u64,
    pub cause: Cause,
    /// The regions it replaced: (encoded name, region id).
    pub parents: Vec<(String, u64)>,
}

/// The folder of `table`'s records under data folder (or store) `root`.
pub fn table_dir(root: &Path, table: &TableName) -> PathBuf {
    snapshots_dir(root)
        .join(LINEAGE_DIR)
        .join(table.namespace())
        .join(table.qualifier())
}

/// Writes `lineage`'s record (durably, in one step).
pub fn record_on(fs: &dyn FileSystem, root: &Path, lineage: &Lineage) -> Result<()> {
    let dir = table_dir(root, &lineage.table);
    fs.create_dir_all(&dir)
        .map_err(|e| io(format!("cannot create {}: {e}", dir.display())))?;
    let file = dir.join(&lineage.region);
    write_atomic(fs, &file, &frame(MAGIC, &encode(lineage))).map_err(|e| {
        io(format!(
            "cannot write region lineage {}: {e}",
            file.display()
        ))
    })?;
    tracing::debug!(table = %lineage.table, region = %lineage.region, cause = ?lineage.cause, "region lineage recorded");
    Ok(())
}

/// Records each of `children` (made by `cause` from `parents`) when `descriptor` keeps
/// its logs (a table that keeps none cannot be rolled forward; a restore across a time
/// it kept none is refused for want of the logs, and of these records).
pub fn record_children(
    fs: &dyn FileSystem,
    root: &Path,
    descriptor: &TableDescriptor,
    cause: Cause,
    children: &[&RegionRecord],
    parents: &[&RegionRecord],
) -> Result<()> {
    if descriptor.wal_retention_secs().is_none() {
        return Ok(());
    }
    for child in children {
        let lineage = Lineage {
            table: child.table.clone(),
            region: child.encoded_name.clone(),
            region_id: child.region_id,
            cause,
            parents: parents
                .iter()
                .map(|p| (p.encoded_name.clone(), p.region_id))
                .collect(),
        };
        record_on(fs, root, &lineage)?;
    }
    Ok(())
}

/// Every record of `table`; a damaged one is an error naming its file (a restore that
/// cannot tell a region's history must not guess).
pub fn read_table_on(fs: &dyn FileSystem, root: &Path, table: &TableName) -> Result<Vec<Lineage>> {
    let dir = table_dir(root, table);
    let names = match fs.exists(&dir) {
        Ok(false) => return Ok(Vec::new()),
        Ok(true) => fs.list(&dir),
        Err(e) => Err(e),
    }
    .map_err(|e| io(format!("cannot list {}: {e}", dir.display())))?;
    let mut out = Vec::new();
    for name in names.iter().filter(|n| !n.ends_with(".tmp")) {
        let file = dir.join(name);
        let bytes =
            read_all(fs, &file).map_err(|e| io(format!("cannot read {}: {e}", file.display())))?;
        let value = unframe(MAGIC, &bytes, &file).map_err(|e| ApiError::invalid(e.to_string()))?;
        let lineage = decode(value).ok_or_else(|| {
            ApiError::invalid(format!("region lineage {} is damaged", file.display()))
        })?;
        out.push(lineage);
    }
    Ok(out)
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u16).to_be_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// The value's bytes (before framing).
pub fn encode(l: &Lineage) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + 40 * l.parents.len());
    put_str(&mut out, &l.table.to_string());
    put_str(&mut out, &l.region);
    out.extend_from_slice(&l.region_id.to_be_bytes());
    out.push(match l.cause {
        Cause::Split => 1,
        Cause::Merge => 2,
        Cause::FromSnapshot => 3,
        Cause::Created => 4,
    });
    out.extend_from_slice(&(l.parents.len() as u16).to_be_bytes());
    for (name, id) in &l.parents {
        put_str(&mut out, name);
        out.extend_from_slice(&id.to_be_bytes());
    }
    out
}

/// Reads [`encode`]'s bytes; `None` when they are not that.
pub fn decode(bytes: &[u8]) -> Option<Lineage> {
    let mut c = super::manifest::Reader(bytes);
    let table = TableName::parse(&c.text_short()?).ok()?;
    let region = c.text_short()?;
    let region_id = c.u64()?;
    let cause = match c.u8()? {
        1 => Cause::Split,
        2 => Cause::Merge,
        3 => Cause::FromSnapshot,
        4 => Cause::Created,
        _ => return None,
    };
    let count = c.u16()?;
    let mut parents = Vec::with_capacity(usize::from(count));
    for _ in 0..count {
        parents.push((c.text_short()?, c.u64()?));
    }
    c.0.is_empty().then_some(Lineage {
        table,
        region,
        region_id,
        cause,
        parents,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_storage::fs::LocalFs;

    fn merge() -> Lineage {
        Lineage {
            table: TableName::parse("ns:t").expect("valid"),
            region: "m".repeat(32),
            region_id: 1_764_000_000_123,
            cause: Cause::Merge,
            parents: vec![("a".repeat(32), 11), ("b".repeat(32), 12)],
        }
    }

    #[test]
    fn a_record_round_trips_and_damage_is_named() {
        let dir = tempfile::tempdir().expect("dir");
        let l = merge();
        record_on(&LocalFs, dir.path(), &l).expect("write");
        let t = l.table.clone();
        assert_eq!(read_table_on(&LocalFs, dir.path(), &t), Ok(vec![l.clone()]));
        let other = TableName::parse("ns:u").expect("valid");
        assert_eq!(read_table_on(&LocalFs, dir.path(), &other), Ok(vec![]));
        let file = table_dir(dir.path(), &t).join(&l.region);
        let mut bytes = std::fs::read(&file).expect("read");
        bytes[20] ^= 1;
        std::fs::write(&file, bytes).expect("write");
        let err = read_table_on(&LocalFs, dir.path(), &t).expect_err("damaged");
        assert!(err.message.contains(&l.region), "{err}");
    }

    #[test]
    fn a_truncated_or_unknown_value_is_refused() {
        let bytes = encode(&merge());
        for len in 0..bytes.len() {
            assert_eq!(decode(&bytes[..len]), None, "{len}");
        }
        let mut extra = bytes.clone();
        extra.push(0);
        assert_eq!(decode(&extra), None);
    }
}
