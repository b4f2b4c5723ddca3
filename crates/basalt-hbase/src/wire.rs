//! HBase's RPC framing as pure functions over bytes: no socket, no allocation before a
//! length is checked.
//!
//! A connection opens with a six-byte preamble — `HBas`, the RPC version (0) and the
//! authentication method (80 = SIMPLE) — then a four-byte big-endian length and the
//! `ConnectionHeader` naming the service. Every call after that is a frame: a four-byte
//! big-endian length, then the varint-delimited `RequestHeader`, the varint-delimited
//! request message (when `request_param` is set), and the rest of the frame is the call's
//! cell block (`cell_block_meta.length` bytes). An answer is framed the same way: length,
//! delimited `ResponseHeader`, delimited response message (absent when the header carries
//! an exception), cell block.
//!
//! One tolerance, on purpose: when the request message's varint claims more bytes than
//! the frame has left and the call has no cell block, the message is the rest of the
//! frame. HBase's server reads it that way (its parser stops at the end of the call), and
//! a real client depends on it: `hbase-driver` 1.1.1 writes lengths of 128 and more as
//! UTF-8-encoded varint bytes, a larger number than the message's length.

use crate::pb;
use bytes::{BufMut, Bytes};
use prost::Message;
use serde::{Deserialize, Serialize};

/// The first four bytes of every connection.
pub const MAGIC: &[u8; 4] = b"HBas";
/// The only RPC version HBase 2.x speaks.
pub const RPC_VERSION: u8 = 0;
/// `AuthMethod.SIMPLE`'s code.
pub const AUTH_SIMPLE: u8 = 80;
/// `AuthMethod.KERBEROS` and `DIGEST`: recognised, refused.
pub const AUTH_KERBEROS: u8 = 81;
pub const AUTH_DIGEST: u8 = 82;
/// The call id of an answer that is not to any call: a fatal connection error.
pub const FATAL_CALL_ID: u32 = u32::MAX;

/// Sizes checked before anything is allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// The largest call frame (HBase's `hbase.ipc.max.request.size`, 256 MiB).
    pub frame_max: usize,
    /// The largest connection header.
    pub connection_header_max: usize,
    /// The largest request header inside a call.
    pub request_header_max: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            frame_max: 256 * 1024 * 1024,
            connection_header_max: 64 * 1024,
            request_header_max: 64 * 1024,
        }
    }
}

/// What is wrong with bytes a client sent; `offset` counts from the start of the part
/// named (the preamble, the connection header, a call frame).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("not HBase's RPC: the preamble starts with {found:02x?}, not \"HBas\"")]
    BadMagic { found: [u8; 4] },
    #[error("RPC version {0} is not supported (HBase 2.x speaks version 0)")]
    WrongVersion(u8),
    #[error("authentication method {0} is not supported (only SIMPLE, 80)")]
    UnsupportedAuth(u8),
    #[error("{what} of {len} bytes is over the limit of {max}")]
    TooLarge {
        what: &'static str,
        len: usize,
        max: usize,
    },
    #[error("{what} is truncated at offset {offset}")]
    Truncated { what: &'static str, offset: usize },
    #[error("{what} at offset {offset} does not decode: {cause}")]
    Decode {
        what: &'static str,
        offset: usize,
        cause: String,
    },
}

/// Checks the six-byte preamble.
pub fn check_preamble(preamble: &[u8; 6]) -> Result<(), WireError> {
    let mut magic = [0u8; 4];
    magic.copy_from_slice(&preamble[..4]);
    if &magic != MAGIC {
        return Err(WireError::BadMagic { found: magic });
    }
    if preamble[4] != RPC_VERSION {
        return Err(WireError::WrongVersion(preamble[4]));
    }
    match preamble[5] {
        AUTH_SIMPLE => Ok(()),
        other => Err(WireError::UnsupportedAuth(other)),
    }
}

/// A four-byte big-endian length, checked against `max` before anyone allocates for it.
pub fn frame_len(prefix: [u8; 4], what: &'static str, max: usize) -> Result<usize, WireError> {
    let len = u32::from_be_bytes(prefix) as usize;
    if len > max {
        return Err(WireError::TooLarge { what, len, max });
    }
    Ok(len)
}

pub fn decode_connection_header(bytes: &[u8]) -> Result<pb::ConnectionHeader, WireError> {
    pb::ConnectionHeader::decode(bytes).map_err(|e| WireError::Decode {
        what: "the connection header",
        offset: 0,
        cause: e.to_string(),
    })
}

/// One decoded call.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub header: pb::RequestHeader,
    /// The request message's bytes (empty when the header says there is none).
    pub param: Bytes,
    /// The cell block's bytes (empty when there is none).
    pub cell_block: Bytes,
}

impl Call {
    pub fn call_id(&self) -> u32 {
        self.header.call_id.unwrap_or(0)
    }

    pub fn method(&self) -> &str {
        self.header.method_name.as_deref().unwrap_or("")
    }
}

/// Reads a varint at `*pos`, moving past it.
fn read_varint(buf: &[u8], pos: &mut usize, what: &'static str) -> Result<u64, WireError> {
    let start = *pos;
    let mut value = 0u64;
    for shift in (0..70).step_by(7) {
        let Some(&byte) = buf.get(*pos) else {
            return Err(WireError::Truncated {
                what,
                offset: start,
            });
        };
        *pos += 1;
        value |= u64::from(byte & 0x7f) << shift.min(63);
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(WireError::Decode {
        what,
        offset: start,
        cause: "a varint longer than ten bytes".into(),
    })
}

/// Decodes one call frame (the bytes after its four-byte length).
pub fn decode_call(frame: Bytes, limits: &Limits) -> Result<Call, WireError> {
    let mut pos = 0usize;
    let header_len = read_varint(&frame, &mut pos, "the request header's length")?;
    let header_len = usize::try_from(header_len).unwrap_or(usize::MAX);
    if header_len > limits.request_header_max {
        return Err(WireError::TooLarge {
            what: "the request header",
            len: header_len,
            max: limits.request_header_max,
        });
    }
    let header_end = pos
        .checked_add(header_len)
        .filter(|end| *end <= frame.len())
        .ok_or(WireError::Truncated {
            what: "the request header",
            offset: pos,
        })?;
    let header =
        pb::RequestHeader::decode(&frame[pos..header_end]).map_err(|e| WireError::Decode {
            what: "the request header",
            offset: pos,
            cause: e.to_string(),
        })?;
    pos = header_end;
    let block_len = header
        .cell_block_meta
        .as_ref()
        .and_then(|m| m.length)
        .unwrap_or(0) as usize;
    let mut param = Bytes::new();
    if header.request_param.unwrap_or(false) {
        let claimed = read_varint(&frame, &mut pos, "the request message's length")?;
        let left = frame.len() - pos;
        let len = match usize::try_from(claimed) {
            Ok(len) if len <= left => len,
            // See the module's story: the rest of a call without a cell block.
            _ if block_len == 0 => left,
            _ => {
                return Err(WireError::Truncated {
                    what: "the request message",
                    offset: pos,
                })
            }
        };
        param = frame.slice(pos..pos + len);
        pos += len;
    }
    let left = frame.len() - pos;
    if block_len > left {
        return Err(WireError::Truncated {
            what: "the cell block",
            offset: pos,
        });
    }
    let cell_block = frame.slice(pos..pos + block_len);
    Ok(Call {
        header,
        param,
        cell_block,
    })
}

fn put_delimited(out: &mut Vec<u8>, message: &impl Message) {
    prost::encoding::encode_varint(message.encoded_len() as u64, out);
    message.encode_raw(out);
}

/// A whole answer frame (with its four-byte length): the response message's bytes and,
/// when not empty, a cell block.
pub fn encode_answer(call_id: u32, response: &[u8], cell_block: &[u8]) -> Vec<u8> {
    let header = pb::ResponseHeader {
        call_id: Some(call_id),
        exception: None,
        cell_block_meta: (!cell_block.is_empty()).then_some(pb::CellBlockMeta {
            length: Some(cell_block.len() as u32),
        }),
    };
    frame(|out| {
        put_delimited(out, &header);
        prost::encoding::encode_varint(response.len() as u64, out);
        out.extend_from_slice(response);
        out.extend_from_slice(cell_block);
    })
}

/// A whole answer frame carrying an exception instead of a response.
pub fn encode_exception(call_id: u32, error: &crate::RpcError) -> Vec<u8> {
    let header = pb::ResponseHeader {
        call_id: Some(call_id),
        exception: Some(pb::ExceptionResponse {
            exception_class_name: Some(error.class.clone()),
            // Java clients show this as the exception's message.
            stack_trace: Some(format!("{}: {}", error.class, error.message)),
            hostname: None,
            port: None,
            do_not_retry: Some(error.do_not_retry),
        }),
        cell_block_meta: None,
    };
    frame(|out| put_delimited(out, &header))
}

fn frame(body: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    out.put_u32(0);
    body(&mut out);
    let len = (out.len() - 4) as u32;
    out[..4].copy_from_slice(&len.to_be_bytes());
    out
}

/// A call frame as a client sends it (with its four-byte length): for tests and tools.
pub fn encode_call(
    call_id: u32,
    method: &str,
    request: &impl Message,
    cell_block: &[u8],
) -> Vec<u8> {
    let header = pb::RequestHeader {
        call_id: Some(call_id),
        method_name: Some(method.to_string()),
        request_param: Some(true),
        cell_block_meta: (!cell_block.is_empty()).then_some(pb::CellBlockMeta {
            length: Some(cell_block.len() as u32),
        }),
        priority: None,
        timeout: None,
    };
    frame(|out| {
        put_delimited(out, &header);
        put_delimited(out, request);
        out.extend_from_slice(cell_block);
    })
}

/// The bytes a client opens a connection with: preamble and connection header.
pub fn encode_connection_preface(service: &str, user: &str) -> Vec<u8> {
    encode_connection_preface_with_codec(service, user, None)
}

/// The preface of a client that names a cell-block codec (`codec`, a class name such as
/// [`crate::cellblock::KEY_VALUE_CODEC`]): its answers carry their cells in cell blocks.
pub fn encode_connection_preface_with_codec(
    service: &str,
    user: &str,
    codec: Option<&str>,
) -> Vec<u8> {
    let header = pb::ConnectionHeader {
        user_info: Some(pb::UserInformation {
            effective_user: user.to_string(),
            real_user: None,
        }),
        service_name: Some(service.to_string()),
        cell_block_codec_class: codec.map(str::to_string),
        cell_block_compressor_class: None,
    };
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[RPC_VERSION, AUTH_SIMPLE]);
    out.put_u32(header.encoded_len() as u32);
    header.encode_raw(&mut out);
    out
}

/// Splits an answer frame (after its four-byte length) into its header and the response
/// message's bytes, dropping any cell block: for tests and tools.
pub fn decode_answer(frame: &[u8]) -> Result<(pb::ResponseHeader, Bytes), WireError> {
    decode_answer_with_cells(frame).map(|(header, message, _)| (header, message))
}

/// An answer frame's header, response message and cell block (empty when it has none,
/// `cell_block_meta.length` bytes after the message when it has one).
pub fn decode_answer_with_cells(
    frame: &[u8],
) -> Result<(pb::ResponseHeader, Bytes, Bytes), WireError> {
    let mut pos = 0usize;
    let len = read_varint(frame, &mut pos, "the response header's length")? as usize;
    let end = pos
        .checked_add(len)
        .filter(|end| *end <= frame.len())
        .ok_or(WireError::Truncated {
            what: "the response header",
            offset: pos,
        })?;
    let header = pb::ResponseHeader::decode(&frame[pos..end]).map_err(|e| WireError::Decode {
        what: "the response header",
        offset: pos,
        cause: e.to_string(),
    })?;
    pos = end;
    if pos == frame.len() {
        return Ok((header, Bytes::new(), Bytes::new()));
    }
    let len = read_varint(frame, &mut pos, "the response message's length")? as usize;
    let end = pos
        .checked_add(len)
        .filter(|end| *end <= frame.len())
        .ok_or(WireError::Truncated {
            what: "the response message",
            offset: pos,
        })?;
    let message = Bytes::copy_from_slice(&frame[pos..end]);
    let block_len = header
        .cell_block_meta
        .as_ref()
        .and_then(|m| m.length)
        .unwrap_or(0) as usize;
    if block_len > frame.len() - end {
        return Err(WireError::Truncated {
            what: "the cell block",
            offset: end,
        });
    }
    let block = Bytes::copy_from_slice(&frame[end..end + block_len]);
    Ok((header, message, block))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(frame: Vec<u8>) -> Bytes {
        Bytes::from(frame).slice(4..)
    }

    #[test]
    fn a_call_round_trips_with_its_cell_block() {
        let request = pb::GetRequest {
            region: pb::RegionSpecifier {
                r#type: 1,
                value: Bytes::from_static(b"t,,1.abc."),
            },
            get: pb::Get {
                row: Bytes::from_static(b"row"),
                ..Default::default()
            },
        };
        let call = decode_call(
            body(encode_call(7, "Get", &request, b"CELLS")),
            &Limits::default(),
        )
        .expect("decodes");
        assert_eq!(call.call_id(), 7);
        assert_eq!(call.method(), "Get");
        assert_eq!(pb::GetRequest::decode(call.param).expect("param"), request);
        assert_eq!(&call.cell_block[..], b"CELLS");
    }

    #[test]
    fn an_overstated_message_length_without_cell_block_is_the_rest_of_the_call() {
        // hbase-driver's encoding of 200: the UTF-8 bytes of the chars U+00C8 U+0001.
        let header = pb::RequestHeader {
            call_id: Some(3),
            method_name: Some("Mutate".into()),
            request_param: Some(true),
            ..Default::default()
        };
        let mut frame = Vec::new();
        put_delimited(&mut frame, &header);
        frame.extend_from_slice(&[0xC3, 0x88, 0x01]);
        frame.extend_from_slice(&[0x0a; 200]);
        let call = decode_call(Bytes::from(frame), &Limits::default()).expect("tolerated");
        assert_eq!(call.param.len(), 200);
    }

    #[test]
    fn limits_and_truncation_are_reported_with_offsets() {
        assert_eq!(
            frame_len([0xff, 0xff, 0xff, 0xff], "a call", 1024),
            Err(WireError::TooLarge {
                what: "a call",
                len: u32::MAX as usize,
                max: 1024
            })
        );
        let huge_header = Bytes::from_static(&[0xff, 0xff, 0xff, 0x0f]);
        assert!(matches!(
            decode_call(huge_header, &Limits::default()),
            Err(WireError::TooLarge { .. })
        ));
        let cut = Bytes::from_static(&[0x05, 0x08]);
        assert_eq!(
            decode_call(cut, &Limits::default()),
            Err(WireError::Truncated {
                what: "the request header",
                offset: 1
            })
        );
        assert_eq!(
            check_preamble(b"HBas\x00\x51"),
            Err(WireError::UnsupportedAuth(81))
        );
        assert_eq!(
            check_preamble(b"HBas\x01\x50"),
            Err(WireError::WrongVersion(1))
        );
        assert!(matches!(
            check_preamble(b"GET / "),
            Err(WireError::BadMagic { .. })
        ));
        check_preamble(b"HBas\x00\x50").expect("SIMPLE");
    }

    #[test]
    fn an_exception_answer_names_the_class_and_says_whether_to_retry() {
        let error =
            crate::RpcError::new("org.apache.hadoop.hbase.TableNotFoundException", "t", true);
        let frame = encode_exception(9, &error);
        let (header, message) = decode_answer(&frame[4..]).expect("decodes");
        assert!(message.is_empty());
        assert_eq!(header.call_id, Some(9));
        let exception = header.exception.expect("exception");
        assert_eq!(
            exception.exception_class_name.as_deref(),
            Some("org.apache.hadoop.hbase.TableNotFoundException")
        );
        assert_eq!(exception.do_not_retry, Some(true));
    }

    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn random_frames_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
                let _ = decode_call(Bytes::from(bytes.clone()), &Limits::default());
                let _ = decode_answer(&bytes);
                let _ = decode_connection_header(&bytes);
                if bytes.len() >= 6 {
                    let mut preamble = [0u8; 6];
                    preamble.copy_from_slice(&bytes[..6]);
                    let _ = check_preamble(&preamble);
                }
            }

            #[test]
            fn mutated_real_calls_never_panic(flip in 0usize..64, byte in any::<u8>(), cut in 0usize..80) {
                let request = pb::ScanRequest { scanner_id: Some(42), number_of_rows: Some(10), ..Default::default() };
                let mut frame = encode_call(1, "Scan", &request, b"xyz")[4..].to_vec();
                if flip < frame.len() {
                    frame[flip] = byte;
                }
                frame.truncate(cut.min(frame.len()));
                let _ = decode_call(Bytes::from(frame), &Limits::default());
            }
        }
    }
}
