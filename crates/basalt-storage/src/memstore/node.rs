//! A skiplist node in a chunk's words ([`super::words`]): its tower of links, its meta
//! word and the cell's entry ([`super::entry`]), packed big-endian.
//!
//! ```text
//! word       field
//!  n-h+1     link at level h-1   ┐ the tower, growing down from the node's name n
//!  ..        ..                  │ (RocksDB's InlineSkipList does the same)
//!  n-1       link at level 1     │
//!  n         link at level 0     ┘
//!  n+1       meta: height h (bits 56–63), flags (48–55; bit 48: shadows next),
//!            entry length in bytes (0–47)
//!  n+2..     the entry's bytes, 8 to a word, big-endian; the last word zero-padded
//! ```
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
const SHADOWS_NEXT: u64 = 1 << 48;
const LENGTH_MASK: u64 = (1 << 48) - 1;

/// A node's meta word, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    pub height: usize,
    /// The next node has the same key and was inserted earlier: it is hidden.
    pub shadows_next: bool,
    pub entry_len: usize,
}

impl Meta {
    pub fn encode(self) -> u64 {
        (self.height as u64) << 56
            | if self.shadows_next { SHADOWS_NEXT } else { 0 }
            | self.entry_len as u64 & LENGTH_MASK
    }

    fn decode(word: u64) -> Self {
        Self {
            height: (word >> 56) as usize,
            shadows_next: word & SHADOWS_NEXT != 0,
            entry_len: (word & LENGTH_MASK) as usize,
        }
    }
}

/// Words a node with a tower of `height` and an entry of `entry_len` bytes takes.
pub fn words_for(height: usize, entry_len: usize) -> usize {
    height + 1 + entry_len.div_ceil(8)
}

/// The link naming the node whose level-0 link is word `at` of chunk `chunk`.
pub fn link(chunk: u32, at: usize) -> u64 {
    (u64::from(chunk) + 1) << 32 | at as u64
}

/// The chunk and word a (non-zero) link names.
pub fn unlink(link: u64) -> (u32, usize) {
    (((link >> 32) - 1) as u32, (link & u64::from(u32::MAX)) as usize)
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

    /// The words the entry is written into.
    pub fn entry_words(&self, entry_len: usize) -> &'a [AtomicU64] {
        &self.chunk[self.at + 2..self.at + 2 + entry_len.div_ceil(8)]
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
        Some([row[0] & mask(row_len), row[1] & mask(row_len.saturating_sub(8))])
    }

    /// Appends the entry's first `len` bytes to `out`.
    fn copy_entry(&self, len: usize, out: &mut Vec<u8>) {
        let full = len / 8;
        for i in 0..full {
            out.extend_from_slice(&self.entry_word(i).to_be_bytes());
        }
        let rest = len % 8;
        if rest > 0 {
            out.extend_from_slice(&self.entry_word(full).to_be_bytes()[..rest]);
        }
    }

    /// Appends the whole entry to `out`; returns its length.
    pub fn copy_out(&self, out: &mut Vec<u8>) -> usize {
        let len = self.meta().entry_len;
        self.copy_entry(len, out);
        len
    }

    /// The cell the node holds, copied out.
    pub fn to_cell(&self) -> Cell {
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
                self.copy_entry(key_end, &mut bytes);
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

/// Writes an entry into a node's words, 8 bytes to a word (an [`entry::Sink`]).
pub struct WordWriter<'a> {
    words: &'a [AtomicU64],
    at: usize,
    word: u64,
    /// Bytes gathered in `word` so far.
    filled: usize,
}

impl<'a> WordWriter<'a> {
    pub fn new(words: &'a [AtomicU64]) -> Self {
        Self {
            words,
            at: 0,
            word: 0,
            filled: 0,
        }
    }

    fn push_byte(&mut self, byte: u8) {
        self.word |= u64::from(byte) << (56 - 8 * self.filled);
        self.filled += 1;
        if self.filled == 8 {
            self.flush();
        }
    }

    fn flush(&mut self) {
        self.words[self.at].store(self.word, Ordering::Relaxed);
        self.at += 1;
        self.word = 0;
        self.filled = 0;
    }

    /// Writes the last, zero-padded word.
    pub fn finish(mut self) {
        if self.filled > 0 {
            self.flush();
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
            let word = u64::from_be_bytes(eight.try_into().expect("chunks of 8"));
            self.words[self.at].store(word, Ordering::Relaxed);
            self.at += 1;
        }
        for &byte in whole.remainder() {
            self.push_byte(byte);
        }
    }
}
