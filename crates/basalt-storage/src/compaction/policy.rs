//! Which files a minor compaction rewrites: HBase's exploring policy.
//!
//! Files are considered oldest first. Every contiguous window of `min..=max` files is a
//! candidate if each file in it is at most `ratio` times the total size of the others in
//! the window (so one huge file is not rewritten for a few small ones). Among candidates
//! the policy prefers more files, then fewer bytes.
//!
//! | sizes (oldest → newest) | ratio 1.2, min 3 | pick |
//! |-------------------------|------------------|------|
//! | 100, 10, 10, 10         | 100 > 1.2 × 30   | the three 10s |
//! | 10, 10, 10, 10          | all in ratio     | all four |
//! | 100, 10                 | fewer than 3     | nothing |

/// Picks a window of `sizes` (indices, oldest first) to compact, or `None`.
pub fn pick_minor(
    sizes: &[u64],
    min_files: usize,
    max_files: usize,
    ratio: f64,
) -> Option<std::ops::Range<usize>> {
    let min_files = min_files.max(2);
    let mut best: Option<(std::ops::Range<usize>, u64)> = None;
    for start in 0..sizes.len() {
        for end in (start + min_files)..=(start + max_files).min(sizes.len()) {
            let window = &sizes[start..end];
            let total: u64 = window.iter().sum();
            let in_ratio = window
                .iter()
                .all(|&size| size as f64 <= ratio * (total - size) as f64);
            if !in_ratio {
                continue;
            }
            let better = match &best {
                None => true,
                Some((range, bytes)) => {
                    window.len() > range.len() || (window.len() == range.len() && total < *bytes)
                }
            };
            if better {
                best = Some((start..end, total));
            }
        }
    }
    best.map(|(range, _)| range)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_examples() {
        assert_eq!(pick_minor(&[100, 10, 10, 10], 3, 10, 1.2), Some(1..4));
        assert_eq!(pick_minor(&[10, 10, 10, 10], 3, 10, 1.2), Some(0..4));
        assert_eq!(pick_minor(&[100, 10], 3, 10, 1.2), None);
    }

    #[test]
    fn respects_max_files_and_prefers_fewer_bytes() {
        let sizes = [5u64; 12];
        assert_eq!(pick_minor(&sizes, 3, 10, 1.2).map(|r| r.len()), Some(10));
        assert_eq!(pick_minor(&[9, 9, 9, 1, 1, 1], 3, 3, 1.2), Some(3..6));
    }
}
