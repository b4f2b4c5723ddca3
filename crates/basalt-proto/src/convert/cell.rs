//! Cells, row results, time ranges, column selections, durability and compare operators.
//!
//! Cells inside a row result or a put leave `row` empty when it is the enclosing row's,
//! so a row key crosses the wire once per row, not once per cell.

use super::{enum_value, ConvertError};
use crate::pb;
use basalt_types::{Cell, CellType, ColumnSelection, CompareOp, Durability, RowResult, TimeRange};
use bytes::Bytes;

/// A cell, its row left out when it equals `row`.
pub fn encode_cell(cell: &Cell, row: &Bytes) -> pb::Cell {
    encode_owned_cell(cell.clone(), row)
}

/// [`encode_cell`] by value: the cell's bytes move into the message, no reference counts.
pub fn encode_owned_cell(cell: Cell, row: &Bytes) -> pb::Cell {
    pb::Cell {
        row: if cell.row == *row {
            Bytes::new()
        } else {
            cell.row
        },
        family: cell.family,
        qualifier: cell.qualifier,
        timestamp: cell.timestamp,
        cell_type: u32::from(cell.cell_type.code()),
        seq_id: cell.seq_id,
        value: cell.value,
        ttl_ms: cell.ttl_ms,
    }
}

/// A cell of the enclosing `row` (an empty row on the wire means that row; any other
/// row is refused).
pub fn decode_cell(cell: pb::Cell, row: &Bytes) -> Result<Cell, ConvertError> {
    if !cell.row.is_empty() && cell.row != *row {
        return Err(ConvertError::Invalid(
            "a cell names another row than its row's".to_string(),
        ));
    }
    let cell_type = u8::try_from(cell.cell_type)
        .ok()
        .and_then(CellType::from_code)
        .ok_or(ConvertError::BadEnum {
            field: "Cell.cell_type",
            value: i64::from(cell.cell_type),
        })?;
    Ok(Cell {
        row: row.clone(),
        family: cell.family,
        qualifier: cell.qualifier,
        timestamp: cell.timestamp,
        cell_type,
        seq_id: cell.seq_id,
        value: cell.value,
        ttl_ms: cell.ttl_ms,
    })
}

/// By value: the cells' bytes move into the message (see [`encode_owned_cell`]).
impl From<RowResult> for pb::RowResult {
    fn from(r: RowResult) -> Self {
        let row = r.row().cloned().unwrap_or_default();
        pb::RowResult {
            cells: r
                .cells
                .into_iter()
                .map(|c| encode_owned_cell(c, &row))
                .collect(),
            row,
            exists: r.exists,
            partial: r.partial,
        }
    }
}

/// By reference, for a result that is kept (a scanner's last page): the cells are cloned.
impl From<&RowResult> for pb::RowResult {
    fn from(r: &RowResult) -> Self {
        RowResult {
            cells: r.cells.clone(),
            exists: r.exists,
            partial: r.partial,
        }
        .into()
    }
}

impl TryFrom<pb::RowResult> for RowResult {
    type Error = ConvertError;

    fn try_from(r: pb::RowResult) -> Result<Self, ConvertError> {
        let cells = r
            .cells
            .into_iter()
            .map(|c| decode_cell(c, &r.row))
            .collect::<Result<_, _>>()?;
        Ok(RowResult {
            cells,
            exists: r.exists,
            partial: r.partial,
        })
    }
}

/// `None` for all time, which is the default.
pub fn encode_time_range(range: &TimeRange) -> Option<pb::TimeRange> {
    (!range.is_all()).then_some(pb::TimeRange {
        min: range.min,
        max: range.max,
    })
}

pub fn decode_time_range(range: Option<pb::TimeRange>) -> Result<TimeRange, ConvertError> {
    match range {
        None => Ok(TimeRange::ALL),
        Some(r) => Ok(TimeRange::new(r.min, r.max)?),
    }
}

pub fn encode_columns(columns: &ColumnSelection) -> Vec<pb::ColumnFamilySelection> {
    columns
        .families()
        .map(|family| match columns.qualifiers(family) {
            None => pb::ColumnFamilySelection {
                family: family.clone(),
                whole_family: true,
                qualifiers: Vec::new(),
            },
            Some(qualifiers) => pb::ColumnFamilySelection {
                family: family.clone(),
                whole_family: false,
                qualifiers: qualifiers.iter().cloned().collect(),
            },
        })
        .collect()
}

pub fn decode_columns(
    families: Vec<pb::ColumnFamilySelection>,
) -> Result<ColumnSelection, ConvertError> {
    let mut columns = ColumnSelection::default();
    for f in families {
        if f.family.is_empty() {
            return Err(ConvertError::Invalid(
                "empty family in a column selection".into(),
            ));
        }
        if f.whole_family || f.qualifiers.is_empty() {
            columns.add_family(f.family);
        } else {
            for q in f.qualifiers {
                columns.add_column(f.family.clone(), q);
            }
        }
    }
    Ok(columns)
}

pub fn encode_durability(d: Durability) -> i32 {
    let d = match d {
        Durability::UseDefault => pb::Durability::UseDefault,
        Durability::SkipWal => pb::Durability::SkipWal,
        Durability::AsyncWal => pb::Durability::AsyncWal,
        Durability::SyncWal => pb::Durability::SyncWal,
        Durability::FsyncWal => pb::Durability::FsyncWal,
    };
    d as i32
}

pub fn decode_durability(value: i32) -> Result<Durability, ConvertError> {
    Ok(match enum_value(value, "durability")? {
        pb::Durability::UseDefault => Durability::UseDefault,
        pb::Durability::SkipWal => Durability::SkipWal,
        pb::Durability::AsyncWal => Durability::AsyncWal,
        pb::Durability::SyncWal => Durability::SyncWal,
        pb::Durability::FsyncWal => Durability::FsyncWal,
    })
}

pub fn encode_compare_op(op: CompareOp) -> i32 {
    let op = match op {
        CompareOp::Less => pb::CompareOp::Less,
        CompareOp::LessOrEqual => pb::CompareOp::LessOrEqual,
        CompareOp::Equal => pb::CompareOp::Equal,
        CompareOp::NotEqual => pb::CompareOp::NotEqual,
        CompareOp::GreaterOrEqual => pb::CompareOp::GreaterOrEqual,
        CompareOp::Greater => pb::CompareOp::Greater,
        CompareOp::NoOp => pb::CompareOp::NoOp,
    };
    op as i32
}

pub fn decode_compare_op(value: i32) -> Result<CompareOp, ConvertError> {
    Ok(match enum_value(value, "compare op")? {
        pb::CompareOp::Less => CompareOp::Less,
        pb::CompareOp::LessOrEqual => CompareOp::LessOrEqual,
        pb::CompareOp::Equal => CompareOp::Equal,
        pb::CompareOp::NotEqual => CompareOp::NotEqual,
        pb::CompareOp::GreaterOrEqual => CompareOp::GreaterOrEqual,
        pb::CompareOp::Greater => CompareOp::Greater,
        pb::CompareOp::NoOp => CompareOp::NoOp,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_results_round_trip_without_repeating_the_row() {
        let r = RowResult::new(vec![
            Cell::put("r", "f", "a", 5, "1"),
            Cell::marker("r", "f", "b", 4, CellType::DeleteColumn).with_seq(9),
        ]);
        let wire = pb::RowResult::from(&r);
        assert!(wire.cells.iter().all(|c| c.row.is_empty()));
        assert_eq!(RowResult::try_from(wire).expect("valid"), r);
    }

    #[test]
    fn bad_cell_type_is_an_error() {
        let cell = pb::Cell {
            cell_type: 6,
            ..Default::default()
        };
        assert!(decode_cell(cell, &Bytes::from_static(b"r")).is_err());
        let cell = pb::Cell {
            cell_type: 260,
            ..Default::default()
        };
        assert!(decode_cell(cell, &Bytes::from_static(b"r")).is_err());
    }

    #[test]
    fn columns_round_trip() {
        let mut c = ColumnSelection::default();
        c.add_family("a");
        c.add_column("b", "x");
        c.add_column("b", "y");
        assert_eq!(decode_columns(encode_columns(&c)).expect("valid"), c);
    }
}
