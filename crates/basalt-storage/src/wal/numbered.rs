//! Framing of one record in a segment of format version 3: the record names its segment,
//! so that a segment file can be reused (recycled) without erasing it first.
//!
//! ```text
//! +-----------------+----------------+-------------------------+---------------------+---------+
//! | payload_len u32 | segment_id u64 | crc32c(bytes 0..12) u32 | crc32c(payload) u32 | payload |
//! +-----------------+----------------+-------------------------+---------------------+---------+
//!   0                 4                12                        16                    20 ..
//! ```
//! A recycled file still holds the records of its earlier use past what was written into
//! it since. Each of those passes its checksums, but names the segment it was written to:
//! reading stops at the first record naming another segment (see `scan`). The header's
//! checksum covers the id, so a flipped id bit is damage, not a record of another segment.
//! A header of 20 zero bytes is the preallocated space after the end (a real record has a
//! length of at least 1, so its first four bytes are never all zero).
//!
//! Records are encoded before the writer knows which segment they land in (group commit
//! buffers them, and a roll may come first): they are sealed with id 0 and
//! [`stamp`]ed with the segment's id just before they are written.

/// Bytes before the payload.
pub const NUMBERED_HEADER_LEN: usize = 20;

/// A numbered record header whose own checksum held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumberedHeader {
    pub payload_len: u32,
    pub segment_id: u64,
    pub payload_crc: u32,
}

/// Turns `out[start..]`, a header-sized placeholder followed by a payload, into a record of
/// segment 0 (to be [`stamp`]ed). Fails (leaving `out` untouched) if the payload is empty or
/// too long.
pub fn seal(out: &mut [u8], start: usize) -> Result<(), String> {
    let payload_start = start
        .checked_add(NUMBERED_HEADER_LEN)
        .filter(|p| *p <= out.len())
        .ok_or("record placeholder is missing")?;
    let payload_len = super::record::checked_payload_len(out.len() - payload_start)?;
    let payload_crc = crc32c::crc32c(&out[payload_start..]);
    let header = &mut out[start..payload_start];
    header[0..4].copy_from_slice(&payload_len.to_be_bytes());
    header[16..20].copy_from_slice(&payload_crc.to_be_bytes());
    stamp_header(header, 0);
    Ok(())
}

/// Names segment `segment_id` in every record of `batch`, a run of whole sealed records.
/// Fails, changing nothing, if `batch` is not a run of whole records.
pub fn stamp(batch: &mut [u8], segment_id: u64) -> Result<(), String> {
    let mut starts = Vec::new();
    let mut at = 0;
    while at < batch.len() {
        let len_bytes = batch
            .get(at..at + 4)
            .ok_or_else(|| format!("a record header at byte {at} of the batch is cut short"))?;
        let len = u32::from_be_bytes([len_bytes[0], len_bytes[1], len_bytes[2], len_bytes[3]]);
        starts.push(at);
        at += NUMBERED_HEADER_LEN + len as usize;
    }
    if at != batch.len() {
        return Err(format!(
            "the batch's last record runs to byte {at}, past its {} bytes",
            batch.len()
        ));
    }
    for start in starts {
        stamp_header(&mut batch[start..start + NUMBERED_HEADER_LEN], segment_id);
    }
    Ok(())
}

fn stamp_header(header: &mut [u8], segment_id: u64) {
    header[4..12].copy_from_slice(&segment_id.to_be_bytes());
    let crc = crc32c::crc32c(&header[0..12]);
    header[12..16].copy_from_slice(&crc.to_be_bytes());
}

/// Checks a header's own checksum and its length limit; the caller compares the id.
pub fn decode_header(bytes: &[u8; NUMBERED_HEADER_LEN]) -> Result<NumberedHeader, String> {
    let word =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let (payload_len, header_crc, payload_crc) = (word(0), word(12), word(16));
    let actual = crc32c::crc32c(&bytes[0..12]);
    if actual != header_crc {
        return Err(format!(
            "record header checksum mismatch (stored {header_crc:#010x}, computed {actual:#010x})"
        ));
    }
    let payload_len = super::record::checked_payload_len(payload_len as usize)?;
    let mut id = [0; 8];
    id.copy_from_slice(&bytes[4..12]);
    Ok(NumberedHeader {
        payload_len,
        segment_id: u64::from_be_bytes(id),
        payload_crc,
    })
}

/// Whether `bytes` (a header's worth, or what is left of the file) are unused space: zeros.
pub fn is_unused(bytes: &[u8]) -> bool {
    bytes.iter().all(|&b| b == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(payload: &[u8], id: u64) -> Vec<u8> {
        let mut out = vec![0; NUMBERED_HEADER_LEN];
        out.extend_from_slice(payload);
        seal(&mut out, 0).expect("small payload");
        stamp(&mut out, id).expect("one whole record");
        out
    }

    fn parse(bytes: &[u8]) -> Result<(u64, Vec<u8>), String> {
        let header: [u8; NUMBERED_HEADER_LEN] = bytes[..NUMBERED_HEADER_LEN]
            .try_into()
            .expect("test records are longer than a header");
        let header = decode_header(&header)?;
        let payload = &bytes[NUMBERED_HEADER_LEN..];
        if payload.len() != header.payload_len as usize
            || crc32c::crc32c(payload) != header.payload_crc
        {
            return Err("payload".into());
        }
        Ok((header.segment_id, payload.to_vec()))
    }

    #[test]
    fn round_trips_with_its_segment_id() {
        let bytes = record(b"hello", 0x0102_0304_0506_0708);
        assert_eq!(bytes.len(), NUMBERED_HEADER_LEN + 5);
        assert_eq!(&bytes[4..12], &[1, 2, 3, 4, 5, 6, 7, 8]);
        let parsed = parse(&bytes).expect("valid");
        assert_eq!(parsed, (0x0102_0304_0506_0708, b"hello".to_vec()));
    }

    #[test]
    fn every_single_bit_flip_is_caught_the_id_included() {
        let bytes = record(b"some payload bytes", 9);
        for bit in 0..bytes.len() * 8 {
            let mut flipped = bytes.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            assert!(parse(&flipped).is_err(), "flip of bit {bit} went unnoticed");
        }
    }

    #[test]
    fn stamping_names_every_record_of_a_batch_and_refuses_a_cut_one() {
        let mut batch = record(b"one", 0);
        batch.extend_from_slice(&record(b"two two", 0));
        stamp(&mut batch, 42).expect("whole records");
        assert_eq!(parse(&batch[..23]).expect("first").0, 42);
        assert_eq!(parse(&batch[23..]).expect("second").0, 42);
        let before = batch.clone();
        let cut = batch.len() - 1;
        assert!(stamp(&mut batch[..cut], 7)
            .expect_err("cut")
            .contains("past"));
        assert_eq!(batch, before, "a refused stamp changes nothing");
    }

    #[test]
    fn zeros_are_unused_space_and_never_a_header() {
        assert!(is_unused(&[0; NUMBERED_HEADER_LEN]));
        assert!(is_unused(&[]));
        assert!(!is_unused(&[0, 0, 1]));
        assert!(decode_header(&[0; NUMBERED_HEADER_LEN]).is_err());
    }
}
