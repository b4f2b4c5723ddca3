//! Comparators (HBase's `ByteArrayComparable`s) and the compare rule of every compare filter.
//!
//! HBase computes `result = comparator.compareTo(cell_part)` — operand against cell — and
//! a compare filter keeps the cell when `result` satisfies the *mirrored* operator. The net
//! effect, which [`CompiledCompare::passes`] implements directly, is `cell_part OP operand`:
//!
//! | filter                           | cell value | kept? |
//! |----------------------------------|------------|-------|
//! | `ValueFilter(<, 'binary:b')`     | `a`        | yes   |
//! | `ValueFilter(<, 'binary:b')`     | `b`        | no    |
//! | `ValueFilter(>=, 'binaryprefix:ab')` | `abz`  | yes (only 2 bytes compared) |
//! | `ValueFilter(=, 'substring:BC')` | `abcd`     | yes   |
//! | `ValueFilter(!=, 'regexstring:^a')` | `ba`    | yes   |
//!
//! Regex, substring, bit and null comparators only say "equal" (0) or "not equal" (1).

use crate::FilterError;
use basalt_types::filter_spec::{
    BitOp, Comparator, CompareSpec, REGEX_CASE_INSENSITIVE, REGEX_DOTALL, REGEX_MULTILINE,
};
use basalt_types::CompareOp;
use bytes::Bytes;
use std::cmp::Ordering;

/// A comparator ready to run (regexes compiled, substrings lower-cased).
#[derive(Debug, Clone)]
pub enum CompiledComparator {
    Binary(Bytes),
    BinaryPrefix(Bytes),
    Regex(regex::bytes::Regex),
    Substring(Vec<u8>),
    Bit { mask: Bytes, op: BitOp },
    Null,
    Long(i64),
}

impl CompiledComparator {
    pub fn compile(spec: &Comparator) -> Result<Self, FilterError> {
        Ok(match spec {
            Comparator::Binary(b) => Self::Binary(b.clone()),
            Comparator::BinaryPrefix(b) => Self::BinaryPrefix(b.clone()),
            Comparator::RegexString { pattern, flags } => {
                Self::Regex(compile_regex(pattern, *flags)?)
            }
            Comparator::Substring(s) => Self::Substring(s.to_lowercase().into_bytes()),
            Comparator::Bit { mask, op } => Self::Bit {
                mask: mask.clone(),
                op: *op,
            },
            Comparator::Null => Self::Null,
            Comparator::Long(v) => Self::Long(*v),
        })
    }

    /// HBase's `compareTo(cell_part)`: the operand against the cell part.
    pub fn compare_to(&self, cell_part: &[u8]) -> Ordering {
        match self {
            Self::Binary(operand) => operand.as_ref().cmp(cell_part),
            Self::BinaryPrefix(operand) => {
                let len = operand.len().min(cell_part.len());
                operand.as_ref().cmp(&cell_part[..len])
            }
            Self::Regex(re) => equal_if(re.is_match(cell_part)),
            Self::Substring(needle) => {
                let hay = String::from_utf8_lossy(cell_part).to_lowercase();
                equal_if(contains(hay.as_bytes(), needle))
            }
            Self::Bit { mask, op } => equal_if(bit_match(mask, *op, cell_part)),
            Self::Null => equal_if(cell_part.is_empty()),
            Self::Long(operand) => match <[u8; 8]>::try_from(cell_part) {
                Ok(raw) => operand.cmp(&i64::from_be_bytes(raw)),
                // HBase throws on a non-8-byte value; Basalt treats it as "not equal".
                Err(_) => Ordering::Greater,
            },
        }
    }
}

fn equal_if(matched: bool) -> Ordering {
    if matched {
        Ordering::Equal
    } else {
        Ordering::Greater
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
}

fn bit_match(mask: &[u8], op: BitOp, cell_part: &[u8]) -> bool {
    if mask.len() != cell_part.len() {
        return false;
    }
    mask.iter().zip(cell_part).any(|(m, c)| {
        let b = match op {
            BitOp::And => m & c,
            BitOp::Or => m | c,
            BitOp::Xor => m ^ c,
        };
        b != 0
    })
}

fn compile_regex(pattern: &str, flags: u32) -> Result<regex::bytes::Regex, FilterError> {
    let build = |unicode: bool| {
        regex::bytes::RegexBuilder::new(pattern)
            .unicode(unicode)
            .case_insensitive(flags & REGEX_CASE_INSENSITIVE != 0)
            .multi_line(flags & REGEX_MULTILINE != 0)
            .dot_matches_new_line(flags & REGEX_DOTALL != 0)
            .size_limit(1 << 20)
            .build()
    };
    // Byte semantics first (`.` is one byte, classes and case folding ASCII): HBase decodes
    // the cell as ISO-8859-1, one char per byte, and Java folds ASCII case only. Patterns
    // that need Unicode mode (non-ASCII inside a class) fall back to it.
    build(false)
        .or_else(|_| build(true))
        .map_err(|e| FilterError::InvalidRegex {
            pattern: pattern.to_owned(),
            // The regex crate draws a multi-line diagram; its last line says what is wrong.
            reason: e
                .to_string()
                .lines()
                .last()
                .unwrap_or_default()
                .trim_start_matches("error: ")
                .to_owned(),
        })
}

/// An operator with its compiled operand: the test every compare filter runs.
#[derive(Debug, Clone)]
pub struct CompiledCompare {
    pub op: CompareOp,
    pub comparator: CompiledComparator,
}

impl CompiledCompare {
    pub fn compile(spec: &CompareSpec) -> Result<Self, FilterError> {
        Ok(Self {
            op: spec.op,
            comparator: CompiledComparator::compile(&spec.comparator)?,
        })
    }

    /// Whether the cell part is kept: `cell_part OP operand` (`NO_OP` keeps nothing).
    pub fn passes(&self, cell_part: &[u8]) -> bool {
        self.op
            .holds(self.comparator.compare_to(cell_part).reverse())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(op: CompareOp, comparator: Comparator, cell: &[u8]) -> bool {
        let spec = CompareSpec { op, comparator };
        CompiledCompare::compile(&spec).expect("valid").passes(cell)
    }

    #[test]
    fn the_documented_table_holds() {
        let b = || Comparator::Binary(Bytes::from_static(b"b"));
        assert!(check(CompareOp::Less, b(), b"a"));
        assert!(!check(CompareOp::Less, b(), b"b"));
        let p = Comparator::BinaryPrefix(Bytes::from_static(b"ab"));
        assert!(check(CompareOp::GreaterOrEqual, p, b"abz"));
        assert!(check(
            CompareOp::Equal,
            Comparator::Substring("BC".into()),
            b"abcd"
        ));
        let re = Comparator::RegexString {
            pattern: "^a".into(),
            flags: REGEX_DOTALL,
        };
        assert!(check(CompareOp::NotEqual, re, b"ba"));
    }

    #[test]
    fn regex_sees_one_char_per_byte() {
        let re = |pattern: &str| Comparator::RegexString {
            pattern: pattern.into(),
            flags: REGEX_DOTALL,
        };
        assert!(check(CompareOp::Equal, re("^a.b$"), b"a\xffb"));
        assert!(check(CompareOp::Equal, re("^a..b$"), "aéb".as_bytes()));
        assert!(check(CompareOp::Equal, re("é"), "café".as_bytes()));
        assert!(check(CompareOp::Equal, re("\\d+"), b"x12"));
        assert!(check(CompareOp::Equal, re("[é]"), "café".as_bytes()));
    }

    #[test]
    fn bit_long_and_null() {
        let bit = |op| Comparator::Bit {
            mask: Bytes::from_static(&[0x0f]),
            op,
        };
        assert!(check(CompareOp::Equal, bit(BitOp::And), &[0x01]));
        assert!(!check(CompareOp::Equal, bit(BitOp::And), &[0x10]));
        assert!(check(CompareOp::Equal, bit(BitOp::Xor), &[0x10]));
        assert!(!check(CompareOp::Equal, bit(BitOp::Or), &[0x10, 0]));
        let seven = 7i64.to_be_bytes();
        assert!(check(CompareOp::Greater, Comparator::Long(5), &seven));
        assert!(!check(CompareOp::Less, Comparator::Long(5), &seven));
        assert!(check(CompareOp::Equal, Comparator::Null, b""));
        assert!(!check(CompareOp::NoOp, Comparator::Null, b""));
    }
}
