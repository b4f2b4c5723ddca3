//! The cells of a reference: a cursor over the source file that shows only the rows of its
//! range (see [`super::reference`]).
//!
//! Every move of the inner cursor is clamped at the split row `k`, forwards and backwards:
//!
//! | move                      | bottom half (`row < k`)                 | top half (`row >= k`)                    |
//! |---------------------------|-----------------------------------------|------------------------------------------|
//! | `seek(key)`               | exhausted when `key.row >= k`           | from `max(key, first cell of k)`         |
//! | `take` (`advance`)        | exhausted on reaching row `k`           | as the inner cursor                      |
//! | `seek_to_previous_row(r)` | previous row before `min(r, k)`         | exhausted when the row found is `< k`    |
//! | `seek_to_last_row`        | previous row before `k`                 | exhausted when the last row is `< k`     |

use super::reference::RefRange;
use crate::scanner::CellSource;
use crate::Result;
use basalt_types::Cell;
use bytes::Bytes;

/// A [`CellSource`] showing only the cells of `inner` whose rows are in a range.
#[derive(Debug)]
pub struct RangeSource<S> {
    inner: S,
    range: RefRange,
    /// The inner cursor stands outside the range: nothing to show until the next seek.
    outside: bool,
}

impl<S: CellSource> RangeSource<S> {
    /// Wraps an unpositioned `inner`.
    pub fn new(inner: S, range: RefRange) -> Self {
        Self {
            inner,
            range,
            outside: false,
        }
    }

    /// Marks the position outside the range when the inner cell is.
    fn clamp(&mut self) {
        self.outside = self
            .inner
            .peek()
            .is_some_and(|c| !self.range.contains_row(c.row()));
    }
}

impl<S: CellSource> CellSource for RangeSource<S> {
    fn peek(&self) -> Option<&Cell> {
        if self.outside {
            None
        } else {
            self.inner.peek()
        }
    }

    fn take(&mut self) -> Result<Option<Cell>> {
        if self.outside {
            return Ok(None);
        }
        let cell = self.inner.take()?;
        self.clamp();
        Ok(cell)
    }

    fn take_into(&mut self, out: &mut Vec<Cell>) -> Result<bool> {
        if self.outside {
            return Ok(false);
        }
        let taken = self.inner.take_into(out)?;
        self.clamp();
        Ok(taken)
    }

    fn seek(&mut self, key: &Cell) -> Result<()> {
        match &self.range {
            RefRange::Bottom(split) if key.row() >= *split => {
                self.outside = true;
                return Ok(());
            }
            RefRange::Top(split) if key.row() < *split => {
                let first = Cell::first_on_row(split.clone());
                self.inner.seek(&first)?;
            }
            _ => self.inner.seek(key)?,
        }
        self.clamp();
        Ok(())
    }

    fn seek_to_previous_row(&mut self, row: &[u8]) -> Result<()> {
        match &self.range {
            RefRange::Bottom(split) if row > split.as_ref() => {
                let split: Bytes = split.clone();
                self.inner.seek_to_previous_row(&split)?;
            }
            RefRange::Top(split) if row <= split.as_ref() => {
                self.outside = true;
                return Ok(());
            }
            _ => self.inner.seek_to_previous_row(row)?,
        }
        self.clamp();
        Ok(())
    }

    fn seek_to_last_row(&mut self) -> Result<()> {
        match &self.range {
            RefRange::Bottom(split) => {
                let split = split.clone();
                self.inner.seek_to_previous_row(&split)?;
            }
            RefRange::Top(_) | RefRange::Whole => self.inner.seek_to_last_row()?,
        }
        self.clamp();
        Ok(())
    }
}
