//! One call, on a worker thread: decode the gathered message, run the method, encode the
//! reply — or the `TApplicationException` HBase's server would send.
//!
//! A malformed call whose head was readable gets a `TApplicationException`
//! (`PROTOCOL_ERROR`) and the connection closes; bytes that are not a message of the
//! configured transport and protocol close it with no answer. An unknown method's arguments
//! are consumed and answered with `UNKNOWN_METHOD`; the connection stays usable.

use crate::protocol::{MessageHeader, MessageType, Struct, Value};
use crate::service::Service;
use crate::transport::Wire;
use crate::ThriftError;

/// `TApplicationException` types.
pub(crate) const UNKNOWN: i32 = 0;
const UNKNOWN_METHOD: i32 = 1;
const INVALID_MESSAGE_TYPE: i32 = 2;
const INTERNAL_ERROR: i32 = 6;
const PROTOCOL_ERROR: i32 = 7;

/// What to send back, and whether the connection ends after it.
#[derive(Debug)]
pub struct Answer {
    pub reply: Option<Vec<u8>>,
    pub close: bool,
}

impl Answer {
    fn close(reply: Option<Vec<u8>>) -> Self {
        Self { reply, close: true }
    }
}

/// Answers the message in `input` for connection `session`. `malformed`: the scanner found
/// the bytes invalid, so the connection closes whatever the decoder makes of them.
pub fn answer(
    service: &Service,
    session: u64,
    wire: &Wire,
    input: &[u8],
    malformed: bool,
) -> Answer {
    let message = match wire.decode(input) {
        Ok(message) if !malformed => message,
        Ok(message) => {
            tracing::warn!(session, method = %message.header.name, "the message scanner and the decoder disagree: closing the connection");
            return Answer::close(None);
        }
        Err(ThriftError::BadArguments { header, source }) => {
            tracing::warn!(session, method = %header.name, "malformed call: {source}");
            let text = format!("malformed arguments of {}: {source}", header.name);
            return Answer::close(exception(wire, &header, PROTOCOL_ERROR, text));
        }
        Err(e) if e.is_disconnect() => {
            tracing::warn!(session, "closing a connection: bytes that are not a message of the configured transport and protocol");
            return Answer::close(None);
        }
        Err(e) => {
            tracing::warn!(session, "closing a connection: {e}");
            return Answer::close(None);
        }
    };
    let header = message.header;
    if !matches!(header.kind, MessageType::Call | MessageType::Oneway) {
        let text = format!("expected a call, got {:?}", header.kind);
        return Answer::close(exception(wire, &header, INVALID_MESSAGE_TYPE, text));
    }
    let name = header.name.as_str();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        service.call(session, name, &message.body)
    }));
    let reply = match outcome {
        Err(_) => {
            tracing::error!(session, method = name, "the handler panicked");
            let text = format!("internal error in {name}");
            return Answer {
                reply: exception(wire, &header, INTERNAL_ERROR, text),
                close: false,
            };
        }
        Ok(_) if header.kind == MessageType::Oneway => None,
        Ok(result) => match service.result_struct(name, result) {
            Some(body) => match wire.encode(&reply_header(&header, MessageType::Reply), &body) {
                Ok(bytes) => Some(bytes),
                Err(e) => {
                    tracing::warn!(session, method = name, "cannot reply: {e}");
                    return Answer::close(None);
                }
            },
            None => exception(
                wire,
                &header,
                UNKNOWN_METHOD,
                format!("Invalid method name: '{name}'"),
            ),
        },
    };
    Answer {
        reply,
        close: false,
    }
}

fn reply_header(call: &MessageHeader, kind: MessageType) -> MessageHeader {
    MessageHeader {
        name: call.name.clone(),
        kind,
        seq_id: call.seq_id,
    }
}

/// A `TApplicationException` reply.
pub(crate) fn exception(
    wire: &Wire,
    call: &MessageHeader,
    kind: i32,
    message: String,
) -> Option<Vec<u8>> {
    let body = Struct::new()
        .with(1, Value::binary(message))
        .with(2, Value::I32(kind));
    wire.encode(&reply_header(call, MessageType::Exception), &body)
        .ok()
}
