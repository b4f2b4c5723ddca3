//! Atomic mutations across rows of one region (HBase's `MultiRowMutationEndpoint`), which
//! the catalog uses to change several `hbase:meta` rows at once.

use super::Region;
use crate::{Error, Result};
use basalt_types::{Durability, Mutation, RowMutations};
use bytes::Bytes;

impl Region {
    /// Applies puts and deletes to several rows of this region atomically: one sequence
    /// id, one log record, visible together. Increments and appends are not accepted.
    pub fn mutate_rows(&self, rows: &[RowMutations]) -> Result<()> {
        let keys: Vec<Bytes> = rows.iter().map(|r| r.row.clone()).collect();
        self.write_rows(&keys, Durability::SyncWal, |region, now| {
            let mut cells = Vec::new();
            for row in rows {
                for mutation in &row.mutations {
                    match mutation {
                        Mutation::Put(put) if put.row == row.row => {
                            cells.extend(region.put_cells(put, now)?)
                        }
                        Mutation::Delete(delete) if delete.row == row.row => {
                            cells.extend(region.delete_cells(delete, now)?)
                        }
                        Mutation::Put(_) | Mutation::Delete(_) => {
                            return Err(Error::invalid("a row mutation names another row"))
                        }
                        Mutation::Increment(_) | Mutation::Append(_) => {
                            return Err(Error::invalid(
                                "multi-row mutations take puts and deletes only",
                            ))
                        }
                    }
                }
            }
            Ok((cells, None))
        })
        .map(|_| ())
    }
}
