//! Size limits of the data model and their checks.

use crate::error::{invalid, Result};

/// HBase's row-key limit: `Short.MAX_VALUE` bytes.
pub const ROW_MAX_BYTES: usize = 32767;
/// HBase's family-name limit.
pub const FAMILY_NAME_MAX_BYTES: usize = 127;
/// Default cap on one cell's size (`hbase.server.keyvalue.maxsize`), configurable per server.
pub const CELL_DEFAULT_MAX_BYTES: usize = 10 * 1024 * 1024;

/// A row key must be non-empty (for writes) and at most [`ROW_MAX_BYTES`].
pub fn check_row(row: &[u8]) -> Result<()> {
    if row.is_empty() {
        return Err(invalid("Row key is empty"));
    }
    if row.len() > ROW_MAX_BYTES {
        return Err(invalid(format!(
            "Row key is {} bytes long; the limit is {ROW_MAX_BYTES}",
            row.len()
        )));
    }
    Ok(())
}

/// A cell's key and value together must not exceed `cell_max_bytes`.
pub fn check_cell_size(cell: &crate::Cell, cell_max_bytes: usize) -> Result<()> {
    let size = cell.row().len() + cell.family().len() + cell.qualifier().len() + cell.value().len();
    if size > cell_max_bytes {
        return Err(invalid(format!(
            "Cell with size {size} exceeds limit of {cell_max_bytes} bytes"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_limits() {
        assert!(check_row(b"").is_err());
        assert!(check_row(&vec![b'a'; ROW_MAX_BYTES]).is_ok());
        let err = check_row(&vec![b'a'; ROW_MAX_BYTES + 1]).expect_err("too long");
        assert!(err.to_string().contains("32767"));
    }

    #[test]
    fn cell_limit() {
        let cell = crate::Cell::put("r", "f", "q", 1, vec![0u8; 100]);
        assert!(check_cell_size(&cell, 103).is_ok());
        assert!(check_cell_size(&cell, 102).is_err());
    }
}
