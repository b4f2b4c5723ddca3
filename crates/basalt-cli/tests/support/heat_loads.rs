//! The three loads of the hot-spot tests: sequential keys (timestamps) into a pre-split
//! table, salted keys over a table pre-split at the salts, and the seeds' "lumpy" split
//! (a byte-range split of "0000000000000000".."ffffffffffffffff", as `Bytes.split` cuts
//! it) written with decimal keys.

use bytes::Bytes;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Load {
    Sequential,
    Salted,
    Lumpy,
}

pub const LOADS: [Load; 3] = [Load::Sequential, Load::Salted, Load::Lumpy];

impl Load {
    pub fn name(self) -> &'static str {
        match self {
            Load::Sequential => "sequential",
            Load::Salted => "salted",
            Load::Lumpy => "lumpy",
        }
    }

    /// The table's split keys at creation.
    pub fn splits(self) -> Vec<Bytes> {
        match self {
            Load::Sequential => ["1", "2", "3"].iter().map(|s| Bytes::from(*s)).collect(),
            Load::Salted => (1..8).map(|i| Bytes::from(format!("{i}|"))).collect(),
            Load::Lumpy => lumpy_splits(),
        }
    }

    /// Row `i` of the load.
    pub fn row(self, i: u64) -> Bytes {
        match self {
            Load::Sequential => Bytes::from(format!("{}", 1_700_000_000_000u64 + i)),
            Load::Salted => Bytes::from(format!("{}|{}", i % 8, 1_700_000_000_000u64 + i)),
            Load::Lumpy => {
                let n = (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20;
                Bytes::from(format!("{:012}", n % 1_000_000_000_000))
            }
        }
    }
}

/// `Bytes.split("0000000000000000", "ffffffffffffffff", 8)`: the two ends and eight keys
/// evenly between them, as numbers of sixteen bytes.
fn lumpy_splits() -> Vec<Bytes> {
    let lo = u128::from_be_bytes(*b"0000000000000000");
    let hi = u128::from_be_bytes(*b"ffffffffffffffff");
    (0..=9u128)
        .map(|i| Bytes::copy_from_slice(&(lo + (hi - lo) / 9 * i).to_be_bytes()))
        .collect()
}
