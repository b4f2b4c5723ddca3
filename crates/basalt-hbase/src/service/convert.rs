//! HBase's protobuf operations to and from `basalt_types`: Get, Scan, mutations, results,
//! time ranges. A mutation's cells come from its `column_value`s or, when it counts
//! `associated_cell_count`, from the call's cell block.

use super::filter;
use crate::pb;
use crate::RpcError;
use basalt_types::{
    Append, Cell, CellType, Delete, DeleteSpec, Durability, Get, Increment, Mutation, Put,
    RowResult, Scan, SeqId, TimeRange, LATEST_TIMESTAMP,
};
use bytes::Bytes;

/// HBase's `TimeRange` (`[from, to)`, `to` unset meaning forever).
pub fn time_range(range: Option<&pb::TimeRange>) -> Result<TimeRange, RpcError> {
    let Some(range) = range else {
        return Ok(TimeRange::ALL);
    };
    let min = range.from.unwrap_or(0).min(i64::MAX as u64) as i64;
    let max = range.to.unwrap_or(i64::MAX as u64).min(i64::MAX as u64) as i64;
    TimeRange::new(min, max).map_err(|e| RpcError::do_not_retry(e.to_string()))
}

fn columns(selection: &mut basalt_types::operation::columns::ColumnSelection, cols: &[pb::Column]) {
    for column in cols {
        if column.qualifier.is_empty() {
            selection.add_family(column.family.clone());
        } else {
            for qualifier in &column.qualifier {
                selection.add_column(column.family.clone(), qualifier.clone());
            }
        }
    }
}

pub fn get(pb: &pb::Get) -> Result<Get, RpcError> {
    let mut get = Get::new(pb.row.clone());
    columns(&mut get.columns, &pb.column);
    get.max_versions = pb.max_versions.unwrap_or(1).max(1);
    get.time_range = time_range(pb.time_range.as_ref())?;
    get.filter = pb.filter.as_ref().map(filter::spec).transpose()?;
    get.max_results_per_family = pb.store_limit.filter(|l| *l > 0);
    get.row_offset_per_family = pb.store_offset.unwrap_or(0);
    get.check_existence_only = pb.existence_only.unwrap_or(false);
    if pb.closest_row_before.unwrap_or(false) {
        return Err(RpcError::do_not_retry(
            "closest_row_before is not supported (HBase 2.x removed it too)",
        ));
    }
    Ok(get)
}

pub fn scan(pb: &pb::Scan) -> Result<Scan, RpcError> {
    let mut scan = Scan::new();
    scan.start_row = pb.start_row.clone().unwrap_or_default();
    scan.stop_row = pb.stop_row.clone().unwrap_or_default();
    scan.start_inclusive = pb.include_start_row.unwrap_or(true);
    scan.stop_inclusive = pb.include_stop_row.unwrap_or(false);
    scan.reversed = pb.reversed.unwrap_or(false);
    columns(&mut scan.columns, &pb.column);
    scan.max_versions = pb.max_versions.unwrap_or(1).max(1);
    scan.time_range = time_range(pb.time_range.as_ref())?;
    scan.filter = pb.filter.as_ref().map(filter::spec).transpose()?;
    scan.max_results_per_family = pb.store_limit.filter(|l| *l > 0);
    scan.row_offset_per_family = pb.store_offset.unwrap_or(0);
    scan.cache_blocks = pb.cache_blocks.unwrap_or(true);
    scan.caching = pb.caching.filter(|c| *c > 0);
    scan.batch = pb.batch_size.filter(|b| *b > 0);
    scan.read_point = SeqId::from_wire(pb.mvcc_read_point);
    Ok(scan)
}

pub fn cell(cell: &Cell) -> pb::Cell {
    pb::Cell {
        row: Some(cell.row_bytes()),
        family: Some(cell.family_bytes()),
        qualifier: Some(cell.qualifier_bytes()),
        timestamp: Some(cell.timestamp() as u64),
        cell_type: Some(i32::from(cell.cell_type().code())),
        value: Some(cell.value_bytes()),
    }
}

/// A result with its cells inline.
pub fn result(row: &RowResult) -> pb::Result {
    pb::Result {
        cell: row.cells.iter().map(cell).collect(),
        associated_cell_count: None,
        exists: row.exists,
        stale: Some(false),
        partial: Some(row.partial),
    }
}

fn durability(code: Option<i32>) -> Durability {
    use pb::mutation_proto::Durability as D;
    match code.and_then(|c| D::try_from(c).ok()) {
        Some(D::SkipWal) => Durability::SkipWal,
        Some(D::AsyncWal) => Durability::AsyncWal,
        Some(D::SyncWal) => Durability::SyncWal,
        Some(D::FsyncWal) => Durability::FsyncWal,
        _ => Durability::UseDefault,
    }
}

/// One (family, qualifier, timestamp, value, delete type) of a mutation.
struct Part {
    family: Bytes,
    qualifier: Bytes,
    timestamp: Option<i64>,
    value: Bytes,
    delete_type: Option<i32>,
    cell_type: Option<CellType>,
}

fn parts(
    pb: &pb::MutationProto,
    block: &mut dyn Iterator<Item = Cell>,
) -> Result<Vec<Part>, RpcError> {
    let mut out = Vec::new();
    for column in &pb.column_value {
        for qv in &column.qualifier_value {
            out.push(Part {
                family: column.family.clone(),
                qualifier: qv.qualifier.clone().unwrap_or_default(),
                timestamp: qv.timestamp.map(|t| t.min(i64::MAX as u64) as i64),
                value: qv.value.clone().unwrap_or_default(),
                delete_type: qv.delete_type,
                cell_type: None,
            });
        }
    }
    let associated = pb.associated_cell_count.unwrap_or(0).max(0) as usize;
    for _ in 0..associated {
        let cell = block.next().ok_or_else(|| {
            RpcError::do_not_retry(format!(
                "the mutation counts {associated} cells in the cell block, which has fewer"
            ))
        })?;
        out.push(Part {
            family: cell.family_bytes(),
            qualifier: cell.qualifier_bytes(),
            timestamp: Some(cell.timestamp()),
            value: cell.value_bytes(),
            delete_type: None,
            cell_type: Some(cell.cell_type()),
        });
    }
    Ok(out)
}

/// A mutation; `block` yields the call's cell-block cells not yet taken.
pub fn mutation(
    pb: &pb::MutationProto,
    block: &mut dyn Iterator<Item = Cell>,
) -> Result<Mutation, RpcError> {
    use pb::mutation_proto::MutationType as T;
    let row = pb.row.clone().unwrap_or_default();
    let row_ts = pb.timestamp.map(|t| t.min(i64::MAX as u64) as i64);
    let kind = pb
        .mutate_type
        .and_then(|t| T::try_from(t).ok())
        .ok_or_else(|| RpcError::do_not_retry("a mutation without a known mutate_type"))?;
    let parts = parts(pb, block)?;
    let durability = durability(pb.durability);
    let ts = |p: &Part| p.timestamp.or(row_ts).unwrap_or(LATEST_TIMESTAMP);
    Ok(match kind {
        T::Put => {
            let mut put = Put::new(row.clone());
            for p in &parts {
                put = put.add_at(
                    p.family.clone(),
                    p.qualifier.clone(),
                    ts(p),
                    p.value.clone(),
                );
            }
            Mutation::Put(put.durability(durability))
        }
        T::Delete => {
            let mut delete = Delete::new(row.clone());
            if let Some(t) = row_ts {
                delete = delete.at(t);
            }
            delete.durability = durability;
            for p in &parts {
                delete = delete.spec(delete_spec(p, ts(p))?);
            }
            Mutation::Delete(delete)
        }
        T::Increment => {
            let mut inc = Increment::new(row.clone());
            inc.time_range = time_range(pb.time_range.as_ref())?;
            inc.durability = durability;
            for p in &parts {
                let amount: [u8; 8] = p.value.as_ref().try_into().map_err(|_| {
                    RpcError::do_not_retry(format!(
                        "an increment amount must be 8 bytes, not {}",
                        p.value.len()
                    ))
                })?;
                inc = inc.add(
                    p.family.clone(),
                    p.qualifier.clone(),
                    i64::from_be_bytes(amount),
                );
            }
            Mutation::Increment(inc)
        }
        T::Append => {
            let mut append = Append::new(row.clone());
            append.time_range = time_range(pb.time_range.as_ref())?;
            append.durability = durability;
            for p in &parts {
                append = append.add(p.family.clone(), p.qualifier.clone(), p.value.clone());
            }
            Mutation::Append(append)
        }
    })
}

fn delete_spec(p: &Part, timestamp: i64) -> Result<DeleteSpec, RpcError> {
    use pb::mutation_proto::DeleteType as D;
    let family = p.family.clone();
    let qualifier = p.qualifier.clone();
    let kind = match p.cell_type {
        Some(CellType::DeleteFamily) => D::DeleteFamily,
        Some(CellType::DeleteFamilyVersion) => D::DeleteFamilyVersion,
        Some(CellType::DeleteColumn) => D::DeleteMultipleVersions,
        Some(CellType::Delete) => D::DeleteOneVersion,
        Some(other) => {
            return Err(RpcError::do_not_retry(format!(
                "a delete carries a {} cell",
                other.name()
            )))
        }
        None => p
            .delete_type
            .and_then(|t| D::try_from(t).ok())
            // proto2's default: the enum's first value, as HBase reads it.
            .unwrap_or(D::DeleteOneVersion),
    };
    Ok(match kind {
        D::DeleteFamily => DeleteSpec::Family { family, timestamp },
        D::DeleteFamilyVersion => DeleteSpec::FamilyVersion { family, timestamp },
        D::DeleteMultipleVersions => DeleteSpec::Columns {
            family,
            qualifier,
            timestamp,
        },
        D::DeleteOneVersion => DeleteSpec::Version {
            family,
            qualifier,
            timestamp,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qv(
        q: &[u8],
        v: &[u8],
        delete_type: Option<i32>,
    ) -> pb::mutation_proto::column_value::QualifierValue {
        pb::mutation_proto::column_value::QualifierValue {
            qualifier: Some(Bytes::copy_from_slice(q)),
            value: Some(Bytes::copy_from_slice(v)),
            timestamp: None,
            delete_type,
        }
    }

    fn mutation_of(
        kind: i32,
        values: Vec<pb::mutation_proto::column_value::QualifierValue>,
    ) -> pb::MutationProto {
        pb::MutationProto {
            row: Some(Bytes::from_static(b"r")),
            mutate_type: Some(kind),
            column_value: vec![pb::mutation_proto::ColumnValue {
                family: Bytes::from_static(b"cf"),
                qualifier_value: values,
            }],
            ..Default::default()
        }
    }

    #[test]
    fn a_put_without_timestamps_takes_the_servers_time() {
        let m = mutation_of(2, vec![qv(b"a", b"1", None)]);
        let Mutation::Put(put) = mutation(&m, &mut std::iter::empty()).expect("put") else {
            panic!("not a put");
        };
        assert_eq!(put.cells.len(), 1);
        assert_eq!(put.cells[0].timestamp(), LATEST_TIMESTAMP);
    }

    #[test]
    fn deletes_follow_hbases_delete_types() {
        let m = mutation_of(3, vec![qv(b"a", b"", Some(1)), qv(b"", b"", Some(2))]);
        let Mutation::Delete(delete) = mutation(&m, &mut std::iter::empty()).expect("delete")
        else {
            panic!("not a delete");
        };
        assert!(matches!(delete.specs[0], DeleteSpec::Columns { .. }));
        assert!(matches!(delete.specs[1], DeleteSpec::Family { .. }));
    }

    #[test]
    fn increments_need_eight_byte_amounts() {
        let m = mutation_of(1, vec![qv(b"n", &5i64.to_be_bytes(), None)]);
        let Mutation::Increment(inc) = mutation(&m, &mut std::iter::empty()).expect("inc") else {
            panic!("not an increment");
        };
        assert_eq!(inc.columns[0].2, 5);
        let bad = mutation_of(1, vec![qv(b"n", b"5", None)]);
        assert!(mutation(&bad, &mut std::iter::empty()).is_err());
    }

    #[test]
    fn cells_counted_in_the_cell_block_join_the_mutation() {
        let mut m = mutation_of(2, vec![]);
        m.associated_cell_count = Some(1);
        let cell = Cell::put(
            Bytes::from_static(b"r"),
            Bytes::from_static(b"cf"),
            Bytes::from_static(b"q"),
            9,
            Bytes::from_static(b"v"),
        );
        let Mutation::Put(put) = mutation(&m, &mut vec![cell].into_iter()).expect("put") else {
            panic!("not a put");
        };
        assert_eq!(put.cells[0].timestamp(), 9);
        m.associated_cell_count = Some(2);
        assert!(mutation(&m, &mut std::iter::empty()).is_err());
    }
}
