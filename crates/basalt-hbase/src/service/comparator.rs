//! Comparators in their protobuf form (`Comparator`: a Java class name and that class's
//! message) and HBase's `CompareType`, to Basalt's [`Comparator`] and [`CompareOp`].

use super::filter::{decode, FILTERS};
use crate::pb;
use crate::RpcError;
use basalt_types::filter_spec::{BitOp, Comparator};
use basalt_types::CompareOp;

pub fn compare_op(code: i32) -> Result<CompareOp, RpcError> {
    use pb::CompareType as C;
    Ok(match C::try_from(code) {
        Ok(C::Less) => CompareOp::Less,
        Ok(C::LessOrEqual) => CompareOp::LessOrEqual,
        Ok(C::Equal) => CompareOp::Equal,
        Ok(C::NotEqual) => CompareOp::NotEqual,
        Ok(C::GreaterOrEqual) => CompareOp::GreaterOrEqual,
        Ok(C::Greater) => CompareOp::Greater,
        Ok(C::NoOp) => CompareOp::NoOp,
        Err(_) => {
            return Err(RpcError::do_not_retry(format!(
                "unknown compare type {code}"
            )))
        }
    })
}

pub fn comparator(pb: &pb::Comparator) -> Result<Comparator, RpcError> {
    let name = pb.name.as_str();
    let bytes = pb.serialized_comparator.as_ref();
    let short = name.strip_prefix(FILTERS).unwrap_or(name);
    Ok(match short {
        "BinaryComparator" => {
            let c: pb::BinaryComparator = decode(bytes, name)?;
            Comparator::Binary(c.comparable.value.unwrap_or_default())
        }
        "BinaryPrefixComparator" => {
            let c: pb::BinaryPrefixComparator = decode(bytes, name)?;
            Comparator::BinaryPrefix(c.comparable.value.unwrap_or_default())
        }
        "LongComparator" => {
            let c: pb::LongComparator = decode(bytes, name)?;
            let value = c.comparable.value.unwrap_or_default();
            let long: [u8; 8] = value
                .as_ref()
                .try_into()
                .map_err(|_| RpcError::do_not_retry("LongComparator needs an 8-byte value"))?;
            Comparator::Long(i64::from_be_bytes(long))
        }
        "NullComparator" => Comparator::Null,
        "SubstringComparator" => {
            let c: pb::SubstringComparator = decode(bytes, name)?;
            Comparator::Substring(c.substr)
        }
        "RegexStringComparator" => {
            let c: pb::RegexStringComparator = decode(bytes, name)?;
            Comparator::RegexString {
                pattern: c.pattern,
                flags: c.pattern_flags as u32,
            }
        }
        "BitComparator" => {
            let c: pb::BitComparator = decode(bytes, name)?;
            use pb::bit_comparator::BitwiseOp as B;
            let op = match B::try_from(c.bitwise_op) {
                Ok(B::And) => BitOp::And,
                Ok(B::Or) => BitOp::Or,
                Ok(B::Xor) => BitOp::Xor,
                Err(_) => {
                    return Err(RpcError::do_not_retry(
                        "BitComparator with an unknown operator",
                    ))
                }
            };
            Comparator::Bit {
                mask: c.comparable.value.unwrap_or_default(),
                op,
            }
        }
        _ => {
            return Err(RpcError::do_not_retry(format!(
                "comparator {name} is not supported by Basalt"
            )))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use prost::Message;

    #[test]
    fn bit_and_binary_comparators_translate_and_unknown_ones_are_refused() {
        let bit = pb::Comparator {
            name: format!("{FILTERS}BitComparator"),
            serialized_comparator: Some(Bytes::from(
                pb::BitComparator {
                    comparable: pb::ByteArrayComparable {
                        value: Some(Bytes::from_static(b"\x0f")),
                    },
                    bitwise_op: pb::bit_comparator::BitwiseOp::Xor as i32,
                }
                .encode_to_vec(),
            )),
        };
        assert_eq!(
            comparator(&bit).expect("bit"),
            Comparator::Bit {
                mask: Bytes::from_static(b"\x0f"),
                op: BitOp::Xor
            }
        );
        let unknown = pb::Comparator {
            name: "com.example.Odd".into(),
            serialized_comparator: None,
        };
        assert!(comparator(&unknown)
            .expect_err("refused")
            .message
            .contains("com.example.Odd"));
        assert_eq!(compare_op(5).expect("GREATER"), CompareOp::Greater);
        assert!(compare_op(42).is_err());
    }
}
