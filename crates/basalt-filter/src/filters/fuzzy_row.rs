//! `FuzzyRowFilter`: rows matching any `(key, mask)` rule, where mask byte 0 fixes the row
//! byte to the key's and 1 allows any byte. Not in the filter language (the extended dialect
//! writes `FuzzyRowFilter('key', 'mask-digits', ...)`, e.g. `('a?c', '010')`).
//!
//! As in HBase a rule is checked over the shorter of row and key, so a row shorter than the
//! key matches when its bytes fit. A miss going forward seeks to the smallest row above the
//! current one that some rule could match:
//!
//! | row   | rule (`mask`)  | hint  |
//! |-------|----------------|-------|
//! | `a0x` | `?1?` (`101`)  | `a1`  |
//! | `a2x` | `?1?` (`101`)  | `b`   |
//! | `\xff2` | `?1` (`10`)  | none: the scan ends |
//!
//! Going backwards a miss seeks down to a row below which the next match must lie: for
//! `?1?` from `a2x` that is `a2` (every row between `a2` and `a2x` fails at byte 1), from
//! `a0x` it is `a` (a row `a` itself matches, being shorter than the rule).

use crate::{Filter, ReturnCode};
use basalt_types::filter_spec::FuzzyKey;
use basalt_types::Cell;
use bytes::Bytes;

#[derive(Debug)]
struct Rule {
    key: Vec<u8>,
    fixed: Vec<bool>,
}

impl Rule {
    fn satisfies(&self, row: &[u8]) -> bool {
        row.iter()
            .zip(&self.key)
            .zip(&self.fixed)
            .all(|((r, k), fixed)| !fixed || r == k)
    }

    /// The smallest row above `row` this rule can match, if any. `row` must not match. The
    /// answer is as short as possible, since a row shorter than the rule can match.
    fn next_after(&self, row: &[u8]) -> Option<Vec<u8>> {
        let n = self.key.len().min(row.len());
        let Some(m) = (0..n).find(|&i| self.fixed[i] && row[i] != self.key[i]) else {
            // `row` matches; the next candidate is its first extension.
            let mut next = row.to_vec();
            next.push(0);
            return Some(next);
        };
        if row[m] < self.key[m] {
            let mut next = row[..m].to_vec();
            next.push(self.key[m]);
            return Some(next);
        }
        // Byte m is too big: grow the last free byte before it that can grow (free bytes in
        // between are all 0xff).
        let j = (0..m).rev().find(|&j| !self.fixed[j] && row[j] < u8::MAX)?;
        let mut next = row[..j].to_vec();
        next.push(row[j] + 1);
        Some(next)
    }

    /// A row at or below `row` such that no row strictly between the two matches this rule;
    /// `None` when no row below `row` can match. `row` must not match.
    fn bound_below(&self, row: &[u8]) -> Option<Vec<u8>> {
        let Some(m) =
            (0..row.len().min(self.key.len())).find(|&i| self.fixed[i] && row[i] != self.key[i])
        else {
            return Some(row.to_vec());
        };
        if row[m] > self.key[m] {
            // Rows starting row[..m] + key[m] can match; all rows from row[..m] + (key[m] + 1)
            // up to `row` fail at byte m.
            let mut bound = row[..m].to_vec();
            bound.push(self.key[m] + 1);
            Some(bound)
        } else if m == 0 {
            None
        } else {
            // Longer rows starting row[..m] fail at byte m; row[..m] itself may match.
            Some(row[..m].to_vec())
        }
    }
}

#[derive(Debug)]
pub struct FuzzyRowFilter {
    rules: Vec<Rule>,
    reversed: bool,
    done: bool,
    hint: Option<Bytes>,
}

impl FuzzyRowFilter {
    /// `keys` must have been validated: equal key and mask lengths, mask bytes 0 or 1.
    pub fn new(keys: &[FuzzyKey]) -> Self {
        let rules = keys
            .iter()
            .map(|k| Rule {
                key: k.key.to_vec(),
                fixed: k.mask.iter().map(|&m| m == 0).collect(),
            })
            .collect();
        Self {
            rules,
            reversed: false,
            done: false,
            hint: None,
        }
    }
}

impl Filter for FuzzyRowFilter {
    fn filter_all_remaining(&mut self) -> bool {
        self.done
    }

    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        if self.rules.iter().any(|r| r.satisfies(cell.row())) {
            return ReturnCode::Include;
        }
        let next = if self.reversed {
            self.rules
                .iter()
                .filter_map(|r| r.bound_below(cell.row()))
                .max()
        } else {
            self.rules
                .iter()
                .filter_map(|r| r.next_after(cell.row()))
                .min()
        };
        match next {
            // Reversed, the bound may be this very row: step below it.
            Some(row) if self.reversed && row.as_slice() >= cell.row() => ReturnCode::NextRow,
            Some(row) => {
                self.hint = Some(Bytes::from(row));
                ReturnCode::SeekNextUsingHint
            }
            None => {
                self.done = true;
                ReturnCode::NextRow
            }
        }
    }

    fn next_cell_hint(&self, _current: &Cell) -> Option<Cell> {
        self.hint.clone().map(Cell::first_on_row)
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(key: &[u8], mask: &[u8]) -> Rule {
        Rule {
            key: key.to_vec(),
            fixed: mask.iter().map(|&m| m == 0).collect(),
        }
    }

    #[test]
    fn the_documented_hints_hold() {
        let r = rule(b"?1?", &[1, 0, 1]);
        assert_eq!(r.next_after(b"a0x"), Some(b"a1".to_vec()));
        assert_eq!(r.next_after(b"a2x"), Some(b"b".to_vec()));
        assert_eq!(rule(b"?1", &[1, 0]).next_after(b"\xff2"), None);
        assert!(r.satisfies(b"z1q") && r.satisfies(b"z") && !r.satisfies(b"z2"));
    }

    /// Shrunk from `hints_model`: the hint must not jump over a shorter row that matches.
    #[test]
    fn hint_stops_at_a_shorter_matching_row() {
        let r = rule(b"\0\xff\0", &[1, 0, 0]);
        assert_eq!(r.next_after(b"\xff\0"), Some(b"\xff\xff".to_vec()));
        assert!(r.satisfies(b"\xff\xff"));
    }

    #[test]
    fn the_documented_reverse_bounds_hold() {
        let r = rule(b"?1?", &[1, 0, 1]);
        assert_eq!(r.bound_below(b"a2x"), Some(b"a2".to_vec()));
        assert_eq!(r.bound_below(b"a0x"), Some(b"a".to_vec()));
        assert_eq!(rule(b"k", &[0]).bound_below(b"a"), None);
    }
}
