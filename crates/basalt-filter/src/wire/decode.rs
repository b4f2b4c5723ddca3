//! Bytes → spec, checking every length before allocating.

use super::{tags, DecodeError, BYTES_LEN_MAX, LIST_LEN_MAX, MESSAGE_BYTES_MAX, WIRE_VERSION};
use crate::DEPTH_MAX;
use basalt_types::filter_spec::{
    BitOp, ColumnOffset, Comparator, CompareSpec, FuzzyKey, RowRange, SingleColumnValueSpec,
};
use basalt_types::{CompareOp, FilterSpec};
use bytes::Bytes;

/// Decodes a message made by [`super::encode`].
pub fn decode(bytes: &[u8]) -> Result<FilterSpec, DecodeError> {
    if bytes.len() > MESSAGE_BYTES_MAX {
        return Err(DecodeError::MessageTooLong {
            len: bytes.len(),
            max: MESSAGE_BYTES_MAX,
        });
    }
    let mut r = Reader { bytes, at: 0 };
    let version = r.u8()?;
    if version != WIRE_VERSION {
        return Err(DecodeError::Version(version));
    }
    let spec = r.spec(1)?;
    match bytes.len() - r.at {
        0 => Ok(spec),
        extra => Err(DecodeError::Trailing { extra }),
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], DecodeError> {
        let left = self.bytes.len() - self.at;
        if n > left {
            return Err(DecodeError::Truncated {
                offset: self.at,
                needed: n - left,
            });
        }
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let raw = self.take(N)?;
        Ok(<[u8; N]>::try_from(raw).expect("take returned exactly N bytes"))
    }

    fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.array::<1>()?[0])
    }

    fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    fn i32(&mut self) -> Result<i32, DecodeError> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    fn i64(&mut self) -> Result<i64, DecodeError> {
        Ok(i64::from_be_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, DecodeError> {
        Ok(u64::from_be_bytes(self.array()?))
    }

    fn bool(&mut self) -> Result<bool, DecodeError> {
        let offset = self.at;
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(DecodeError::Invalid {
                what: "boolean",
                offset,
            }),
        }
    }

    /// A length prefix, checked against `max` and against the bytes left (each counted item
    /// takes at least `min_item_bytes`).
    fn len(&mut self, max: usize, min_item_bytes: usize) -> Result<usize, DecodeError> {
        let offset = self.at;
        let len = usize::try_from(self.u32()?).unwrap_or(usize::MAX);
        let left = self.bytes.len() - self.at;
        if len > max {
            return Err(DecodeError::TooLong { len, max, offset });
        }
        if len.saturating_mul(min_item_bytes) > left {
            return Err(DecodeError::Truncated {
                offset,
                needed: len.saturating_mul(min_item_bytes) - left,
            });
        }
        Ok(len)
    }

    fn bytes(&mut self) -> Result<Bytes, DecodeError> {
        let len = self.len(BYTES_LEN_MAX, 1)?;
        Ok(Bytes::copy_from_slice(self.take(len)?))
    }

    fn string(&mut self) -> Result<String, DecodeError> {
        let offset = self.at;
        let raw = self.bytes()?;
        String::from_utf8(raw.to_vec()).map_err(|_| DecodeError::Invalid {
            what: "UTF-8 string",
            offset,
        })
    }

    fn list<T>(
        &mut self,
        min_item_bytes: usize,
        mut item: impl FnMut(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<Vec<T>, DecodeError> {
        let n = self.len(LIST_LEN_MAX, min_item_bytes)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(item(self)?);
        }
        Ok(out)
    }

    fn op(&mut self) -> Result<CompareOp, DecodeError> {
        let offset = self.at;
        Ok(match self.u8()? {
            0 => CompareOp::Less,
            1 => CompareOp::LessOrEqual,
            2 => CompareOp::Equal,
            3 => CompareOp::NotEqual,
            4 => CompareOp::GreaterOrEqual,
            5 => CompareOp::Greater,
            6 => CompareOp::NoOp,
            tag => {
                return Err(DecodeError::UnknownTag {
                    what: "compare operator",
                    tag,
                    offset,
                })
            }
        })
    }

    fn compare(&mut self) -> Result<CompareSpec, DecodeError> {
        let op = self.op()?;
        let offset = self.at;
        let comparator = match self.u8()? {
            tags::CMP_BINARY => Comparator::Binary(self.bytes()?),
            tags::CMP_BINARY_PREFIX => Comparator::BinaryPrefix(self.bytes()?),
            tags::CMP_REGEX => Comparator::RegexString {
                pattern: self.string()?,
                flags: self.u32()?,
            },
            tags::CMP_SUBSTRING => Comparator::Substring(self.string()?),
            tags::CMP_BIT => {
                let op_at = self.at;
                let op = match self.u8()? {
                    0 => BitOp::And,
                    1 => BitOp::Or,
                    2 => BitOp::Xor,
                    tag => {
                        return Err(DecodeError::UnknownTag {
                            what: "bit operator",
                            tag,
                            offset: op_at,
                        })
                    }
                };
                Comparator::Bit {
                    mask: self.bytes()?,
                    op,
                }
            }
            tags::CMP_NULL => Comparator::Null,
            tags::CMP_LONG => Comparator::Long(self.i64()?),
            tag => {
                return Err(DecodeError::UnknownTag {
                    what: "comparator",
                    tag,
                    offset,
                })
            }
        };
        Ok(CompareSpec { op, comparator })
    }

    fn single_column_value(&mut self) -> Result<SingleColumnValueSpec, DecodeError> {
        Ok(SingleColumnValueSpec {
            family: self.bytes()?,
            qualifier: self.bytes()?,
            compare: self.compare()?,
            filter_if_missing: self.bool()?,
            latest_version_only: self.bool()?,
        })
    }

    fn spec(&mut self, depth: usize) -> Result<FilterSpec, DecodeError> {
        if depth > DEPTH_MAX {
            return Err(DecodeError::TooDeep {
                depth_max: DEPTH_MAX,
            });
        }
        let offset = self.at;
        Ok(match self.u8()? {
            tags::LIST => FilterSpec::List {
                must_pass_all: self.bool()?,
                filters: self.list(1, |r| r.spec(depth + 1))?,
            },
            tags::SKIP => FilterSpec::Skip(Box::new(self.spec(depth + 1)?)),
            tags::WHILE_MATCH => FilterSpec::WhileMatch(Box::new(self.spec(depth + 1)?)),
            tags::ROW => FilterSpec::Row(self.compare()?),
            tags::FAMILY => FilterSpec::Family(self.compare()?),
            tags::QUALIFIER => FilterSpec::Qualifier(self.compare()?),
            tags::VALUE => FilterSpec::Value(self.compare()?),
            tags::SINGLE_COLUMN_VALUE => FilterSpec::SingleColumnValue(self.single_column_value()?),
            tags::SINGLE_COLUMN_VALUE_EXCLUDE => {
                FilterSpec::SingleColumnValueExclude(self.single_column_value()?)
            }
            tags::COLUMN_VALUE => FilterSpec::ColumnValue {
                family: self.bytes()?,
                qualifier: self.bytes()?,
                compare: self.compare()?,
            },
            tags::DEPENDENT_COLUMN => FilterSpec::DependentColumn {
                family: self.bytes()?,
                qualifier: self.bytes()?,
                drop_dependent_column: self.bool()?,
                compare: if self.bool()? {
                    Some(self.compare()?)
                } else {
                    None
                },
            },
            tags::PREFIX => FilterSpec::Prefix(self.bytes()?),
            tags::COLUMN_PREFIX => FilterSpec::ColumnPrefix(self.bytes()?),
            tags::MULTIPLE_COLUMN_PREFIX => {
                FilterSpec::MultipleColumnPrefix(self.list(4, Self::bytes)?)
            }
            tags::COLUMN_RANGE => FilterSpec::ColumnRange {
                min: self.bytes()?,
                min_inclusive: self.bool()?,
                max: self.bytes()?,
                max_inclusive: self.bool()?,
            },
            tags::COLUMN_PAGINATION => {
                let limit = self.i32()?;
                let offset_at = self.at;
                let offset = match self.u8()? {
                    tags::OFFSET_INDEX => ColumnOffset::Index(self.i32()?),
                    tags::OFFSET_QUALIFIER => ColumnOffset::Qualifier(self.bytes()?),
                    tag => {
                        return Err(DecodeError::UnknownTag {
                            what: "column offset",
                            tag,
                            offset: offset_at,
                        })
                    }
                };
                FilterSpec::ColumnPagination { limit, offset }
            }
            tags::COLUMN_COUNT_GET => FilterSpec::ColumnCountGet(self.i32()?),
            tags::PAGE => FilterSpec::Page(self.u64()?),
            tags::KEY_ONLY => FilterSpec::KeyOnly {
                length_as_value: self.bool()?,
            },
            tags::FIRST_KEY_ONLY => FilterSpec::FirstKeyOnly,
            tags::FIRST_KEY_VALUE_MATCHING_QUALIFIERS => {
                FilterSpec::FirstKeyValueMatchingQualifiers(self.list(4, Self::bytes)?)
            }
            tags::INCLUSIVE_STOP => FilterSpec::InclusiveStop(self.bytes()?),
            tags::TIMESTAMPS => {
                let can_hint = self.bool()?;
                FilterSpec::Timestamps {
                    timestamps: self.list(8, Self::i64)?,
                    can_hint,
                }
            }
            tags::RANDOM_ROW => FilterSpec::RandomRow {
                chance: f32::from_bits(self.u32()?),
                seed: self.u64()?,
            },
            tags::FUZZY_ROW => FilterSpec::FuzzyRow(self.list(8, |r| {
                Ok(FuzzyKey {
                    key: r.bytes()?,
                    mask: r.bytes()?,
                })
            })?),
            tags::MULTI_ROW_RANGE => FilterSpec::MultiRowRange(self.list(10, |r| {
                Ok(RowRange {
                    start: r.bytes()?,
                    start_inclusive: r.bool()?,
                    stop: r.bytes()?,
                    stop_inclusive: r.bool()?,
                })
            })?),
            tag => {
                return Err(DecodeError::UnknownTag {
                    what: "filter",
                    tag,
                    offset,
                })
            }
        })
    }
}
