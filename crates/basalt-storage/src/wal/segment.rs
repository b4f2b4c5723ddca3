//! A segment file: its name, its header, and reading its records back.
//!
//! ```text
//! +----------------+-------------+----------------+-------------------+----------+-----
//! | magic 8 bytes  | version u32 | segment_id u64 | crc32c(0..20) u32 | record 0 | ...
//! | "BASALTWL"     | 3           |                |                   |          |
//! +----------------+-------------+----------------+-------------------+----------+-----
//! ```
//! Version 2 added the nonce of an edit (see [`super::edit`]); version 3 records name their
//! segment ([`super::numbered`]), so that a file can be recycled and preallocated: its
//! records end at the first header of zeros or of another segment. Versions 1 and 2 frame
//! records without the id ([`super::record`]) and are read as they are. Segments are named `wal-<id, 20 digits>.log` so that names sort in log order; the header
//! repeats the id, so a renamed or misplaced file is caught. Reading a segment's records
//! back, damage included, is `scan`'s.

pub const SEGMENT_MAGIC: [u8; 8] = *b"BASALTWL";
pub const SEGMENT_VERSION: u32 = 3;
/// The first version whose records name their segment ([`super::numbered`]).
pub const SEGMENT_VERSION_NUMBERED: u32 = 3;
/// The oldest version still read.
pub const SEGMENT_VERSION_MIN: u32 = 1;
pub const SEGMENT_HEADER_LEN: usize = 24;

const NAME_PREFIX: &str = "wal-";
const NAME_SUFFIX: &str = ".log";
const NAME_ID_DIGITS: usize = 20;

/// The file name of segment `id`.
pub fn file_name(id: u64) -> String {
    format!(
        "{NAME_PREFIX}{id:0width$}{NAME_SUFFIX}",
        width = NAME_ID_DIGITS
    )
}

/// The id of a segment file name, or `None` for any other name.
pub fn parse_file_name(name: &str) -> Option<u64> {
    let digits = name.strip_prefix(NAME_PREFIX)?.strip_suffix(NAME_SUFFIX)?;
    if digits.len() != NAME_ID_DIGITS || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The header of a new segment `id` (the current version).
pub fn encode_header(id: u64) -> [u8; SEGMENT_HEADER_LEN] {
    encode_header_version(id, SEGMENT_VERSION)
}

/// The header of segment `id` in format `version` (a damaged segment is rewritten in the
/// version its records were written in).
pub fn encode_header_version(id: u64, version: u32) -> [u8; SEGMENT_HEADER_LEN] {
    let mut out = [0; SEGMENT_HEADER_LEN];
    out[0..8].copy_from_slice(&SEGMENT_MAGIC);
    out[8..12].copy_from_slice(&version.to_be_bytes());
    out[12..20].copy_from_slice(&id.to_be_bytes());
    let crc = crc32c::crc32c(&out[0..20]);
    out[20..24].copy_from_slice(&crc.to_be_bytes());
    out
}

pub fn check_header(
    bytes: &[u8; SEGMENT_HEADER_LEN],
    expected_id: u64,
) -> std::result::Result<(), String> {
    let stored = u32::from_be_bytes([bytes[20], bytes[21], bytes[22], bytes[23]]);
    let actual = crc32c::crc32c(&bytes[0..20]);
    if stored != actual {
        return Err(format!(
            "segment header checksum mismatch (stored {stored:#010x}, computed {actual:#010x})"
        ));
    }
    if bytes[0..8] != SEGMENT_MAGIC {
        return Err("not a write-ahead log segment (bad magic)".into());
    }
    let version = u32::from_be_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if !(SEGMENT_VERSION_MIN..=SEGMENT_VERSION).contains(&version) {
        return Err(format!("unsupported segment format version {version}"));
    }
    let mut id = [0; 8];
    id.copy_from_slice(&bytes[12..20]);
    let id = u64::from_be_bytes(id);
    if id != expected_id {
        return Err(format!(
            "header names segment {id}, file name says {expected_id}"
        ));
    }
    Ok(())
}

/// The version a header names (checked or not).
pub fn version_of(bytes: &[u8; SEGMENT_HEADER_LEN]) -> u32 {
    u32::from_be_bytes([bytes[8], bytes[9], bytes[10], bytes[11]])
}

/// The id a header names (checked or not).
pub fn id_of(bytes: &[u8; SEGMENT_HEADER_LEN]) -> u64 {
    let mut id = [0; 8];
    id.copy_from_slice(&bytes[12..20]);
    u64::from_be_bytes(id)
}

/// The format version of a header written by a newer Basalt: magic and checksum are good,
/// the version is above [`SEGMENT_VERSION`]. Every later version keeps the magic, the version
/// and the header checksum where they are, so that this code can tell such a segment from a
/// damaged one and refuse it instead of replaying (or truncating) what it cannot read.
pub fn newer_version(bytes: &[u8; SEGMENT_HEADER_LEN]) -> Option<u32> {
    let stored = u32::from_be_bytes([bytes[20], bytes[21], bytes[22], bytes[23]]);
    let intact = bytes[0..8] == SEGMENT_MAGIC && crc32c::crc32c(&bytes[0..20]) == stored;
    let version = u32::from_be_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    (intact && version > SEGMENT_VERSION).then_some(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_sort_in_log_order_and_parse_back() {
        let names: Vec<String> = [1u64, 9, 10, 123_456, u64::MAX].map(file_name).into();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        for (name, id) in names.iter().zip([1u64, 9, 10, 123_456, u64::MAX]) {
            assert_eq!(parse_file_name(name), Some(id));
        }
        for other in [
            "wal-1.log",
            "wal-0000000000000000000x.log",
            "x.log",
            "wal-.log",
        ] {
            assert_eq!(parse_file_name(other), None, "{other}");
        }
    }

    #[test]
    fn header_checks_every_bit_and_the_id() {
        let header = encode_header(7);
        assert_eq!(check_header(&header, 7), Ok(()));
        assert!(check_header(&header, 8).is_err());
        for bit in 0..SEGMENT_HEADER_LEN * 8 {
            let mut flipped = header;
            flipped[bit / 8] ^= 1 << (bit % 8);
            assert!(check_header(&flipped, 7).is_err(), "bit {bit}");
            assert_eq!(newer_version(&flipped), None, "bit {bit} is damage");
        }
    }

    #[test]
    fn a_newer_version_is_told_from_damage() {
        let current = encode_header(7);
        assert_eq!(newer_version(&current), None);
        let with_version = |version: u32| {
            let mut header = current;
            header[8..12].copy_from_slice(&version.to_be_bytes());
            let crc = crc32c::crc32c(&header[0..20]);
            header[20..24].copy_from_slice(&crc.to_be_bytes());
            header
        };
        let header = with_version(SEGMENT_VERSION + 1);
        assert_eq!(newer_version(&header), Some(SEGMENT_VERSION + 1));
        assert!(
            check_header(&header, 7).is_err(),
            "never read as an older version"
        );
        let old = with_version(1);
        assert_eq!(check_header(&old, 7), Ok(()), "version 1 is still read");
        assert_eq!(newer_version(&old), None);
    }
}
