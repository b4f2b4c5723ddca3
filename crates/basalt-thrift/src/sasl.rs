//! Thrift's SASL negotiation frames (`TSaslTransport`), as a pure codec.
//!
//! Before any call, a client of a gateway requiring authentication negotiates:
//!
//! ```text
//! +--------+----------------------+-----------------+
//! | status | length (4 bytes, BE) | payload         |
//! +--------+----------------------+-----------------+
//!   1 START     client: the mechanism's name ("PLAIN")
//!   2 OK        client: the PLAIN message (Python's TSaslClientTransport)
//!   5 COMPLETE  client: the same (Java's, whose PLAIN client is complete at once);
//!               server: authenticated, calls may follow
//!   3 BAD       server: refused (wrong password, unknown mechanism), then closes
//!   4 ERROR     server: could not check, then closes
//! ```
//!
//! After COMPLETE every message travels behind a 4-byte big-endian length (the framed
//! transport's shape), whatever transport the gateway was set to.
//!
//! | bytes received | [`scan`] says |
//! |---|---|
//! | `01 00 00 00` | `Incomplete` (5 header bytes needed) |
//! | `01 00 00 00 05 P L A I N` | `Frame(START, "PLAIN")`, 10 bytes used |
//! | `80 01 00 01 …` (a plain binary call) | `NotSasl` |
//! | `02 7f ff ff ff` | `TooLarge` (over the negotiation limit) |

/// A negotiation status byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Start = 1,
    Ok = 2,
    Bad = 3,
    Error = 4,
    Complete = 5,
}

impl Status {
    fn from_byte(b: u8) -> Option<Self> {
        Some(match b {
            1 => Status::Start,
            2 => Status::Ok,
            3 => Status::Bad,
            4 => Status::Error,
            5 => Status::Complete,
            _ => return None,
        })
    }
}

/// The header: status and length.
pub const HEADER_BYTES: usize = 5;
/// The largest negotiation payload read (a mechanism name, a PLAIN message).
pub const PAYLOAD_MAX_BYTES: usize = 8 * 1024;

/// What the bytes held make.
#[derive(Debug, PartialEq, Eq)]
pub enum FrameScan {
    /// More bytes are needed.
    Incomplete,
    /// A frame, and how many bytes it used.
    Frame {
        status: Status,
        payload: Vec<u8>,
        used: usize,
    },
    /// The first byte is no status: a client that does not negotiate.
    NotSasl,
    /// A payload longer than [`PAYLOAD_MAX_BYTES`].
    TooLarge(usize),
}

/// Looks for one negotiation frame at the start of `buf`.
pub fn scan(buf: &[u8]) -> FrameScan {
    let Some(&first) = buf.first() else {
        return FrameScan::Incomplete;
    };
    let Some(status) = Status::from_byte(first) else {
        return FrameScan::NotSasl;
    };
    let Some(head) = buf.get(1..HEADER_BYTES) else {
        return FrameScan::Incomplete;
    };
    let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
    if len > PAYLOAD_MAX_BYTES {
        return FrameScan::TooLarge(len);
    }
    match buf.get(HEADER_BYTES..HEADER_BYTES + len) {
        Some(payload) => FrameScan::Frame {
            status,
            payload: payload.to_vec(),
            used: HEADER_BYTES + len,
        },
        None => FrameScan::Incomplete,
    }
}

/// One negotiation frame's bytes (payloads are ours: short).
pub fn encode(status: Status, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + payload.len());
    out.push(status as u8);
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.extend_from_slice(payload);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_of_the_module_holds() {
        assert_eq!(scan(b""), FrameScan::Incomplete);
        assert_eq!(scan(&[1, 0, 0, 0]), FrameScan::Incomplete);
        let start = encode(Status::Start, b"PLAIN");
        assert_eq!(&start[..5], &[1, 0, 0, 0, 5]);
        assert_eq!(
            scan(&start),
            FrameScan::Frame {
                status: Status::Start,
                payload: b"PLAIN".to_vec(),
                used: 10
            }
        );
        assert_eq!(scan(&start[..9]), FrameScan::Incomplete);
        assert_eq!(scan(&[0x80, 1, 0, 1]), FrameScan::NotSasl);
        assert_eq!(scan(&[0, 0, 0, 20]), FrameScan::NotSasl, "a framed call");
        assert_eq!(
            scan(&[2, 0x7f, 0xff, 0xff, 0xff]),
            FrameScan::TooLarge(0x7fff_ffff)
        );
    }

    #[test]
    fn frames_back_to_back_are_taken_one_at_a_time() {
        let mut bytes = encode(Status::Start, b"PLAIN");
        bytes.extend(encode(Status::Ok, b"\0a\0b"));
        let FrameScan::Frame { used, .. } = scan(&bytes) else {
            panic!("a frame")
        };
        assert!(matches!(
            scan(&bytes[used..]),
            FrameScan::Frame {
                status: Status::Ok,
                ..
            }
        ));
    }
}
