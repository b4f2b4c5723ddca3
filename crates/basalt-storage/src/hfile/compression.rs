//! Per-block compression codecs and their one-byte codes in the file.
//!
//! | code | codec  | crate |
//! |------|--------|-------|
//! | 0    | NONE   | —     |
//! | 1    | GZ     | flate2 (gzip) |
//! | 2    | SNAPPY | snap (raw, no framing) |
//! | 3    | LZ4    | lz4_flex block API |
//! | 4    | ZSTD   | zstd (level 3) |
//!
//! Decompression is told the expected length and fails unless it gets exactly that many
//! bytes, so a damaged block never produces a short, long or oversized buffer.

use basalt_types::Compression;
use std::io::Read;

const ZSTD_LEVEL: i32 = 3;

pub(crate) fn code(compression: Compression) -> u8 {
    match compression {
        Compression::None => 0,
        Compression::Gz => 1,
        Compression::Snappy => 2,
        Compression::Lz4 => 3,
        Compression::Zstd => 4,
    }
}

pub(crate) fn from_code(code: u8) -> Option<Compression> {
    Some(match code {
        0 => Compression::None,
        1 => Compression::Gz,
        2 => Compression::Snappy,
        3 => Compression::Lz4,
        4 => Compression::Zstd,
        _ => return None,
    })
}

/// Compresses `raw` with `compression`.
pub(crate) fn compress(compression: Compression, raw: &[u8]) -> Result<Vec<u8>, String> {
    match compression {
        Compression::None => Ok(raw.to_vec()),
        Compression::Gz => {
            let mut out = Vec::with_capacity(raw.len() / 2 + 64);
            let mut encoder = flate2::write::GzEncoder::new(&mut out, flate2::Compression::fast());
            std::io::Write::write_all(&mut encoder, raw).map_err(|e| e.to_string())?;
            encoder.finish().map_err(|e| e.to_string())?;
            Ok(out)
        }
        Compression::Snappy => snap::raw::Encoder::new()
            .compress_vec(raw)
            .map_err(|e| e.to_string()),
        Compression::Lz4 => Ok(lz4_flex::block::compress(raw)),
        Compression::Zstd => zstd::bulk::compress(raw, ZSTD_LEVEL).map_err(|e| e.to_string()),
    }
}

/// Decompresses `stored` into exactly `raw_len` bytes.
pub(crate) fn decompress(
    compression: Compression,
    stored: &[u8],
    raw_len: usize,
) -> Result<Vec<u8>, String> {
    let out = match compression {
        Compression::None => stored.to_vec(),
        Compression::Gz => {
            let mut out = Vec::with_capacity(raw_len);
            let decoder = flate2::read::GzDecoder::new(stored);
            // One byte more than expected reveals a block that inflates too far.
            decoder
                .take(raw_len as u64 + 1)
                .read_to_end(&mut out)
                .map_err(|e| format!("gzip: {e}"))?;
            out
        }
        Compression::Snappy => {
            let len = snap::raw::decompress_len(stored).map_err(|e| format!("snappy: {e}"))?;
            if len != raw_len {
                return Err(format!(
                    "snappy block inflates to {len}, expected {raw_len}"
                ));
            }
            snap::raw::Decoder::new()
                .decompress_vec(stored)
                .map_err(|e| format!("snappy: {e}"))?
        }
        Compression::Lz4 => {
            let mut out = vec![0; raw_len];
            let n = lz4_flex::block::decompress_into(stored, &mut out)
                .map_err(|e| format!("lz4: {e}"))?;
            out.truncate(n);
            out
        }
        Compression::Zstd => {
            zstd::bulk::decompress(stored, raw_len).map_err(|e| format!("zstd: {e}"))?
        }
    };
    if out.len() != raw_len {
        return Err(format!(
            "block inflates to {} bytes, expected {raw_len}",
            out.len()
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Compression; 5] = [
        Compression::None,
        Compression::Gz,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ];

    #[test]
    fn every_codec_round_trips_and_checks_length() {
        let raw: Vec<u8> = (0..5000u32).map(|i| (i % 7) as u8).collect();
        for c in ALL {
            assert_eq!(from_code(code(c)), Some(c));
            let stored = compress(c, &raw).expect("compresses");
            assert_eq!(decompress(c, &stored, raw.len()).expect("inflates"), raw);
            assert!(decompress(c, &stored, raw.len() - 1).is_err(), "{c:?}");
            assert!(decompress(c, &stored, raw.len() + 1).is_err(), "{c:?}");
        }
    }
}
