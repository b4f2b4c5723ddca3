//! The binary form of a [`FilterSpec`](basalt_types::FilterSpec): every filter, including
//! those the language cannot spell. Big-endian throughout.
//!
//! ```text
//! message    := version:u8 (=1) spec                       -- nothing may follow
//! spec       := tag:u8 fields                               -- tags in `tags.rs`
//! bytes      := len:u32 data[len]                           -- len <= BYTES_LEN_MAX
//! string     := bytes (UTF-8)
//! list<T>    := count:u32 T[count]                          -- count <= LIST_LEN_MAX
//! bool       := u8 (0 | 1);  i32, i64, u64 := two's complement; f32 := IEEE bits as u32
//! compare    := op:u8 (LESS=0 .. GREATER=5, NO_OP=6) comparator
//! comparator := tag:u8 fields   (binary=0 bytes, binaryprefix=1 bytes,
//!               regexstring=2 string flags:u32, substring=3 string,
//!               bit=4 op:u8 (and=0 or=1 xor=2) bytes, null=5, long=6 i64)
//! ```
//!
//! E.g. `PrefixFilter('ab')` is `01 0B 00 00 00 02 61 62`.
//!
//! Decoding checks every length against [`BYTES_LEN_MAX`], [`LIST_LEN_MAX`] and the bytes
//! left before allocating, and nesting against [`crate::DEPTH_MAX`]; malformed input is a
//! [`DecodeError`], never a panic.

mod decode;
mod encode;
mod tags;

pub use decode::decode;
pub use encode::encode;

/// The only format version so far.
pub const WIRE_VERSION: u8 = 1;
/// The longest message accepted.
pub const MESSAGE_BYTES_MAX: usize = 16 << 20;
/// The longest byte string or UTF-8 string in a message.
pub const BYTES_LEN_MAX: usize = 1 << 20;
/// The most items in one list (filters of a list, prefixes, timestamps, ranges, ...).
pub const LIST_LEN_MAX: usize = 100_000;

/// Why bytes are not a filter.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("message of {len} bytes exceeds {max}")]
    MessageTooLong { len: usize, max: usize },
    #[error("unsupported filter wire version {0}")]
    Version(u8),
    #[error("truncated at byte {offset}: needed {needed} more")]
    Truncated { offset: usize, needed: usize },
    #[error("unknown {what} tag {tag} at byte {offset}")]
    UnknownTag {
        what: &'static str,
        tag: u8,
        offset: usize,
    },
    #[error("length {len} at byte {offset} exceeds {max}")]
    TooLong {
        len: usize,
        max: usize,
        offset: usize,
    },
    #[error("filters nested deeper than {depth_max}")]
    TooDeep { depth_max: usize },
    #[error("invalid {what} at byte {offset}")]
    Invalid { what: &'static str, offset: usize },
    #[error("{extra} trailing bytes after the filter")]
    Trailing { extra: usize },
}
