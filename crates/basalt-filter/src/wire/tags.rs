//! Tag bytes of the wire form. Never renumber: add new tags at the end.

pub const LIST: u8 = 0;
pub const SKIP: u8 = 1;
pub const WHILE_MATCH: u8 = 2;
pub const ROW: u8 = 3;
pub const FAMILY: u8 = 4;
pub const QUALIFIER: u8 = 5;
pub const VALUE: u8 = 6;
pub const SINGLE_COLUMN_VALUE: u8 = 7;
pub const SINGLE_COLUMN_VALUE_EXCLUDE: u8 = 8;
pub const COLUMN_VALUE: u8 = 9;
pub const DEPENDENT_COLUMN: u8 = 10;
pub const PREFIX: u8 = 11;
pub const COLUMN_PREFIX: u8 = 12;
pub const MULTIPLE_COLUMN_PREFIX: u8 = 13;
pub const COLUMN_RANGE: u8 = 14;
pub const COLUMN_PAGINATION: u8 = 15;
pub const COLUMN_COUNT_GET: u8 = 16;
pub const PAGE: u8 = 17;
pub const KEY_ONLY: u8 = 18;
pub const FIRST_KEY_ONLY: u8 = 19;
pub const FIRST_KEY_VALUE_MATCHING_QUALIFIERS: u8 = 20;
pub const INCLUSIVE_STOP: u8 = 21;
pub const TIMESTAMPS: u8 = 22;
pub const RANDOM_ROW: u8 = 23;
pub const FUZZY_ROW: u8 = 24;
pub const MULTI_ROW_RANGE: u8 = 25;

pub const CMP_BINARY: u8 = 0;
pub const CMP_BINARY_PREFIX: u8 = 1;
pub const CMP_REGEX: u8 = 2;
pub const CMP_SUBSTRING: u8 = 3;
pub const CMP_BIT: u8 = 4;
pub const CMP_NULL: u8 = 5;
pub const CMP_LONG: u8 = 6;

/// Column pagination offsets: by index or by qualifier.
pub const OFFSET_INDEX: u8 = 0;
pub const OFFSET_QUALIFIER: u8 = 1;
