//! The skiplist: nodes ([`super::node`]) in a segment's words ([`super::words`]), linked
//! in cell order, insert-only. Readers take no lock; writers take one only to reserve
//! their node's words, and link it in without.
//!
//! Towers are 1 to [`HEIGHT_MAX`] links tall, each level reached with probability 1/4
//! (RocksDB's `InlineSkipList` shape: 1.33 links a node). An insert writes its node whole,
//! finds its predecessor and successor at every level, and links itself in bottom-up by a
//! compare-and-swap per level; when another insert got there first, it searches on from
//! the same predecessor (nothing is ever removed, so a predecessor stays valid) and tries
//! again. An insert whose key follows the last node inserted (a load in key order) starts
//! its search there rather than at the head.
//!
//! Identical keys: the later insert wins, as HBase's `ConcurrentSkipListMap.put`. A node
//! whose key equals its successor's at level 0 is linked in *before* it with the "shadows
//! next" flag, and readers skip a shadowed node. So a run of equal keys is newest first
//! and only its first node is seen:
//!
//! | level 0: key | inserted | flag         | seen |
//! |--------------|----------|--------------|------|
//! | a/f:q/5/s=1  | 3rd      | shadows next | yes  |
//! | a/f:q/5/s=1  | 1st      |              | no   |
//! | b/f:q/5/s=1  | 2nd      |              | yes  |
//!
//! A search for the first node at or after a key stops before the first of the run (its
//! predecessor's key is strictly smaller), so it always lands on the newest. Upper levels
//! may order an equal run differently from level 0 when its inserts race, which misleads
//! no search for a key, only "the last node before": [`List::last_before`] returns some
//! node of the run, and the caller searches again for the run's first.

use super::entry;
use super::node::{self, Meta, Node, Probe, WordWriter, HEIGHT_MAX};
use super::words::{CacheLine, ChunkPool, Words};
use basalt_types::Cell;
use std::cmp::Ordering as KeyOrdering;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// The skiplist's links and words. Positions are links ([`node::link`]); 0 is the head.
#[derive(Debug, Default)]
pub struct List {
    head: [AtomicU64; HEIGHT_MAX],
    hot: CacheLine<Hot>,
    pub words: Words,
}

/// What every insert writes.
#[derive(Debug, Default)]
struct Hot {
    /// The tallest tower so far: where searches start.
    height: AtomicUsize,
    /// The node inserted last, linked at every level: where an insert of a key just
    /// past it (a load in key order) starts its search (RocksDB's splice, in one word).
    last: AtomicU64,
}

/// What an insert did.
pub struct Inserted {
    /// Words the node took.
    pub words: usize,
    /// The node hides an earlier one with the same key.
    pub replaced: bool,
}

impl List {
    /// The node a (non-zero) link names.
    pub fn node(&self, link: u64) -> Node<'_> {
        let (chunk, at) = node::unlink(link);
        Node::new(self.words.chunk(chunk), at)
    }

    fn link_at(&self, pos: u64, level: usize) -> &AtomicU64 {
        match pos {
            0 => &self.head[level],
            _ => self.node(pos).next(level),
        }
    }

    /// From `pos` along `level`, the last position whose key is below `probe` (at or below
    /// it when `after`), and the link after it. `known` is a node already found past that
    /// point (the stop one level up): met again, it needs no comparison.
    fn advance(
        &self,
        mut pos: u64,
        level: usize,
        probe: &Probe<'_>,
        after: bool,
        known: u64,
    ) -> (u64, u64) {
        // The node at `pos` is resolved once: for its comparison, then for its link.
        let mut link = self.link_at(pos, level);
        loop {
            let next = link.load(Ordering::Acquire);
            if next == 0 || next == known {
                return (pos, next);
            }
            let node = self.node(next);
            match node.cmp(probe) {
                KeyOrdering::Less => {}
                KeyOrdering::Equal if after => {}
                _ => return (pos, next),
            }
            (pos, link) = (next, node.next(level));
        }
    }

    /// The first node at or after `probe` (after it, when `after`); 0 for none.
    pub fn seek(&self, probe: &Probe<'_>, after: bool) -> u64 {
        let (mut pos, mut found) = (0, 0);
        for level in (0..self.hot.0.height.load(Ordering::Relaxed)).rev() {
            (pos, found) = self.advance(pos, level, probe, after, found);
        }
        found
    }

    /// The first node; 0 when the list is empty.
    pub fn first(&self) -> u64 {
        self.head[0].load(Ordering::Acquire)
    }

    /// The node after `link` that readers see (skipping nodes shadowed by a newer one).
    pub fn next_visible(&self, link: u64) -> u64 {
        let mut at = link;
        loop {
            let node = self.node(at);
            let next = node.next(0).load(Ordering::Acquire);
            if next == 0 || !node.meta().shadows_next {
                return next;
            }
            at = next;
        }
    }

    /// Some node of the greatest key below `probe` (the greatest key when `None`); 0 for none.
    pub fn last_before(&self, probe: Option<&Probe<'_>>) -> u64 {
        let mut pos = 0;
        for level in (0..self.hot.0.height.load(Ordering::Relaxed)).rev() {
            loop {
                let next = self.link_at(pos, level).load(Ordering::Acquire);
                let below = next != 0 && probe.is_none_or(|p| self.node(next).cmp(p).is_lt());
                if !below {
                    break;
                }
                pos = next;
            }
        }
        pos
    }

    /// Adds `cell`, taking its node's words from `pool` when a chunk fills.
    pub fn insert(&self, pool: &ChunkPool, cell: &Cell) -> Inserted {
        let entry_len = entry::encoded_len(cell);
        let height = random_height();
        let key_words = node::key_words(entry_len, entry::key_end_of(cell));
        let front = height + 1 + key_words;
        let back = entry_len.div_ceil(8) - key_words;
        let place = self.words.alloc(pool, front, back);
        // Named by its level-0 link, the tower's lowest word.
        let at = place.front_at + height - 1;
        let me = node::link(place.chunk, at);
        let node = Node::new(self.words.chunk(place.chunk), at);
        let mut meta = Meta {
            height,
            shadows_next: false,
            back_at: place.back_at,
            entry_len,
        };
        node.set_meta(meta);
        let mut writer = WordWriter::new(node.parts(meta, key_words));
        entry::encode(cell, &mut writer);
        writer.finish();

        let probe = Probe::new(cell);
        let mut top = self.hot.0.height.load(Ordering::Relaxed);
        if height > top {
            top = self
                .hot
                .0
                .height
                .fetch_max(height, Ordering::Relaxed)
                .max(height);
        }
        let (mut preds, mut succs) = ([0u64; HEIGHT_MAX], [0u64; HEIGHT_MAX]);
        if !self.find_after_last(&probe, height, &mut preds, &mut succs) {
            let (mut pos, mut found) = (0, 0);
            for level in (0..top).rev() {
                (pos, found) = self.advance(pos, level, &probe, false, found);
                (preds[level], succs[level]) = (pos, found);
            }
        }
        for (level, succ) in succs.iter().enumerate().take(height) {
            node.next(level).store(*succ, Ordering::Relaxed);
        }
        let mut replaced;
        loop {
            replaced = succs[0] != 0 && self.node(succs[0]).cmp(&probe).is_eq();
            meta.shadows_next = replaced;
            node.set_meta(meta);
            if self.link(preds[0], 0, succs[0], me) {
                break;
            }
            (preds[0], succs[0]) = self.advance(preds[0], 0, &probe, false, 0);
            node.next(0).store(succs[0], Ordering::Relaxed);
        }
        for level in 1..height {
            while !self.link(preds[level], level, succs[level], me) {
                (preds[level], succs[level]) = self.advance(preds[level], level, &probe, false, 0);
                node.next(level).store(succs[level], Ordering::Relaxed);
            }
        }
        self.hot.0.last.store(me, Ordering::Release);
        Inserted {
            words: front + back,
            replaced,
        }
    }

    /// The predecessors and successors of `probe` below `height`, found from the last
    /// node inserted when `probe` falls right after it at level `height - 1`; false
    /// otherwise (the caller searches from the head). Any node below `probe` is a sound
    /// start for the levels it is on: the search goes on forward from it.
    fn find_after_last(
        &self,
        probe: &Probe<'_>,
        height: usize,
        preds: &mut [u64; HEIGHT_MAX],
        succs: &mut [u64; HEIGHT_MAX],
    ) -> bool {
        let last = self.hot.0.last.load(Ordering::Acquire);
        if last == 0 {
            return false;
        }
        let node = self.node(last);
        if node.meta().height < height || !node.cmp(probe).is_lt() {
            return false;
        }
        let top = height - 1;
        let next = node.next(top).load(Ordering::Acquire);
        if next != 0 && self.node(next).cmp(probe).is_lt() {
            return false;
        }
        (preds[top], succs[top]) = (last, next);
        let (mut pos, mut found) = (last, next);
        for level in (0..top).rev() {
            (pos, found) = self.advance(pos, level, probe, false, found);
            (preds[level], succs[level]) = (pos, found);
        }
        true
    }

    /// Points `pred`'s link at `level` to `me` if it still names `succ`; publishes `me`'s
    /// words written before (Release).
    fn link(&self, pred: u64, level: usize, succ: u64, me: u64) -> bool {
        self.link_at(pred, level)
            .compare_exchange(succ, me, Ordering::Release, Ordering::Relaxed)
            .is_ok()
    }
}

/// Random bits per level: a tower reaches the next level with probability 2^-BRANCH_BITS.
/// 2 (RocksDB's branching 4: 1.33 links a node) rather than 1 (2 links): a search visits
/// about 16% more nodes (30 against 26 of 300,000) and an insert took 1.2x the time
/// (`examples/memstore_insert.rs`), but each cell saves 5.3 bytes (`docs/performance.md`).
const BRANCH_BITS: u32 = 2;

/// A tower height: 1, then one more with probability 2^-BRANCH_BITS each, up to [`HEIGHT_MAX`].
fn random_height() -> usize {
    use std::cell::Cell as StdCell;
    static SEEDS: AtomicU64 = AtomicU64::new(0x9E37_79B9_7F4A_7C15);
    thread_local! {
        // Each thread its own xorshift state, seeded apart by a splitmix step.
        static STATE: StdCell<u64> = StdCell::new({
            let mut z = SEEDS.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) | 1
        });
    }
    let bits = STATE.with(|state| {
        let mut x = state.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        state.set(x);
        x
    });
    1 + ((bits.trailing_zeros() / BRANCH_BITS) as usize).min(HEIGHT_MAX - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn towers_grow_a_level_one_time_in_four() {
        let heights: Vec<usize> = (0..40_000).map(|_| random_height()).collect();
        let links: usize = heights.iter().sum();
        let per_node = links as f64 / heights.len() as f64;
        assert!((1.28..1.38).contains(&per_node), "{per_node} links a node");
        assert!(heights.iter().all(|h| (1..=HEIGHT_MAX).contains(h)));
    }
}
