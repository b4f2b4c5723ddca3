//! When a region splits by itself: HBase's stepping policy.
//!
//! | regions of the table | split a region once its files pass |
//! |----------------------|-----------------------------------|
//! | 1                    | min(2 × MEMSTORE_FLUSHSIZE, MAX_FILESIZE) — split early |
//! | more                 | MAX_FILESIZE |

use basalt_types::TableDescriptor;

/// The size past which a region of `table` splits, given how many regions it has.
pub fn split_threshold_bytes(
    table: &TableDescriptor,
    flush_size_bytes: u64,
    regions: usize,
) -> u64 {
    if regions == 1 {
        flush_size_bytes
            .saturating_mul(2)
            .min(table.max_file_size_bytes)
    } else {
        table.max_file_size_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_types::TableName;

    #[test]
    fn steps_from_early_to_max_filesize() {
        let mut t = TableDescriptor::new(TableName::parse("t").expect("valid"), Vec::new());
        t.max_file_size_bytes = 10_000;
        assert_eq!(split_threshold_bytes(&t, 1_000, 1), 2_000);
        assert_eq!(split_threshold_bytes(&t, 1_000, 2), 10_000);
        assert_eq!(split_threshold_bytes(&t, 8_000, 1), 10_000);
    }
}
