//! Which closed segments are still needed: a pure bookkeeping core, no I/O.
//!
//! Each closed segment remembers the highest sequence id it holds per region. A region's
//! flush says "everything up to seq N is in files"; a segment may go once every region it
//! holds has been flushed past that segment's maximum. Worked example, after
//! `mark_flushed("a", 10)`:
//!
//! | segment | holds (region: max seq) | flushed           | deletable |
//! |---------|-------------------------|-------------------|-----------|
//! | 1       | a: 7                    | a: 10             | yes       |
//! | 2       | a: 12                   | a: 10             | no        |
//! | 3       | a: 9, b: 4              | a: 10, b: nothing | no        |
//!
//! The active segment is never here, so it is never deleted.

use std::collections::{BTreeMap, HashMap};

#[derive(Debug, Default)]
pub struct Retention {
    closed: BTreeMap<u64, HashMap<String, u64>>,
    flushed: HashMap<String, u64>,
}

impl Retention {
    /// Tracks a segment that no longer takes appends.
    pub fn add_closed(&mut self, id: u64, regions: HashMap<String, u64>) {
        self.closed.insert(id, regions);
    }

    /// Records that `region` is durable in files up to `seq_id` (never moving backwards) and
    /// returns the closed segments, oldest first, that now hold nothing still needed.
    pub fn mark_flushed(&mut self, region: &str, seq_id: u64) -> Vec<u64> {
        self.note_flushed(region, seq_id);
        self.closed
            .iter()
            .filter(|(_, regions)| {
                regions.iter().all(|(region, max)| {
                    self.flushed
                        .get(region)
                        .is_some_and(|flushed| flushed >= max)
                })
            })
            .map(|(id, _)| *id)
            .collect()
    }

    /// Records that `region` is durable in files up to `seq_id` (never moving backwards),
    /// deleting nothing now: the next [`Retention::mark_flushed`] counts it.
    pub fn note_flushed(&mut self, region: &str, seq_id: u64) {
        let flushed = self.flushed.entry(region.to_string()).or_insert(seq_id);
        *flushed = (*flushed).max(seq_id);
    }

    /// Closed segments holding no records at all (for example from an open with no appends).
    pub fn empty_ids(&self) -> Vec<u64> {
        self.closed
            .iter()
            .filter(|(_, regions)| regions.is_empty())
            .map(|(id, _)| *id)
            .collect()
    }

    /// Whether closed segment `id` holds an edit of any region in `regions`.
    pub fn holds_any(&self, id: u64, regions: &std::collections::HashSet<String>) -> bool {
        self.closed
            .get(&id)
            .is_some_and(|held| held.keys().any(|r| regions.contains(r)))
    }

    /// Stops tracking a segment once its file is gone.
    pub fn forget(&mut self, id: u64) {
        self.closed.remove(&id);
    }

    /// Ids of the closed segments still tracked, oldest first.
    pub fn closed_ids(&self) -> Vec<u64> {
        self.closed.keys().copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regions(pairs: &[(&str, u64)]) -> HashMap<String, u64> {
        pairs.iter().map(|(r, s)| (r.to_string(), *s)).collect()
    }

    #[test]
    fn the_documented_example_holds() {
        let mut retention = Retention::default();
        retention.add_closed(1, regions(&[("a", 7)]));
        retention.add_closed(2, regions(&[("a", 12)]));
        retention.add_closed(3, regions(&[("a", 9), ("b", 4)]));
        assert_eq!(retention.mark_flushed("a", 10), vec![1]);
        retention.forget(1);
        assert_eq!(retention.mark_flushed("b", 4), vec![3]);
        retention.forget(3);
        assert_eq!(retention.closed_ids(), vec![2]);
    }

    #[test]
    fn a_noted_flush_deletes_nothing_until_the_next_mark() {
        let mut retention = Retention::default();
        retention.add_closed(1, regions(&[("a", 7)]));
        retention.add_closed(2, regions(&[("b", 3)]));
        retention.note_flushed("a", 7);
        assert_eq!(retention.closed_ids(), vec![1, 2]);
        assert_eq!(retention.mark_flushed("b", 3), vec![1, 2]);
    }

    #[test]
    fn flushed_never_moves_backwards_and_empty_segments_go() {
        let mut retention = Retention::default();
        retention.add_closed(5, regions(&[("a", 7)]));
        retention.add_closed(6, HashMap::new());
        assert_eq!(retention.empty_ids(), vec![6]);
        assert_eq!(retention.mark_flushed("a", 8), vec![5, 6]);
        retention.forget(5);
        retention.forget(6);
        retention.add_closed(7, regions(&[("a", 8)]));
        assert_eq!(retention.mark_flushed("a", 3), vec![7]);
    }
}
