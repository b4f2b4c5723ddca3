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
//! | `a0x` | `?1?` (`101`)  | `a1\0`|
//! | `a2x` | `?1?` (`101`)  | `b1\0`|
//! | `\xff2` | `?1` (`10`)  | none: the scan ends |
//!
//! Reversed scans skip non-matching rows one at a time.

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

    /// The smallest row above `row` this rule can match, if any.
    fn next_after(&self, row: &[u8]) -> Option<Vec<u8>> {
        let n = self.key.len();
        let mut x: Vec<u8> = row.iter().copied().take(n).collect();
        x.resize(n, 0);
        for i in 0..n {
            if !self.fixed[i] || x[i] == self.key[i] {
                continue;
            }
            if x[i] < self.key[i] {
                x[i] = self.key[i];
                self.fill_min(&mut x, i + 1);
                return Some(x);
            }
            return self.bump_free_before(x, i);
        }
        if row.len() < n {
            return Some(x);
        }
        self.bump_free_before(x, n)
    }

    /// Increments the last free byte before `end` that can grow, then minimises the rest.
    fn bump_free_before(&self, mut x: Vec<u8>, end: usize) -> Option<Vec<u8>> {
        let j = (0..end).rev().find(|&j| !self.fixed[j] && x[j] < u8::MAX)?;
        x[j] += 1;
        self.fill_min(&mut x, j + 1);
        Some(x)
    }

    fn fill_min(&self, x: &mut [u8], from: usize) {
        let rule = self.fixed.iter().zip(&self.key).skip(from);
        for (byte, (&fixed, &key)) in x.iter_mut().skip(from).zip(rule) {
            *byte = if fixed { key } else { 0 };
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
        if self.rules.iter().any(|r| r.satisfies(&cell.row)) {
            return ReturnCode::Include;
        }
        if self.reversed {
            return ReturnCode::NextRow;
        }
        let next = self
            .rules
            .iter()
            .filter_map(|r| r.next_after(&cell.row))
            .min();
        match next {
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
        assert_eq!(r.next_after(b"a0x"), Some(b"a1\0".to_vec()));
        assert_eq!(r.next_after(b"a2x"), Some(b"b1\0".to_vec()));
        assert_eq!(rule(b"?1", &[1, 0]).next_after(b"\xff2"), None);
        assert!(r.satisfies(b"z1q") && r.satisfies(b"z") && !r.satisfies(b"z2"));
    }
}
