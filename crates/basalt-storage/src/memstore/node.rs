//! A skiplist node in a chunk's words ([`super::words`]): its meta word, its tower of
//! links and the cell's entry ([`super::entry`]), packed big-endian.
//!
//! ```text
//! word     field
//!  0       meta: height h (bits 56–63), flags (48–55; bit 48: shadows next),
//!          entry length in bytes (0–47)
//!  1..=h   links, level 0 first: the next node at that level, or 0 for none
//!  1+h..   the entry's bytes, 8 to a word, big-endian; the last word zero-padded
//! ```
//!
//! A link is `(chunk index + 1) << 32 | word offset`, so 0 names no node. Every word of a
//! node is written (Relaxed) before the node is published by a Release compare-and-swap
//! on its predecessor's level-0 link; readers load links with Acquire, so they see a
//! node's words whole, and never the stale words of a reused chunk.
//!
//! The entry's row starts on a word ([`super::entry`]), so its first 16 bytes, zero-padded
//! past the row's end, are two loads: the cheap first step of every comparison
//! ([`Probe`]). Most comparisons on the way down the list end there, inside the node's
//! first cache line; the rest copy the node's key words to the stack and compare fully.

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
    1 + height + entry_len.div_ceil(8)
}

/// The link naming the node at `offset` in chunk `chunk`.
pub fn link(chunk: u32, offset: usize) -> u64 {
    (u64::from(chunk) + 1) << 32 | offset as u64
}

/// The chunk and offset a (non-zero) link names.
pub fn unlink(link: u64) -> (u32, usize) {
    (((link >> 32) - 1) as u32, (link & u64::from(u32::MAX)) as usize)
}

/// A published node: its chunk's words from the node's meta word on.
#[derive(Clone, Copy)]
pub struct Node<'a> {
    words: &'a [AtomicU64],
}

impl<'a> Node<'a> {
    pub fn new(words: &'a [AtomicU64]) -> Self {
        Self { words }
    }

    pub fn meta(&self) -> Meta {
        Meta::decode(self.words[0].load(Ordering::Relaxed))
    }

    /// The link at `level` (below the node's height).
    #[inline]
    pub fn next(&self, level: usize) -> &'a AtomicU64 {
        &self.words[1 + level]
    }

    /// The entry's `i`-th word.
    #[inline]
    fn entry_word(&self, height: usize, i: usize) -> u64 {
        self.words[1 + height + i].load(Ordering::Relaxed)
    }

    /// The row's first 16 bytes, zero-padded, as two big-endian numbers.
    #[inline]
    fn row_prefix(&self, height: usize) -> [u64; 2] {
        let word = |i| self.entry_word(height, i);
        let (row_at, row_len) = entry::row_span(word(0), word);
        let at = row_at / 8;
        let first = if row_len == 0 { 0 } else { word(at) & mask(row_len) };
        let second = if row_len <= 8 { 0 } else { word(at + 1) & mask(row_len - 8) };
        [first, second]
    }

    /// Appends the entry's first `len` bytes to `out`.
    fn copy_entry(&self, height: usize, len: usize, out: &mut Vec<u8>) {
        let full = len / 8;
        for i in 0..full {
            out.extend_from_slice(&self.entry_word(height, i).to_be_bytes());
        }
        let rest = len % 8;
        if rest > 0 {
            out.extend_from_slice(&self.entry_word(height, full).to_be_bytes()[..rest]);
        }
    }

    /// Appends the whole entry to `out`; returns its length.
    pub fn copy_out(&self, out: &mut Vec<u8>) -> usize {
        let meta = self.meta();
        self.copy_entry(meta.height, meta.entry_len, out);
        meta.entry_len
    }

    /// The cell the node holds, copied out.
    pub fn to_cell(&self) -> Cell {
        let mut bytes = Vec::new();
        self.copy_out(&mut bytes);
        entry::to_cell(&bytes.into())
    }

    /// This node's key against `probe`'s, in the cell order.
    pub fn cmp(&self, probe: &Probe<'_>) -> KeyOrdering {
        let height = self.meta().height;
        self.row_prefix(height)
            .cmp(&probe.row_prefix)
            .then_with(|| self.cmp_whole_key(height, probe.cell))
    }

    fn cmp_whole_key(&self, height: usize, cell: &Cell) -> KeyOrdering {
        let word = |i| self.entry_word(height, i);
        let key_end = entry::key_end(word(0), word);
        let mut stack = [0u8; 256];
        let heap;
        let key: &[u8] = if key_end <= stack.len() {
            for (i, eight) in stack.chunks_exact_mut(8).take(key_end.div_ceil(8)).enumerate() {
                eight.copy_from_slice(&word(i).to_be_bytes());
            }
            &stack[..key_end]
        } else {
            let mut bytes = Vec::with_capacity(key_end);
            self.copy_entry(height, key_end, &mut bytes);
            heap = bytes;
            &heap
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
