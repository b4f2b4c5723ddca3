//! A skiplist node in a chunk's words ([`super::words`]): its tower of links, its meta
//! word and the cell's entry ([`super::entry`]), packed big-endian.
//!
//! ```text
//! word       field
//!  n-h+1     link at level h-1   ┐ the tower, growing down from the node's name n
//!  ..        ..                  │ (RocksDB's InlineSkipList does the same)
//!  n-1       link at level 1     │
//!  n         link at level 0     ┘
//!  n+1       meta: height h (bits 59–63), flags (56–58: bit 56 shadows next, bit 57
//!            split), back (36–55), entry length in bytes (0–35)
//!  n+2..     the entry's first k words: its header and key, and the value's first bytes
//!            up to the word's end (k = the key's length in words)
//!  back..    the entry's other words, when split; the last word zero-padded
//! ```
//!
//! The entry's bytes are 8 to a word, big-endian. The node's *front* (tower, meta, key)
//! lies with other nodes' fronts from the chunk's start up; the rest of its value, the
//! *back*, from the chunk's end down ([`super::words`]): a search reads fronts only, so
//! its cache lines hold keys, not values. A node in a chunk of its own is not split.
//!
//! A link is `(chunk index + 1) << 32 | n`, so 0 names no node. Every word of a node is
//! written (Relaxed) before the node is published by a Release compare-and-swap on its
//! predecessor's level-0 link; readers load links with Acquire, so they see a node's words
//! whole, and never the stale words of a reused chunk.
//!
//! Everything a search reads sits at a fixed distance from `n`: the link at its level, the
//! entry's first word (the lengths) at `n+2` and the row's first 16 bytes at `n+5` and
//! `n+6` (the entry's row starts at byte 24). The loads do not wait for one another, and
//! the row prefix, zero-padded past the row's end, decides most comparisons ([`Probe`]).
//! The rest copy the node's key words to the stack and compare fully.

use super::entry::{self, View};
use basalt_types::Cell;
use std::cmp::Ordering as KeyOrdering;
use std::sync::atomic::{AtomicU64, Ordering};

/// The tallest tower (RocksDB's `InlineSkipList` default).
pub const HEIGHT_MAX: usize = 12;
const SHADOWS_NEXT: u64 = 1 << 56;
const SPLIT: u64 = 1 << 57;
const BACK_SHIFT: u32 = 36;
const BACK_MASK: u64 = (1 << 20) - 1;
const LENGTH_MASK: u64 = (1 << BACK_SHIFT) - 1;

/// A node's meta word, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    pub height: usize,
    /// The next node has the same key and was inserted earlier: it is hidden.
    pub shadows_next: bool,
    /// Where the entry's words after its key go on, when not right after them.
    pub back_at: Option<usize>,
    pub entry_len: usize,
}

impl Meta {
    pub fn encode(self) -> u64 {
        debug_assert!(self.height < 32 && self.entry_len as u64 <= LENGTH_MASK);
        let back = self
            .back_at
            .map_or(0, |at| SPLIT | (at as u64 & BACK_MASK) << BACK_SHIFT);
        (self.height as u64) << 59
            | if self.shadows_next { SHADOWS_NEXT } else { 0 }
            | back
            | self.entry_len as u64 & LENGTH_MASK
    }

    fn decode(word: u64) -> Self {
        Self {
            height: (word >> 59) as usize,
            shadows_next: word & SHADOWS_NEXT != 0,
            back_at: (word & SPLIT != 0).then_some((word >> BACK_SHIFT & BACK_MASK) as usize),
            entry_len: (word & LENGTH_MASK) as usize,
        }
    }
}

/// The words of an entry of `entry_len` bytes that stay in its node's front: those
/// holding its key (`key_end`: [`entry::key_end`], `None` for the wide form: all).
pub fn key_words(entry_len: usize, key_end: Option<usize>) -> usize {
    let all = entry_len.div_ceil(8);
    key_end.map_or(all, |end| end.div_ceil(8).min(all))
}

/// The link naming the node whose level-0 link is word `at` of chunk `chunk`.
pub fn link(chunk: u32, at: usize) -> u64 {
    (u64::from(chunk) + 1) << 32 | at as u64
}

/// The chunk and word a (non-zero) link names.
pub fn unlink(link: u64) -> (u32, usize) {
    (
        ((link >> 32) - 1) as u32,
        (link & u64::from(u32::MAX)) as usize,
    )
}

/// A node: its chunk and the word it is named by (its level-0 link).
#[derive(Clone, Copy)]
pub struct Node<'a> {
    chunk: &'a [AtomicU64],
    at: usize,
}

impl<'a> Node<'a> {
    pub fn new(chunk: &'a [AtomicU64], at: usize) -> Self {
        Self { chunk, at }
    }

    pub fn meta(&self) -> Meta {
        Meta::decode(self.chunk[self.at + 1].load(Ordering::Relaxed))
    }

    /// Writes the meta word (before the node is published).
    pub fn set_meta(&self, meta: Meta) {
        self.chunk[self.at + 1].store(meta.encode(), Ordering::Relaxed);
    }

    /// The link at `level` (below the node's height).
    #[inline]
    pub fn next(&self, level: usize) -> &'a AtomicU64 {
        &self.chunk[self.at - level]
    }

    /// The words the entry is written in: its front part and its back part.
    pub fn entry_parts(&self, meta: Meta) -> (&'a [AtomicU64], &'a [AtomicU64]) {
        let key_end = entry::key_end(self.entry_word(0));
        self.parts(meta, key_words(meta.entry_len, key_end))
    }

    /// [`Node::entry_parts`] before the entry is written: its front takes `key_words`.
    pub fn parts(&self, meta: Meta, key_words: usize) -> (&'a [AtomicU64], &'a [AtomicU64]) {
        let all = meta.entry_len.div_ceil(8);
        let front = self.at + 2;
        match meta.back_at {
            None => (&self.chunk[front..front + all], &[]),
            Some(back) => (
                &self.chunk[front..front + key_words],
                &self.chunk[back..back + all - key_words],
            ),
        }
    }

    /// The entry's `i`-th word.
    #[inline]
    fn entry_word(&self, i: usize) -> u64 {
        self.chunk[self.at + 2 + i].load(Ordering::Relaxed)
    }

    /// The entry's `i`-th word if the chunk has it (it may belong to another node, or to
    /// none, when the entry is shorter: the caller masks it out).
    #[inline]
    fn entry_word_or_zero(&self, i: usize) -> u64 {
        self.chunk
            .get(self.at + 2 + i)
            .map_or(0, |word| word.load(Ordering::Relaxed))
    }

    /// The row's first 16 bytes, zero-padded, as two big-endian numbers; `None` for an
    /// entry of the wide form.
    #[inline]
    fn row_prefix(&self) -> Option<[u64; 2]> {
        let first = self.entry_word(0);
        let row = [self.entry_word_or_zero(3), self.entry_word_or_zero(4)];
        let row_len = entry::row_len(first)?;
        Some([
            row[0] & mask(row_len),
            row[1] & mask(row_len.saturating_sub(8)),
        ])
    }

    /// Appends the entry's first `len` bytes to `out`, when they are all in the front
    /// (the key's are).
    fn copy_front(&self, len: usize, out: &mut Vec<u8>) {
        let start = out.len();
        for i in 0..len.div_ceil(8) {
            out.extend_from_slice(&self.entry_word(i).to_be_bytes());
        }
        out.truncate(start + len);
    }

    /// Appends the whole entry to `out`; returns its length.
    pub fn copy_out(&self, out: &mut Vec<u8>) -> usize {
        let meta = self.meta();
        let (front, back) = self.entry_parts(meta);
        let start = out.len();
        out.reserve(8 * (front.len() + back.len()));
        for word in front.iter().chain(back) {
            out.extend_from_slice(&word.load(Ordering::Relaxed).to_be_bytes());
        }
        out.truncate(start + meta.entry_len);
        meta.entry_len
    }

    /// The cell the node holds, copied out.
    pub fn to_cell(self) -> Cell {
        let mut bytes = Vec::new();
        self.copy_out(&mut bytes);
        entry::to_cell(&bytes.into())
    }

    /// This node's key against `probe`'s, in the cell order.
    #[inline]
    pub fn cmp(&self, probe: &Probe<'_>) -> KeyOrdering {
        match self.row_prefix() {
            Some(prefix) => prefix
                .cmp(&probe.row_prefix)
                .then_with(|| self.cmp_whole_key(probe.cell)),
            None => self.cmp_whole_key(probe.cell),
        }
    }

    fn cmp_whole_key(&self, cell: &Cell) -> KeyOrdering {
        let mut stack = [0u8; 256];
        let heap;
        let key: &[u8] = match entry::key_end(self.entry_word(0)) {
            Some(key_end) if key_end <= stack.len() => {
                let words = stack.chunks_exact_mut(8).take(key_end.div_ceil(8));
                for (i, eight) in words.enumerate() {
                    eight.copy_from_slice(&self.entry_word(i).to_be_bytes());
                }
                &stack[..key_end]
            }
            Some(key_end) => {
                let mut bytes = Vec::with_capacity(key_end);
                self.copy_front(key_end, &mut bytes);
                heap = bytes;
                &heap
            }
            None => {
                // The wide form keeps its lengths after the value: read it whole.
                let mut bytes = Vec::new();
                self.copy_out(&mut bytes);
                heap = bytes;
                &heap
            }
        };
        View::new(key).cmp_cell(cell)
    }
}

/// The bits of a word holding a row's first `len` bytes (of 8; all of them from 8 on).
#[inline]
fn mask(len: usize) -> u64 {
    if len >= 8 {
        u64::MAX
    } else {
        !(u64::MAX >> (8 * len))
    }
}

/// A search key: a cell and its row prefix.
pub struct Probe<'a> {
    pub cell: &'a Cell,
    row_prefix: [u64; 2],
}

impl<'a> Probe<'a> {
    pub fn new(cell: &'a Cell) -> Self {
        let row = cell.row();
        let mut prefix = [0u8; 16];
        let len = row.len().min(16);
        prefix[..len].copy_from_slice(&row[..len]);
        let half = |at: usize| u64::from_be_bytes(prefix[at..at + 8].try_into().expect("8 bytes"));
        Self {
            cell,
            row_prefix: [half(0), half(8)],
        }
    }
}

/// Writes an entry into a node's words, 8 bytes to a word (an [`entry::Sink`]): its
/// front part, then its back part.
pub struct WordWriter<'a> {
    front: &'a [AtomicU64],
    back: &'a [AtomicU64],
    /// Words written so far.
    at: usize,
    word: u64,
    /// Bytes gathered in `word` so far.
    filled: usize,
}

impl<'a> WordWriter<'a> {
    pub fn new((front, back): (&'a [AtomicU64], &'a [AtomicU64])) -> Self {
        Self {
            front,
            back,
            at: 0,
            word: 0,
            filled: 0,
        }
    }

    #[inline]
    fn store(&mut self, word: u64) {
        let slot = match self.front.get(self.at) {
            Some(slot) => slot,
            None => &self.back[self.at - self.front.len()],
        };
        slot.store(word, Ordering::Relaxed);
        self.at += 1;
    }

    fn push_byte(&mut self, byte: u8) {
        self.word |= u64::from(byte) << (56 - 8 * self.filled);
        self.filled += 1;
        if self.filled == 8 {
            self.store(self.word);
            self.word = 0;
            self.filled = 0;
        }
    }

    /// Writes the last, zero-padded word.
    pub fn finish(mut self) {
        if self.filled > 0 {
            self.store(self.word);
        }
    }
}

impl entry::Sink for WordWriter<'_> {
    fn put_slice(&mut self, mut bytes: &[u8]) {
        while self.filled != 0 && !bytes.is_empty() {
            self.push_byte(bytes[0]);
            bytes = &bytes[1..];
        }
        let mut whole = bytes.chunks_exact(8);
        for eight in &mut whole {
            self.store(u64::from_be_bytes(eight.try_into().expect("chunks of 8")));
        }
        for &byte in whole.remainder() {
            self.push_byte(byte);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_words_round_trip() {
        for meta in [
            Meta {
                height: 1,
                shadows_next: false,
                back_at: None,
                entry_len: 24,
            },
            Meta {
                height: HEIGHT_MAX,
                shadows_next: true,
                back_at: Some(262_144),
                entry_len: (1 << 36) - 1,
            },
            Meta {
                height: 3,
                shadows_next: false,
                back_at: Some(0),
                entry_len: 143,
            },
        ] {
            assert_eq!(Meta::decode(meta.encode()), meta);
        }
    }

    #[test]
    fn a_split_node_reads_back_its_entry_and_compares_on_its_front() {
        let chunk: Vec<AtomicU64> = (0..64).map(|_| AtomicU64::new(u64::MAX)).collect();
        let cell = Cell::put("user000000000042", "f", "q0", 7, vec![b'v'; 40]).with_seq(3);
        let entry_len = entry::encoded_len(&cell);
        let keys = key_words(entry_len, entry::key_end_of(&cell));
        assert_eq!((entry_len, keys), (83, 6), "24 + 19 key bytes: 6 words");
        // Height 2 from word 0: named by word 1, entry from word 3; back from word 50.
        let node = Node::new(&chunk, 1);
        let meta = Meta {
            height: 2,
            shadows_next: false,
            back_at: Some(50),
            entry_len,
        };
        node.set_meta(meta);
        let mut writer = WordWriter::new(node.parts(meta, keys));
        entry::encode(&cell, &mut writer);
        writer.finish();
        assert_eq!(
            chunk[3 + keys].load(Ordering::Relaxed),
            u64::MAX,
            "front ends"
        );
        assert_eq!(chunk[55].load(Ordering::Relaxed), u64::MAX, "back ends");
        assert_eq!(node.to_cell(), cell);
        let mut whole = Vec::new();
        entry::encode(&cell, &mut whole);
        let mut copied = Vec::new();
        assert_eq!(node.copy_out(&mut copied), whole.len());
        assert_eq!(copied, whole);
        for other in [
            Cell::put("user000000000042", "f", "q0", 7, "").with_seq(3),
            Cell::put("user000000000042", "f", "q0", 8, "").with_seq(3),
            Cell::put("user000000000041", "f", "q1", 7, ""),
            Cell::put("user0000000000420", "f", "q", 7, ""),
        ] {
            let probe = Probe::new(&other);
            assert_eq!(node.cmp(&probe), cell.cmp_key(&other), "{other:?}");
        }
    }
}
