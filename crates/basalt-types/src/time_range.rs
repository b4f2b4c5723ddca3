//! Time ranges `[min, max)` and the "server assigns now" sentinel.

/// A timestamp left for the server to assign (`Long.MAX_VALUE` in HBase).
pub const LATEST_TIMESTAMP: i64 = i64::MAX;

/// Timestamps `min <= ts < max`, HBase's `TimeRange` (max exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimeRange {
    pub min: i64,
    pub max: i64,
}

impl Default for TimeRange {
    fn default() -> Self {
        Self::ALL
    }
}

impl TimeRange {
    /// Every timestamp a cell can carry: `[0, LATEST_TIMESTAMP)`.
    pub const ALL: TimeRange = TimeRange {
        min: 0,
        max: i64::MAX,
    };

    /// `[min, max)`; fails when `min > max` or `min < 0`, as HBase's `TimeRange` does.
    pub fn new(min: i64, max: i64) -> crate::Result<Self> {
        if min < 0 || max < min {
            return Err(crate::error::invalid(format!(
                "invalid time range [{min}, {max}): need 0 <= min <= max"
            )));
        }
        Ok(Self { min, max })
    }

    /// Exactly one timestamp: `[ts, ts + 1)`.
    pub fn at(ts: i64) -> crate::Result<Self> {
        Self::new(ts, ts.saturating_add(1))
    }

    pub fn is_all(&self) -> bool {
        self.min == 0 && self.max == i64::MAX
    }

    pub fn contains(&self, ts: i64) -> bool {
        self.is_all() || (ts >= self.min && ts < self.max)
    }

    /// Whether any timestamp in `[lo, hi]` (both inclusive, as a file's range is kept)
    /// can fall in this range.
    pub fn overlaps_inclusive(&self, lo: i64, hi: i64) -> bool {
        self.is_all() || (hi >= self.min && lo < self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_is_exclusive() {
        let r = TimeRange::new(10, 12).expect("valid");
        assert!(!r.contains(9));
        assert!(r.contains(10));
        assert!(r.contains(11));
        assert!(!r.contains(12));
    }

    #[test]
    fn rejects_inverted_and_negative() {
        assert!(TimeRange::new(5, 4).is_err());
        assert!(TimeRange::new(-1, 4).is_err());
        assert_eq!(
            TimeRange::at(7).expect("valid"),
            TimeRange { min: 7, max: 8 }
        );
    }
}
