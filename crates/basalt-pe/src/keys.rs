//! Row keys and column names, as HBase's PerformanceEvaluation and YCSB write them.
//!
//! | tool | row `n` | example (`n` = 1) |
//! |------|---------|-------------------|
//! | PE   | `n` in decimal, zero-padded to [`PE_ROW_LENGTH`] = 26 digits (PE's `format(int)`) | `00000000000000000000000001` |
//! | YCSB | `user` + FNV-1a 64 of `n`'s 8 little-endian bytes, as a signed long's absolute value (`insertorder=hashed`) | `user8517097267634966620` |
//!
//! PE keys sort in numeric order, so a client's range of rows is one key range; YCSB keys
//! scatter, so inserts spread over every region.

/// PE's `ROW_LENGTH`.
pub const PE_ROW_LENGTH: usize = 26;
/// PE's families are `info0`, `info1`, …
pub const PE_FAMILY_PREFIX: &str = "info";
/// YCSB's HBase binding column family (`-p columnfamily=family`).
pub const YCSB_FAMILY: &str = "family";
/// YCSB's default `fieldcount`.
pub const YCSB_FIELD_COUNT: usize = 10;
/// YCSB's default `fieldlength`.
pub const YCSB_FIELD_BYTES: usize = 100;

const FNV_OFFSET_BASIS_64: u64 = 0xCBF2_9CE4_8422_2325;
const FNV_PRIME_64: u64 = 1_099_511_628_211;

/// PE's row key for row `n`: 26 decimal digits, zero-padded.
pub fn pe_row(n: u64) -> Vec<u8> {
    format!("{n:0width$}", width = PE_ROW_LENGTH).into_bytes()
}

/// PE's family `index` (`info0`, `info1`, …).
pub fn pe_family(index: u32) -> String {
    format!("{PE_FAMILY_PREFIX}{index}")
}

/// PE's column `index` (`0`, `1`, …).
pub fn pe_qualifier(index: u32) -> String {
    index.to_string()
}

/// YCSB's `Utils.fnvhash64`: FNV-1a over the 8 low-to-high bytes of `value`, then the
/// absolute value of the result read as a signed long (`Long.MIN_VALUE` stays negative, as
/// Java's `Math.abs` leaves it).
pub fn fnv_hash64(value: u64) -> i64 {
    let mut hash = FNV_OFFSET_BASIS_64;
    let mut rest = value;
    for _ in 0..8 {
        hash ^= rest & 0xff;
        hash = hash.wrapping_mul(FNV_PRIME_64);
        rest >>= 8;
    }
    (hash as i64).wrapping_abs()
}

/// YCSB's record key for record number `n` (`CoreWorkload.buildKeyName`, hashed order).
pub fn ycsb_key(n: u64) -> Vec<u8> {
    format!("user{}", fnv_hash64(n)).into_bytes()
}

/// YCSB's field `index` (`field0` … `field9`).
pub fn ycsb_field(index: usize) -> String {
    format!("field{index}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pe_rows_are_26_zero_padded_digits() {
        assert_eq!(pe_row(0), b"00000000000000000000000000");
        assert_eq!(pe_row(1), b"00000000000000000000000001");
        assert_eq!(pe_row(1_048_575), b"00000000000000000001048575");
        assert!(pe_row(9) < pe_row(10), "padding keeps numeric order");
        assert_eq!(pe_family(0), "info0");
        assert_eq!(pe_qualifier(3), "3");
    }

    /// FNV-1a of eight zero bytes is the offset basis times the prime eight times.
    #[test]
    fn fnv_of_zero_is_the_basis_times_prime_to_the_eighth() {
        let mut by_hand = FNV_OFFSET_BASIS_64;
        for _ in 0..8 {
            by_hand = by_hand.wrapping_mul(FNV_PRIME_64);
        }
        assert_eq!(fnv_hash64(0), (by_hand as i64).wrapping_abs());
        assert_eq!(fnv_hash64(0), 6_284_781_860_667_377_211);
    }

    /// For 1 only the first byte differs: xor 1 into the basis, then multiply eight times.
    #[test]
    fn fnv_of_one_xors_the_first_byte() {
        let mut by_hand = FNV_OFFSET_BASIS_64 ^ 1;
        for _ in 0..8 {
            by_hand = by_hand.wrapping_mul(FNV_PRIME_64);
        }
        assert_eq!(fnv_hash64(1), (by_hand as i64).wrapping_abs());
        assert_eq!(ycsb_key(0), b"user6284781860667377211");
        assert_eq!(ycsb_key(1), b"user8517097267634966620");
        assert_eq!(ycsb_key(256), b"user2056600594528442646");
        assert_eq!(ycsb_field(9), "field9");
    }
}
