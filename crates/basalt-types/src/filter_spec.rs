//! Filters as plain data: what a scan asks for, independent of how it is evaluated.
//!
//! `basalt-filter` turns a [`FilterSpec`] into an evaluator, parses the HBase filter
//! language into one, prints one back, and encodes one as bytes for the wire.
//!
//! Every compare filter keeps a cell when `cell_part OP operand` holds, e.g.
//! `Value(CompareSpec { op: Less, comparator: Binary("b") })` keeps values sorting before
//! `b` (HBase computes `operand.compareTo(cell)` and inverts; the net effect is the same).

use crate::CompareOp;
use bytes::Bytes;

/// `java.util.regex.Pattern.CASE_INSENSITIVE`.
pub const REGEX_CASE_INSENSITIVE: u32 = 0x02;
/// `java.util.regex.Pattern.MULTILINE`.
pub const REGEX_MULTILINE: u32 = 0x08;
/// `java.util.regex.Pattern.DOTALL` (the default of HBase's `RegexStringComparator`).
pub const REGEX_DOTALL: u32 = 0x20;

/// The bitwise operator of a bit comparator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BitOp {
    And,
    Or,
    Xor,
}

/// HBase's `ByteArrayComparable`s: what a compare filter compares the cell part against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Comparator {
    /// Unsigned lexicographic compare (`binary:`).
    Binary(Bytes),
    /// Compare only the first `len(operand)` bytes of the cell part (`binaryprefix:`).
    BinaryPrefix(Bytes),
    /// Unanchored regex search (`regexstring:`); `flags` are Java's `Pattern` flag bits
    /// ([`REGEX_CASE_INSENSITIVE`], [`REGEX_MULTILINE`], [`REGEX_DOTALL`]). Matches only
    /// with `=` / `!=`.
    RegexString { pattern: String, flags: u32 },
    /// Case-insensitive "contains" (`substring:`). Matches only with `=` / `!=`.
    Substring(String),
    /// Equal when `cell[i] OP mask[i]` is non-zero for some byte (lengths must agree).
    Bit { mask: Bytes, op: BitOp },
    /// Equal when the cell part is empty.
    Null,
    /// The cell part read as an 8-byte big-endian signed long.
    Long(i64),
}

/// A compare operator and its operand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompareSpec {
    pub op: CompareOp,
    pub comparator: Comparator,
}

/// The test of `SingleColumnValueFilter` / `SingleColumnValueExcludeFilter`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SingleColumnValueSpec {
    pub family: Bytes,
    pub qualifier: Bytes,
    pub compare: CompareSpec,
    /// Drop rows that lack the column (HBase default false).
    pub filter_if_missing: bool,
    /// Test only the newest version (HBase default true).
    pub latest_version_only: bool,
}

/// Where `ColumnPaginationFilter` starts in each row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnOffset {
    /// Skip this many columns.
    Index(i32),
    /// Start at the first column at or after this qualifier.
    Qualifier(Bytes),
}

/// One rule of `FuzzyRowFilter`: `mask[i]` is 0 where `row[i]` must equal `key[i]`, 1 where
/// any byte is allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FuzzyKey {
    pub key: Bytes,
    pub mask: Bytes,
}

/// One range of `MultiRowRangeFilter`; an empty `start` / `stop` is unbounded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowRange {
    pub start: Bytes,
    pub start_inclusive: bool,
    pub stop: Bytes,
    pub stop_inclusive: bool,
}

/// A server-side filter (HBase's `org.apache.hadoop.hbase.filter` catalogue).
#[derive(Debug, Clone, PartialEq)]
pub enum FilterSpec {
    /// Every filter passes (`AND`, MUST_PASS_ALL) or any does (`OR`, MUST_PASS_ONE).
    List {
        must_pass_all: bool,
        filters: Vec<FilterSpec>,
    },
    /// `SKIP f`: drop the whole row when any cell fails `f`.
    Skip(Box<FilterSpec>),
    /// `WHILE f`: end the scan at the first cell or row failing `f`.
    WhileMatch(Box<FilterSpec>),
    /// Rows whose key satisfies the compare.
    Row(CompareSpec),
    /// Cells whose family satisfies the compare.
    Family(CompareSpec),
    /// Cells whose qualifier satisfies the compare.
    Qualifier(CompareSpec),
    /// Cells whose value satisfies the compare.
    Value(CompareSpec),
    /// Whole rows whose tested column satisfies the compare.
    SingleColumnValue(SingleColumnValueSpec),
    /// As `SingleColumnValue`, without the tested column in the output.
    SingleColumnValueExclude(SingleColumnValueSpec),
    /// Only the tested column's cells that satisfy the compare.
    ColumnValue {
        family: Bytes,
        qualifier: Bytes,
        compare: CompareSpec,
    },
    /// Cells whose timestamp equals one of the reference column's (passing) timestamps.
    DependentColumn {
        family: Bytes,
        qualifier: Bytes,
        drop_dependent_column: bool,
        compare: Option<CompareSpec>,
    },
    /// Rows whose key starts with the prefix.
    Prefix(Bytes),
    /// Cells whose qualifier starts with the prefix.
    ColumnPrefix(Bytes),
    /// Cells whose qualifier starts with any of the prefixes.
    MultipleColumnPrefix(Vec<Bytes>),
    /// Cells whose qualifier lies in the range (an empty bound is unbounded).
    ColumnRange {
        min: Bytes,
        min_inclusive: bool,
        max: Bytes,
        max_inclusive: bool,
    },
    /// Per row, `limit` columns starting at `offset`.
    ColumnPagination { limit: i32, offset: ColumnOffset },
    /// The first `limit` columns; the scan ends at the first row with more.
    ColumnCountGet(i32),
    /// At most this many rows (per region, as in HBase).
    Page(u64),
    /// Cells without values (with the value's length as a 4-byte value when asked).
    KeyOnly { length_as_value: bool },
    /// Only the first cell of each row.
    FirstKeyOnly,
    /// Cells of each row up to and including the first whose qualifier is listed.
    FirstKeyValueMatchingQualifiers(Vec<Bytes>),
    /// Rows up to and including the stop row.
    InclusiveStop(Bytes),
    /// Cells with one of the timestamps; `can_hint` seeks to the next listed timestamp.
    Timestamps {
        timestamps: Vec<i64>,
        can_hint: bool,
    },
    /// Each row passes with probability `chance` (random sequence seeded by `seed`).
    RandomRow { chance: f32, seed: u64 },
    /// Rows matching any fuzzy rule.
    FuzzyRow(Vec<FuzzyKey>),
    /// Rows in any of the ranges.
    MultiRowRange(Vec<RowRange>),
}

impl FilterSpec {
    /// The filter's HBase class name (`FilterList` for lists).
    pub fn name(&self) -> &'static str {
        match self {
            Self::List { .. } => "FilterList",
            Self::Skip(_) => "SkipFilter",
            Self::WhileMatch(_) => "WhileMatchFilter",
            Self::Row(_) => "RowFilter",
            Self::Family(_) => "FamilyFilter",
            Self::Qualifier(_) => "QualifierFilter",
            Self::Value(_) => "ValueFilter",
            Self::SingleColumnValue(_) => "SingleColumnValueFilter",
            Self::SingleColumnValueExclude(_) => "SingleColumnValueExcludeFilter",
            Self::ColumnValue { .. } => "ColumnValueFilter",
            Self::DependentColumn { .. } => "DependentColumnFilter",
            Self::Prefix(_) => "PrefixFilter",
            Self::ColumnPrefix(_) => "ColumnPrefixFilter",
            Self::MultipleColumnPrefix(_) => "MultipleColumnPrefixFilter",
            Self::ColumnRange { .. } => "ColumnRangeFilter",
            Self::ColumnPagination { .. } => "ColumnPaginationFilter",
            Self::ColumnCountGet(_) => "ColumnCountGetFilter",
            Self::Page(_) => "PageFilter",
            Self::KeyOnly { .. } => "KeyOnlyFilter",
            Self::FirstKeyOnly => "FirstKeyOnlyFilter",
            Self::FirstKeyValueMatchingQualifiers(_) => "FirstKeyValueMatchingQualifiersFilter",
            Self::InclusiveStop(_) => "InclusiveStopFilter",
            Self::Timestamps { .. } => "TimestampsFilter",
            Self::RandomRow { .. } => "RandomRowFilter",
            Self::FuzzyRow(_) => "FuzzyRowFilter",
            Self::MultiRowRange(_) => "MultiRowRangeFilter",
        }
    }
}
