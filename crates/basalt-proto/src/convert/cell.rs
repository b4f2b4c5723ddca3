//! Cells, row results, time ranges, column selections, durability and compare operators.
//!
//! A row result's cells travel as one cell block ([`crate::cellblock`], HBase's
//! `KeyValueCodec` layout). In the per-cell form (a put's cells, and a row result written
//! by an older Basalt or holding a cell too large for a block) a cell leaves `row` empty
//! when it is the enclosing row's, so a row key crosses the wire once per row.

use super::{enum_value, ConvertError};
use crate::{cellblock, pb};
use basalt_types::{Cell, CellType, ColumnSelection, CompareOp, Durability, RowResult, TimeRange};
use bytes::Bytes;

/// A cell, its row left out when it equals `row`.
pub fn encode_cell(cell: &Cell, row: &Bytes) -> pb::Cell {
    encode_owned_cell(cell.clone(), row)
}

/// [`encode_cell`] by value: the cell's bytes move into the message, no reference counts.
pub fn encode_owned_cell(cell: Cell, row: &Bytes) -> pb::Cell {
    pb::Cell {
        row: if cell.row() == *row {
            Bytes::new()
        } else {
            cell.row_bytes()
        },
        family: cell.family_bytes(),
        qualifier: cell.qualifier_bytes(),
        timestamp: cell.timestamp(),
        cell_type: u32::from(cell.cell_type().code()),
        seq_id: cell.seq_id(),
        ttl_ms: cell.ttl_ms(),
        value: cell.into_value(),
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
    Ok(Cell::new(
        row.clone(),
        cell.family,
        cell.qualifier,
        cell.timestamp,
        cell_type,
        cell.value,
    )
    .with_seq(cell.seq_id)
    .with_ttl_ms(cell.ttl_ms))
}

/// A row result: its cells as one cell block (see [`crate::cellblock`]), or, when a cell
/// is too large for that layout (a row or family above HBase's limits), in the per-cell
/// form, which has no such limits.
pub fn encode_row_result(r: &RowResult) -> pb::RowResult {
    let row = r.cells.first().map(Cell::row_bytes).unwrap_or_default();
    match cellblock::encode(&r.cells) {
        Ok(cell_block) => pb::RowResult {
            row,
            cells: Vec::new(),
            exists: r.exists,
            partial: r.partial,
            cell_block,
        },
        Err(_) => pb::RowResult {
            cells: r.cells.iter().map(|c| encode_cell(c, &row)).collect(),
            row,
            exists: r.exists,
            partial: r.partial,
            cell_block: Bytes::new(),
        },
    }
}

impl From<RowResult> for pb::RowResult {
    fn from(r: RowResult) -> Self {
        encode_row_result(&r)
    }
}

impl From<&RowResult> for pb::RowResult {
    fn from(r: &RowResult) -> Self {
        encode_row_result(r)
    }
}

/// Reads either form. A cell block's cells must all be of one row, the result's `row` when
/// it is set; a result may not carry both forms.
impl TryFrom<pb::RowResult> for RowResult {
    type Error = ConvertError;

    fn try_from(r: pb::RowResult) -> Result<Self, ConvertError> {
        let cells = if r.cell_block.is_empty() {
            r.cells
                .into_iter()
                .map(|c| decode_cell(c, &r.row))
                .collect::<Result<_, _>>()?
        } else {
            if !r.cells.is_empty() {
                return Err(ConvertError::Invalid(
                    "a row result carries both a cell block and cells".into(),
                ));
            }
            let cells = cellblock::decode(&r.cell_block)?;
            let row = match cells.first() {
                Some(first) if r.row.is_empty() => first.row(),
                _ => &r.row[..],
            };
            if let Some(i) = cells.iter().position(|c| c.row() != row) {
                return Err(ConvertError::Invalid(format!(
                    "cell {i} of a row result's cell block is of another row"
                )));
            }
            cells
        };
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

    fn sample() -> RowResult {
        RowResult::new(vec![
            Cell::put("r", "f", "a", 5, "1").with_ttl_ms(Some(60_000)),
            Cell::marker("r", "f", "b", 4, CellType::DeleteColumn).with_seq(9),
        ])
    }

    #[test]
    fn row_results_travel_as_one_cell_block() {
        let r = sample();
        let wire = pb::RowResult::from(&r);
        assert!(wire.cells.is_empty());
        assert_eq!(wire.cell_block, cellblock::encode(&r.cells).expect("fits"));
        assert_eq!(RowResult::try_from(wire).expect("valid"), r);
        let empty = RowResult::default();
        let wire = pb::RowResult::from(&empty);
        assert!(wire.cell_block.is_empty() && wire.cells.is_empty());
        assert_eq!(RowResult::try_from(wire).expect("valid"), empty);
    }

    #[test]
    fn the_per_cell_form_is_still_read_without_repeating_the_row() {
        let r = sample();
        let row = Bytes::from_static(b"r");
        let wire = pb::RowResult {
            row: row.clone(),
            cells: r.cells.iter().map(|c| encode_cell(c, &row)).collect(),
            exists: None,
            partial: false,
            cell_block: Bytes::new(),
        };
        assert!(wire.cells.iter().all(|c| c.row.is_empty()));
        assert_eq!(RowResult::try_from(wire).expect("valid"), r);
    }

    #[test]
    fn a_row_too_long_for_a_block_travels_per_cell() {
        let row = Bytes::from(vec![b'r'; cellblock::ROW_MAX_BYTES + 1]);
        let r = RowResult::new(vec![Cell::put(row, "f", "a", 5, "1")]);
        let wire = pb::RowResult::from(&r);
        assert!(wire.cell_block.is_empty());
        assert_eq!(wire.cells.len(), 1);
        assert_eq!(RowResult::try_from(wire).expect("valid"), r);
    }

    #[test]
    fn a_block_of_two_rows_or_beside_cells_is_refused() {
        let two_rows = pb::RowResult {
            cell_block: cellblock::encode(&[
                Cell::put("r", "f", "a", 5, "1"),
                Cell::put("s", "f", "a", 5, "1"),
            ])
            .expect("fits"),
            ..Default::default()
        };
        let e = RowResult::try_from(two_rows).expect_err("two rows");
        assert!(e.to_string().contains("cell 1"), "{e}");
        let other_row = pb::RowResult {
            row: Bytes::from_static(b"q"),
            ..pb::RowResult::from(&sample())
        };
        assert!(RowResult::try_from(other_row).is_err());
        let both = pb::RowResult {
            cells: vec![pb::Cell::default()],
            ..pb::RowResult::from(&sample())
        };
        let e = RowResult::try_from(both).expect_err("both forms");
        assert!(e.to_string().contains("both"), "{e}");
        let damaged = pb::RowResult {
            cell_block: Bytes::from_static(b"\x00\x00\x00\x09"),
            ..Default::default()
        };
        let e = RowResult::try_from(damaged).expect_err("damaged");
        assert!(e.to_string().contains("offset 4"), "{e}");
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
