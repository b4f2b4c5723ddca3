//! Row locks: one writer per row at a time, many rows in parallel.
//!
//! Rows hash onto a fixed set of mutexes. Two rows on one stripe merely wait for each
//! other; every operation holds at most one row lock, so stripes cannot deadlock.

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

impl RowLocks {
    pub fn lock(&self, row: &[u8]) -> MutexGuard<'_, ()> {
        let stripe = xxhash_rust::xxh3::xxh3_64(row) as usize % STRIPES;
        self.stripes[stripe].lock()
    }
}
