//! One client connection: read a call, run it, write the reply, until the peer leaves or
//! sends something malformed.
//!
//! A malformed call whose head was readable gets a `TApplicationException`
//! (`PROTOCOL_ERROR`) before the connection closes; bytes that are not a message of the
//! configured transport and protocol close it at once. An unknown method's arguments are
//! consumed and answered with `UNKNOWN_METHOD`; the connection stays usable.

use crate::protocol::{MessageHeader, MessageType, Struct, Value};
use crate::service::{result_struct, Service};
use crate::transport::Transport;
use crate::ThriftError;

/// `TApplicationException` types.
const UNKNOWN_METHOD: i32 = 1;
const INVALID_MESSAGE_TYPE: i32 = 2;
const INTERNAL_ERROR: i32 = 6;
const PROTOCOL_ERROR: i32 = 7;

/// Serves one connection until it ends.
pub fn serve(service: &Service, session: u64, transport: &mut Transport) {
    loop {
        let message = match transport.read() {
            Ok(Some(message)) => message,
            Ok(None) => return,
            Err(e) if e.is_disconnect() => return,
            Err(ThriftError::BadArguments { header, source }) => {
                tracing::warn!(session, method = %header.name, "malformed call: {source}");
                let text = format!("malformed arguments of {}: {source}", header.name);
                let _ = send_exception(transport, &header, PROTOCOL_ERROR, text);
                return;
            }
            Err(e) => {
                tracing::warn!(session, "closing a connection: {e}");
                return;
            }
        };
        let header = message.header;
        if !matches!(header.kind, MessageType::Call | MessageType::Oneway) {
            let text = format!("expected a call, got {:?}", header.kind);
            let _ = send_exception(transport, &header, INVALID_MESSAGE_TYPE, text);
            return;
        }
        let name = header.name.as_str();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            service.call(session, name, &message.body)
        }));
        let sent = match outcome {
            Err(_) => {
                tracing::error!(session, method = name, "the handler panicked");
                send_exception(
                    transport,
                    &header,
                    INTERNAL_ERROR,
                    format!("internal error in {name}"),
                )
            }
            Ok(_) if header.kind == MessageType::Oneway => Ok(()),
            Ok(result) => match result_struct(name, result) {
                Some(body) => transport.write(&reply_header(&header, MessageType::Reply), &body),
                None => send_exception(
                    transport,
                    &header,
                    UNKNOWN_METHOD,
                    format!("Invalid method name: '{name}'"),
                ),
            },
        };
        if let Err(e) = sent {
            tracing::debug!(session, "cannot reply: {e}");
            return;
        }
    }
}

fn reply_header(call: &MessageHeader, kind: MessageType) -> MessageHeader {
    MessageHeader {
        name: call.name.clone(),
        kind,
        seq_id: call.seq_id,
    }
}

fn send_exception(
    transport: &mut Transport,
    call: &MessageHeader,
    kind: i32,
    message: String,
) -> Result<(), ThriftError> {
    let body = Struct::new()
        .with(1, Value::binary(message))
        .with(2, Value::I32(kind));
    transport.write(&reply_header(call, MessageType::Exception), &body)
}
