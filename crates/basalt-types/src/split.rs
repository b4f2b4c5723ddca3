//! Pre-split points for `create` with `NUMREGIONS` and `SPLITALGO` (HBase's RegionSplitter
//! algorithms), and checks on explicit `SPLITS`.
//!
//! | algorithm | key space | split `i` of `n` |
//! |-----------|-----------|------------------|
//! | `HexStringSplit` | `"00000000"`..`"ffffffff"` | `i × (0xffffffff / n)` as 8 lowercase hex digits |
//! | `DecimalStringSplit` | `"00000000"`..`"99999999"` | `i × (99999999 / n)` as 8 decimal digits |
//! | `UniformSplit` | 8 raw bytes `00…`..`ff…` | `i × (2^64 / n)` as 8 big-endian bytes |

use crate::error::{invalid, Result};
use bytes::Bytes;

/// A RegionSplitter algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitAlgorithm {
    HexString,
    DecimalString,
    Uniform,
}

impl SplitAlgorithm {
    /// Accepts the short names and HBase's class names
    /// (`org.apache.hadoop.hbase.util.RegionSplitter.HexStringSplit`).
    pub fn parse(name: &str) -> Result<Self> {
        let short = name.rsplit(['.', '$']).next().unwrap_or(name);
        match short {
            "HexStringSplit" => Ok(Self::HexString),
            "DecimalStringSplit" => Ok(Self::DecimalString),
            "UniformSplit" => Ok(Self::Uniform),
            _ => Err(invalid(format!(
                "unknown SPLITALGO '{name}': expected HexStringSplit, DecimalStringSplit or UniformSplit"
            ))),
        }
    }

    /// The `regions - 1` split keys that cut the key space into `regions` even parts.
    pub fn split_points(self, regions: u32) -> Result<Vec<Bytes>> {
        if regions < 2 {
            return Err(invalid(format!(
                "NUMREGIONS must be at least 2, got {regions}"
            )));
        }
        let n = u128::from(regions);
        Ok((1..n)
            .map(|i| match self {
                Self::HexString => Bytes::from(format!("{:08x}", i * (0xffff_ffff / n))),
                Self::DecimalString => Bytes::from(format!("{:08}", i * (99_999_999 / n))),
                Self::Uniform => {
                    let point = i * ((1u128 << 64) / n);
                    Bytes::copy_from_slice(&(point as u64).to_be_bytes())
                }
            })
            .collect())
    }
}

/// Sorts explicit split keys and rejects empty or repeated ones.
pub fn check_split_keys(mut keys: Vec<Bytes>) -> Result<Vec<Bytes>> {
    keys.sort();
    if keys.first().is_some_and(|k| k.is_empty()) {
        return Err(invalid(
            "Empty split key must not be passed in the split keys.",
        ));
    }
    if let Some(pair) = keys.windows(2).find(|w| w[0] == w[1]) {
        return Err(invalid(format!(
            "All split keys must be unique, found duplicate: {}",
            crate::escape::to_string_binary(&pair[0])
        )));
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(keys: &[Bytes]) -> Vec<String> {
        keys.iter()
            .map(|k| String::from_utf8_lossy(k).into_owned())
            .collect()
    }

    #[test]
    fn hex_string_split_of_16() {
        let points = SplitAlgorithm::parse("HexStringSplit")
            .expect("known")
            .split_points(16)
            .expect("valid");
        assert_eq!(points.len(), 15);
        assert_eq!(text(&points[..3]), ["0fffffff", "1ffffffe", "2ffffffd"]);
        assert_eq!(text(&points[14..]), ["effffff1"]);
    }

    #[test]
    fn decimal_and_uniform_splits() {
        let dec = SplitAlgorithm::DecimalString
            .split_points(4)
            .expect("valid");
        assert_eq!(text(&dec), ["24999999", "49999998", "74999997"]);
        let uni = SplitAlgorithm::Uniform.split_points(4).expect("valid");
        assert_eq!(uni[0].as_ref(), &[0x40, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(uni[2].as_ref(), &[0xc0, 0, 0, 0, 0, 0, 0, 0]);
        let class = "org.apache.hadoop.hbase.util.RegionSplitter$UniformSplit";
        assert_eq!(
            SplitAlgorithm::parse(class).expect("known"),
            SplitAlgorithm::Uniform
        );
        assert!(SplitAlgorithm::HexString.split_points(1).is_err());
    }

    #[test]
    fn explicit_keys_are_sorted_and_checked() {
        let keys = check_split_keys(vec!["b".into(), "a".into()]).expect("valid");
        assert_eq!(text(&keys), ["a", "b"]);
        assert!(check_split_keys(vec!["a".into(), "a".into()]).is_err());
        assert!(check_split_keys(vec![Bytes::new()]).is_err());
    }
}
