//! `KeyOnlyFilter([lenAsVal])`: cells without their values; with `lenAsVal` the value
//! becomes its former length as a 4-byte big-endian integer.

use crate::{Filter, ReturnCode};
use basalt_types::Cell;
use bytes::Bytes;

#[derive(Debug)]
pub struct KeyOnlyFilter {
    length_as_value: bool,
}

impl KeyOnlyFilter {
    pub fn new(length_as_value: bool) -> Self {
        Self { length_as_value }
    }
}

impl Filter for KeyOnlyFilter {
    fn filter_cell(&mut self, _cell: &Cell) -> ReturnCode {
        ReturnCode::Include
    }

    fn transform_cell(&self, mut cell: Cell) -> Cell {
        let value = if self.length_as_value {
            let len = u32::try_from(cell.value().len()).unwrap_or(u32::MAX);
            Bytes::copy_from_slice(&len.to_be_bytes())
        } else {
            Bytes::new()
        };
        cell.set_value(value);
        cell
    }
}
