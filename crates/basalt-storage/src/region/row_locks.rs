//! Row locks: one writer per row at a time, many rows in parallel.
//!
//! Rows hash onto a fixed set of mutexes. Two rows on one stripe merely wait for each
//! other. An operation on several rows takes their stripes in ascending order, so two such
//! operations cannot deadlock.

use parking_lot::{Mutex, MutexGuard};

const STRIPES: usize = 1024;

#[derive(Debug)]
pub struct RowLocks {
    stripes: Vec<Mutex<()>>,
}

impl Default for RowLocks {
    fn default() -> Self {
        Self {
            stripes: (0..STRIPES).map(|_| Mutex::new(())).collect(),
        }
    }
}

fn stripe(row: &[u8]) -> usize {
    xxhash_rust::xxh3::xxh3_64(row) as usize % STRIPES
}

impl RowLocks {
    /// Locks every row of `rows`, stripes in ascending order.
    pub fn lock_rows<'a>(&self, rows: impl Iterator<Item = &'a [u8]>) -> Vec<MutexGuard<'_, ()>> {
        let mut stripes: Vec<usize> = rows.map(stripe).collect();
        stripes.sort_unstable();
        stripes.dedup();
        stripes
            .into_iter()
            .map(|s| self.stripes[s].lock())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_row_sets_in_any_order_do_not_deadlock() {
        let locks = RowLocks::default();
        std::thread::scope(|s| {
            for t in 0..4 {
                let locks = &locks;
                s.spawn(move || {
                    for i in 0..500 {
                        let rows: Vec<Vec<u8>> = (0..3)
                            .map(|k| format!("row{}", (i * (t + 1) + k * 7) % 50).into_bytes())
                            .collect();
                        let ordered: Vec<&[u8]> = if t % 2 == 0 {
                            rows.iter().map(|r| r.as_slice()).collect()
                        } else {
                            rows.iter().rev().map(|r| r.as_slice()).collect()
                        };
                        let guards = locks.lock_rows(ordered.into_iter());
                        assert!(!guards.is_empty());
                    }
                });
            }
        });
    }
}
