//! Framing of one log record: a length, two checksums, then the payload. Segments of
//! format versions 1 and 2 and recovered-edits files use it; version 3 segments use
//! [`super::numbered`], which adds the segment's id.
//!
//! ```text
//! +-----------------+---------------------+----------------------+-------------------+
//! | payload_len u32 | crc32c(len bytes) u32 | crc32c(payload) u32 | payload           |
//! +-----------------+---------------------+----------------------+-------------------+
//!   0                 4                     8                      12 .. 12+payload_len
//! ```
//! The length has its own checksum so that a flipped length bit is reported as corruption
//! instead of looking like a record that runs past the end of the file (a torn tail).
//! Every single-bit flip changes a CRC32C, so every flip in a complete record is caught.
//! The length is limited ([`RECORD_PAYLOAD_MAX_BYTES`]) before anything is allocated.

/// Bytes before the payload.
pub const RECORD_HEADER_LEN: usize = 12;

/// The largest payload accepted: a 64 MiB row mutation plus room for its keys.
pub const RECORD_PAYLOAD_MAX_BYTES: u32 = 64 * 1024 * 1024 + 1024 * 1024;

/// A record header whose own checksum held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordHeader {
    pub payload_len: u32,
    pub payload_crc: u32,
}

/// Turns `out[start..]`, a header-sized placeholder followed by a payload, into a record by
/// filling the header in. Fails (leaving `out` untouched) if the payload is empty or too long.
pub fn seal(out: &mut [u8], start: usize) -> Result<(), String> {
    let payload_start = start
        .checked_add(RECORD_HEADER_LEN)
        .filter(|p| *p <= out.len())
        .ok_or("record placeholder is missing")?;
    let payload = &out[payload_start..];
    let payload_len = checked_payload_len(payload.len())?;
    let payload_crc = crc32c::crc32c(payload);
    let len_bytes = payload_len.to_be_bytes();
    let header = &mut out[start..payload_start];
    header[0..4].copy_from_slice(&len_bytes);
    header[4..8].copy_from_slice(&crc32c::crc32c(&len_bytes).to_be_bytes());
    header[8..12].copy_from_slice(&payload_crc.to_be_bytes());
    Ok(())
}

/// `len` as a record's payload length, if within 1..=[`RECORD_PAYLOAD_MAX_BYTES`].
pub fn checked_payload_len(len: usize) -> Result<u32, String> {
    u32::try_from(len)
        .ok()
        .filter(|len| (1..=RECORD_PAYLOAD_MAX_BYTES).contains(len))
        .ok_or_else(|| format!("record length {len} is outside 1..={RECORD_PAYLOAD_MAX_BYTES}"))
}

/// Checks a header's own checksum and its length limit.
pub fn decode_header(bytes: &[u8; RECORD_HEADER_LEN]) -> Result<RecordHeader, String> {
    let word =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let (payload_len, len_crc, payload_crc) = (word(0), word(4), word(8));
    let actual = crc32c::crc32c(&bytes[0..4]);
    if actual != len_crc {
        return Err(format!(
            "record length checksum mismatch (stored {len_crc:#010x}, computed {actual:#010x})"
        ));
    }
    if payload_len == 0 || payload_len > RECORD_PAYLOAD_MAX_BYTES {
        return Err(format!(
            "record length {payload_len} is outside 1..={RECORD_PAYLOAD_MAX_BYTES}"
        ));
    }
    Ok(RecordHeader {
        payload_len,
        payload_crc,
    })
}

/// Checks a payload against its header.
pub fn check_payload(header: &RecordHeader, payload: &[u8]) -> Result<(), String> {
    if payload.len() != header.payload_len as usize {
        return Err(format!(
            "record payload is {} bytes, header says {}",
            payload.len(),
            header.payload_len
        ));
    }
    let actual = crc32c::crc32c(payload);
    if actual != header.payload_crc {
        return Err(format!(
            "record payload checksum mismatch (stored {:#010x}, computed {actual:#010x})",
            header.payload_crc
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(payload: &[u8]) -> Vec<u8> {
        let mut out = vec![0xAA; 3];
        out.extend_from_slice(&[0; RECORD_HEADER_LEN]);
        out.extend_from_slice(payload);
        seal(&mut out, 3).expect("small payload");
        out.split_off(3)
    }

    fn parse(bytes: &[u8]) -> Result<Vec<u8>, String> {
        let header: [u8; RECORD_HEADER_LEN] = bytes[..RECORD_HEADER_LEN]
            .try_into()
            .expect("test records are longer than a header");
        let header = decode_header(&header)?;
        let payload = &bytes[RECORD_HEADER_LEN..];
        check_payload(&header, payload)?;
        Ok(payload.to_vec())
    }

    #[test]
    fn round_trips() {
        let bytes = record(b"hello");
        assert_eq!(bytes.len(), RECORD_HEADER_LEN + 5);
        assert_eq!(&bytes[0..4], &5u32.to_be_bytes());
        assert_eq!(parse(&bytes).expect("valid"), b"hello");
    }

    #[test]
    fn every_single_bit_flip_is_caught() {
        let bytes = record(b"some payload bytes");
        for bit in 0..bytes.len() * 8 {
            let mut flipped = bytes.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            assert!(parse(&flipped).is_err(), "flip of bit {bit} went unnoticed");
        }
    }

    #[test]
    fn empty_and_oversized_payloads_are_refused() {
        let mut out = vec![0; RECORD_HEADER_LEN];
        assert!(seal(&mut out, 0).is_err());
        assert!(seal(&mut out, 1).is_err());
        let too_long = (RECORD_PAYLOAD_MAX_BYTES + 1).to_be_bytes();
        let mut header = [0; RECORD_HEADER_LEN];
        header[0..4].copy_from_slice(&too_long);
        header[4..8].copy_from_slice(&crc32c::crc32c(&too_long).to_be_bytes());
        assert!(decode_header(&header)
            .expect_err("too long")
            .contains("outside"));
    }
}
