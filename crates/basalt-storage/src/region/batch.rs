//! Batches of puts or deletes on distinct rows of one region, written as one log record
//! with one sync (HBase's mini-batch): a `put(List<Put>)` of a thousand rows costs one
//! fdatasync, not a thousand. The batch is applied atomically, which is more than HBase
//! promises for a batch and never less.

use super::Region;
use crate::{Error, Result};
use basalt_types::{Delete, Put};
use bytes::Bytes;
use std::collections::HashSet;

impl Region {
    /// Writes `puts` (each on a different row of this region) under one sequence id, at
    /// the strongest durability any of them asks for.
    pub fn put_batch(&self, puts: &[Put]) -> Result<()> {
        let rows = distinct_rows(puts.iter().map(|p| &p.row))?;
        let durability = self.strongest(puts.iter().map(|p| p.durability));
        self.write_rows(&rows, durability, |region, now| {
            // Sized up front: a batch of a thousand rows regrowing a vector of 168-byte
            // cells copied megabytes into fresh pages.
            let mut cells = Vec::with_capacity(puts.iter().map(|p| p.cells.len()).sum());
            for put in puts {
                cells.extend(region.put_cells(put, now)?);
            }
            Ok((cells, None))
        })
        .map(|_| ())
    }

    /// Writes `deletes` (each on a different row of this region) under one sequence id.
    pub fn delete_batch(&self, deletes: &[Delete]) -> Result<()> {
        let rows = distinct_rows(deletes.iter().map(|d| &d.row))?;
        let durability = self.strongest(deletes.iter().map(|d| d.durability));
        self.write_rows(&rows, durability, |region, now| {
            let mut cells = Vec::with_capacity(deletes.len());
            for delete in deletes {
                cells.extend(region.delete_cells(delete, now)?);
            }
            Ok((cells, None))
        })
        .map(|_| ())
    }
}

/// The rows, refusing a repeat: two writes of one row in one record would share a
/// sequence id, and the later would not reliably win.
fn distinct_rows<'a>(rows: impl Iterator<Item = &'a Bytes>) -> Result<Vec<Bytes>> {
    let (mut seen, mut out) = (HashSet::new(), Vec::new());
    seen.reserve(rows.size_hint().0);
    out.reserve(rows.size_hint().0);
    for row in rows {
        if !seen.insert(row.clone()) {
            return Err(Error::invalid(format!(
                "row '{}' appears twice in one batch",
                String::from_utf8_lossy(row)
            )));
        }
        out.push(row.clone());
    }
    Ok(out)
}
