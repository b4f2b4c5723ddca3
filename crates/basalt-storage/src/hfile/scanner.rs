//! A cursor over one HFile, implementing [`CellSource`].
//!
//! A seek binary-searches the resident index for the last block whose first key is below
//! the seek key, then binary-searches that block's restart points and walks forward. A seek
//! that lands in the block already loaded reuses it (no re-read, no cache lookup), and one
//! that moves forward from the current entry walks on from there when that is nearer.
//! Going backwards (reversed scans) finds the previous row in the block holding the last
//! cell before the row, then seeks to that row's first cell.

use super::cursor::BlockCursor;
use super::reader::HFileReader;
use crate::error::Result;
use crate::scanner::CellSource;
use basalt_types::Cell;
use bytes::Bytes;
use std::sync::Arc;

/// A scanner over one file; see [`HFileReader::scanner`]. It starts unpositioned
/// (`peek` is `None`) until the first seek, and after any error it is unpositioned again.
#[derive(Debug)]
pub struct HFileScanner {
    reader: Arc<HFileReader>,
    cache_blocks: bool,
    /// The data block `cursor` walks.
    block_idx: usize,
    cursor: Option<BlockCursor>,
    current: Option<Cell>,
}

impl HFileScanner {
    pub(crate) fn new(reader: Arc<HFileReader>, cache_blocks: bool) -> Self {
        Self {
            reader,
            cache_blocks,
            block_idx: 0,
            cursor: None,
            current: None,
        }
    }

    /// Moves to the file's first cell.
    pub fn seek_to_first(&mut self) -> Result<()> {
        if self.reader.index().is_empty() {
            self.current = None;
            return Ok(());
        }
        self.load(0)?;
        self.take_current()
    }

    /// Loads data block `i` and stands on its first entry, which must be the key the
    /// index lists for it (the current cell is left unset: the caller decides).
    fn load(&mut self, i: usize) -> Result<()> {
        // Should the load fail, the scanner is left exhausted rather than half-moved.
        self.current = None;
        let arena = self.cursor.take().map(BlockCursor::into_arena);
        let block = self.reader.data_block(i, self.cache_blocks)?;
        let mut cursor = BlockCursor::with_arena(block, arena.unwrap_or_default());
        let err = |r: String| self.reader.block_corruption(i, r);
        if !cursor.step().map_err(err)? {
            return Err(err("data block holds no cells".into()));
        }
        if !cursor
            .cmp_current(&self.reader.index()[i].first_key)
            .is_eq()
        {
            return Err(err("data block's first key differs from the index".into()));
        }
        self.cursor = Some(cursor);
        self.block_idx = i;
        Ok(())
    }

    /// Makes the cursor's entry the current cell.
    fn take_current(&mut self) -> Result<()> {
        let i = self.block_idx;
        self.current = match self.cursor.as_mut().map(BlockCursor::cell).transpose() {
            Ok(cell) => cell,
            Err(r) => return Err(self.reader.block_corruption(i, r)),
        };
        Ok(())
    }

    /// After the cursor ran off block `block_idx`: the next block's first cell, or the end.
    fn next_block(&mut self) -> Result<()> {
        let next = self.block_idx + 1;
        if next < self.reader.index().len() {
            self.load(next)?;
            self.take_current()
        } else {
            self.current = None;
            Ok(())
        }
    }

    /// After an error the scanner holds no position (`peek` is `None`; a seek starts
    /// afresh), so a damaged block can never surface a stale or half-decoded cell.
    fn reset_on_error(&mut self, r: Result<()>) -> Result<()> {
        if r.is_err() {
            self.current = None;
            self.cursor = None;
        }
        r
    }

    /// The block that holds the first cell `>= key`, or the one before it when that cell
    /// starts a block: the last block whose first key is `< key` (0 when none is).
    fn block_for(&self, key: &Cell) -> usize {
        self.reader
            .index()
            .partition_point(|e| e.first_key.cmp_key(key).is_lt())
            .saturating_sub(1)
    }
}

impl HFileScanner {
    /// Steps from `previous` (the cell just handed over) to the next cell.
    fn step_from(&mut self, previous: &Cell) -> Result<()> {
        let Some(cursor) = &mut self.cursor else {
            return Ok(());
        };
        let i = self.block_idx;
        let stepped = cursor
            .step()
            .map_err(|r| self.reader.block_corruption(i, r))?;
        if !stepped {
            return self.next_block();
        }
        if cursor.cmp_current(previous).is_lt() {
            return Err(self.reader.block_corruption(i, "cells out of order".into()));
        }
        let cell = cursor
            .cell()
            .map_err(|r| self.reader.block_corruption(i, r))?;
        self.current = Some(cell);
        Ok(())
    }

    fn seek_inner(&mut self, key: &Cell) -> Result<()> {
        if self.reader.index().is_empty() {
            self.current = None;
            return Ok(());
        }
        let i = self.block_for(key);
        if self.cursor.is_none() || self.block_idx != i {
            self.load(i)?;
        }
        let cursor = self.cursor.as_mut().expect("loaded above");
        let found = cursor
            .seek(key)
            .map_err(|r| self.reader.block_corruption(i, r))?;
        if found {
            let cell = cursor
                .cell()
                .map_err(|r| self.reader.block_corruption(i, r))?;
            self.current = Some(cell);
            Ok(())
        } else {
            self.next_block()
        }
    }

    fn seek_to_previous_row_inner(&mut self, row: &[u8]) -> Result<()> {
        let key = Cell::first_on_row(Bytes::copy_from_slice(row));
        let index = self.reader.index();
        if index
            .first()
            .is_none_or(|e| e.first_key.cmp_key(&key).is_ge())
        {
            self.current = None;
            return Ok(());
        }
        let i = self.block_for(&key);
        if self.cursor.is_none() || self.block_idx != i {
            self.load(i)?;
        }
        let cursor = self.cursor.as_mut().expect("loaded above");
        let previous = cursor
            .last_row_before(&key)
            .map_err(|r| self.reader.block_corruption(i, r))?;
        let Some(previous) = previous else {
            return Err(self
                .reader
                .block_corruption(i, "block holds no cell its index key promises".into()));
        };
        self.seek_inner(&Cell::first_on_row(Bytes::from(previous)))
    }

    fn seek_to_last_row_inner(&mut self) -> Result<()> {
        match &self.reader.info().last_key {
            Some(last) => self.seek_inner(&Cell::first_on_row(last.row_bytes())),
            None => {
                self.current = None;
                Ok(())
            }
        }
    }
}

impl CellSource for HFileScanner {
    fn peek(&self) -> Option<&Cell> {
        self.current.as_ref()
    }

    fn take(&mut self) -> Result<Option<Cell>> {
        let Some(current) = self.current.take() else {
            return Ok(None);
        };
        let r = self.step_from(&current);
        self.reset_on_error(r)?;
        Ok(Some(current))
    }

    fn take_into(&mut self, out: &mut Vec<Cell>) -> Result<bool> {
        if self.current.is_none() {
            return Ok(false);
        }
        out.extend(self.current.take());
        let r = self.step_from(out.last().expect("pushed above"));
        self.reset_on_error(r)?;
        Ok(true)
    }

    fn seek(&mut self, key: &Cell) -> Result<()> {
        let r = self.seek_inner(key);
        self.reset_on_error(r)
    }

    fn seek_to_previous_row(&mut self, row: &[u8]) -> Result<()> {
        let r = self.seek_to_previous_row_inner(row);
        self.reset_on_error(r)
    }

    fn seek_to_last_row(&mut self) -> Result<()> {
        let r = self.seek_to_last_row_inner();
        self.reset_on_error(r)
    }
}
