//! The gate of a gateway requiring authentication: SASL PLAIN before any call.
//!
//! A connection first negotiates ([`crate::sasl`]): START naming `PLAIN`, then the PLAIN
//! message, checked by the process's [`Authenticator`] (cache, failed-attempt limiter,
//! audit log). Success answers COMPLETE and the connection runs as that principal; a
//! wrong password answers BAD with the reason, an unknown mechanism BAD naming the one
//! supported, and the connection closes. The whole negotiation must finish within the
//! gateway's header timeout, and no frame may exceed [`sasl::PAYLOAD_MAX_BYTES`]; the
//! socket stays sheddable (not proven) until it succeeds.
//!
//! A client that does not negotiate (plain buffered or framed, as happybase's default)
//! gets its first call answered with a `TApplicationException` saying that SASL PLAIN is
//! required, in the protocol and transport its bytes show, then the connection closes:
//! a clear error, never a hang.

use crate::call;
use crate::protocol::{self, Limits, MessageHeader, ProtocolKind};
use crate::sasl::{self, FrameScan, Status};
use crate::transport::{TransportKind, Wire};
use basalt_api::Principal;
use basalt_auth::{sasl_plain, Authenticator};
use basalt_net::Conn;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The operation the audit log names for a Thrift login.
const OPERATION: &str = "thrift.sasl";
/// The most bytes of a non-negotiating client read to find its call's name.
const PLAIN_CALL_PEEK_MAX_BYTES: usize = 64 * 1024;

/// What the gate checks with.
pub struct Gate {
    pub auth: Arc<Authenticator>,
    /// The negotiation must finish within this.
    pub timeout: Duration,
}

/// Negotiates on `conn`; the principal it runs as, or None once refused (and answered).
pub async fn admit(
    gate: &Gate,
    conn: &mut Conn,
    limits: &Limits,
    session: u64,
) -> Option<Principal> {
    let peer = conn.peer_addr();
    match tokio::time::timeout(gate.timeout, negotiate(gate, conn, limits)).await {
        Ok(Ok(principal)) => {
            tracing::debug!(session, %peer, user = principal.name(), "Thrift connection authenticated");
            Some(principal)
        }
        Ok(Err(why)) => {
            tracing::warn!(session, %peer, "refusing a Thrift connection: {why}");
            None
        }
        Err(_) => {
            let why = format!(
                "SASL negotiation not finished within {} ms",
                gate.timeout.as_millis()
            );
            basalt_auth::audit::auth_failed("(none)", Some(peer.ip()), OPERATION, &why);
            tracing::warn!(session, %peer, "closing a Thrift connection: {why}");
            None
        }
    }
}

async fn negotiate(gate: &Gate, conn: &mut Conn, limits: &Limits) -> Result<Principal, String> {
    let mut buf = Vec::new();
    let (status, mechanism) = match next_frame(conn, &mut buf).await? {
        Some(frame) => frame,
        None => return Err(refuse_plain_client(conn, &mut buf, limits).await),
    };
    if status != Status::Start {
        return Err(bad(conn, format!("expected START, got {status:?}")).await);
    }
    if mechanism != sasl_plain::MECHANISM.as_bytes() {
        let name = String::from_utf8_lossy(&mechanism).into_owned();
        return Err(bad(
            conn,
            format!("SASL mechanism '{name}' is not supported; only PLAIN"),
        )
        .await);
    }
    let Some((status, message)) = next_frame(conn, &mut buf).await? else {
        return Err(bad(conn, "expected the PLAIN message after START".into()).await);
    };
    if !matches!(status, Status::Ok | Status::Complete) {
        return Err(bad(
            conn,
            format!("expected the PLAIN message (OK), got {status:?}"),
        )
        .await);
    }
    if !buf.is_empty() {
        return Err(bad(conn, "data sent before the negotiation completed".into()).await);
    }
    let addr = Some(conn.peer_addr().ip());
    match gate
        .auth
        .authenticate_sasl_plain(&message, addr, OPERATION)
        .await
    {
        Ok(principal) => {
            send(conn, Status::Complete, b"").await?;
            // A completed negotiation is a request answered: the connection has proven itself.
            drop(conn.peer().busy());
            Ok(principal)
        }
        Err(e) if e.is_unauthenticated() => Err(bad(conn, e.to_string()).await),
        Err(e) => {
            let why = e.to_string();
            let _ = send(conn, Status::Error, why.as_bytes()).await;
            Err(why)
        }
    }
}

/// The next negotiation frame; None when the client does not negotiate at all.
async fn next_frame(
    conn: &mut Conn,
    buf: &mut Vec<u8>,
) -> Result<Option<(Status, Vec<u8>)>, String> {
    loop {
        match sasl::scan(buf) {
            FrameScan::Frame {
                status,
                payload,
                used,
            } => {
                buf.drain(..used);
                return Ok(Some((status, payload)));
            }
            FrameScan::NotSasl => return Ok(None),
            FrameScan::TooLarge(len) => {
                let why = format!(
                    "a SASL negotiation frame of {len} bytes is over the limit of {}",
                    sasl::PAYLOAD_MAX_BYTES
                );
                return Err(bad(conn, why).await);
            }
            FrameScan::Incomplete => read_more(conn, buf).await?,
        }
    }
}

async fn read_more(conn: &mut Conn, buf: &mut Vec<u8>) -> Result<(), String> {
    let mut chunk = [0u8; 4096];
    match conn.read(&mut chunk).await {
        Ok(0) => Err("the client left during the SASL negotiation".into()),
        Ok(n) => {
            buf.extend_from_slice(&chunk[..n]);
            Ok(())
        }
        Err(e) => Err(format!("cannot read: {e}")),
    }
}

async fn send(conn: &mut Conn, status: Status, payload: &[u8]) -> Result<(), String> {
    conn.write_all(&sasl::encode(status, payload))
        .await
        .map_err(|e| format!("cannot answer the negotiation: {e}"))
}

/// Answers BAD with `why`; `why` again, for the log.
async fn bad(conn: &mut Conn, why: String) -> String {
    let _ = send(conn, Status::Bad, why.as_bytes()).await;
    why
}

/// The first call of a client that does not negotiate, answered with the refusal.
async fn refuse_plain_client(conn: &mut Conn, buf: &mut Vec<u8>, limits: &Limits) -> String {
    loop {
        match plain_refusal(buf, limits) {
            Refusal::Reply(reply) => {
                let _ = conn.write_all(&reply).await;
                return REQUIRED.to_string();
            }
            Refusal::Unknown => {
                return format!("{REQUIRED} (the client sent bytes of no known transport)")
            }
            Refusal::NeedMore if buf.len() < PLAIN_CALL_PEEK_MAX_BYTES => {
                if let Err(why) = read_more(conn, buf).await {
                    return why;
                }
            }
            Refusal::NeedMore => return format!("{REQUIRED} (no call header in the first bytes)"),
        }
    }
}

/// What a non-negotiating client is told.
pub const REQUIRED: &str = "authentication is required: this Thrift gateway accepts only SASL PLAIN (TSaslClientTransport, mechanism PLAIN) before any call";

/// What to answer bytes that are no negotiation.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    NeedMore,
    /// A `TApplicationException` in the client's transport and protocol.
    Reply(Vec<u8>),
    /// Bytes of no Thrift transport and protocol.
    Unknown,
}

/// Reads the head of a plain client's first call from `buf` (buffered or framed, binary
/// or compact, as its first bytes show) and builds the refusal it can read.
pub fn plain_refusal(buf: &[u8], limits: &Limits) -> Refusal {
    let (transport, body) = match buf.first() {
        None => return Refusal::NeedMore,
        Some(0) => match buf.get(4..) {
            Some(rest) => (TransportKind::Framed, rest),
            None => return Refusal::NeedMore,
        },
        Some(_) => (TransportKind::Buffered, buf),
    };
    let protocol = match body.first() {
        None => return Refusal::NeedMore,
        Some(0x80) => ProtocolKind::Binary,
        Some(0x82) => ProtocolKind::Compact,
        Some(_) => return Refusal::Unknown,
    };
    let mut input = body;
    let header: Result<MessageHeader, _> =
        protocol::reader(protocol, &mut input, limits).read_message_begin();
    match header {
        Ok(header) => {
            let wire = Wire {
                transport,
                protocol,
                limits: limits.clone(),
            };
            call::exception(&wire, &header, call::UNKNOWN, REQUIRED.to_string())
                .map_or(Refusal::Unknown, Refusal::Reply)
        }
        Err(e) if e.is_disconnect() => Refusal::NeedMore,
        Err(_) => Refusal::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{MessageType, Struct};

    fn call_bytes(transport: TransportKind, protocol: ProtocolKind) -> Vec<u8> {
        let wire = Wire {
            transport,
            protocol,
            limits: Limits::default(),
        };
        let header = MessageHeader {
            name: "getTableNames".into(),
            kind: MessageType::Call,
            seq_id: 7,
        };
        wire.encode(&header, &Struct::new()).expect("encodes")
    }

    #[test]
    fn each_plain_client_is_answered_in_its_own_transport_and_protocol() {
        for transport in [TransportKind::Buffered, TransportKind::Framed] {
            for protocol in [ProtocolKind::Binary, ProtocolKind::Compact] {
                let bytes = call_bytes(transport, protocol);
                let Refusal::Reply(reply) = plain_refusal(&bytes, &Limits::default()) else {
                    panic!("{transport:?} {protocol:?}: a reply")
                };
                let wire = Wire {
                    transport: TransportKind::Buffered,
                    protocol,
                    limits: Limits::default(),
                };
                let body = match transport {
                    TransportKind::Framed => &reply[4..],
                    TransportKind::Buffered => &reply[..],
                };
                let message = wire.decode(body).expect("the client can read it");
                assert_eq!(message.header.kind, MessageType::Exception);
                assert_eq!(message.header.seq_id, 7);
                assert!(format!("{:?}", message.body).contains("SASL PLAIN"));
                for cut in 0..5.min(bytes.len()) {
                    assert_eq!(
                        plain_refusal(&bytes[..cut], &Limits::default()),
                        Refusal::NeedMore
                    );
                }
            }
        }
        assert_eq!(
            plain_refusal(b"GET / HTTP/1.1\r\n", &Limits::default()),
            Refusal::Unknown
        );
    }
}
