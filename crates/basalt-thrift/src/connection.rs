//! One client connection, as a task: gather a message, answer it on a worker thread, send
//! the reply; until the peer leaves, sends something malformed, or is shed.
//!
//! While it waits for a message the connection holds no buffer and no thread. It is busy
//! (never shed) from a complete message until its reply is written; idle between messages
//! (never shed for that); the listener's header clock runs from a message's first byte to
//! its last (see `basalt_net`). A reply the client does not take within `write_timeout_ms`
//! closes the connection.

use crate::call::answer;
use crate::service::Service;
use crate::transport::{Incoming, MessageReader, Wire};
use basalt_net::Conn;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;

/// What every connection of a gateway shares.
pub struct Shared {
    pub service: Service,
    pub wire: Wire,
    pub write_timeout: Duration,
}

impl Shared {
    pub fn new(service: Service, wire: Wire, write_timeout: Duration) -> Self {
        Self {
            service,
            wire,
            write_timeout,
        }
    }
}

/// Serves `conn` as connection `session` until it ends.
pub async fn serve(shared: Arc<Shared>, mut conn: Conn, session: u64) {
    let mut reader = MessageReader::new(&shared.wire);
    loop {
        let (input, malformed) = match reader.next(&mut conn).await {
            Ok(Incoming::Message(bytes)) => (bytes, false),
            Ok(Incoming::Malformed(bytes)) => (bytes, true),
            Ok(Incoming::BadFrame(e)) => {
                tracing::warn!(session, "closing a connection: {e}");
                break;
            }
            Ok(Incoming::Closed) => break,
            Err(e) => {
                tracing::debug!(session, "Thrift connection ended: {e}");
                break;
            }
        };
        let busy = conn.peer().busy();
        let worker = shared.clone();
        let answered = tokio::task::spawn_blocking(move || {
            answer(&worker.service, session, &worker.wire, &input, malformed)
        })
        .await;
        let answered = match answered {
            Ok(answered) => answered,
            Err(e) => {
                tracing::error!(session, "a Thrift call failed: {e}");
                break;
            }
        };
        if let Some(reply) = answered.reply {
            match tokio::time::timeout(shared.write_timeout, conn.write_all(&reply)).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    tracing::debug!(session, "cannot reply: {e}");
                    break;
                }
                Err(_) => {
                    tracing::warn!(session, peer = %conn.peer_addr(), "closing a connection whose client does not read its replies");
                    break;
                }
            }
        }
        drop(busy);
        if answered.close {
            break;
        }
    }
    drop(conn);
    // Closing a scanner may call the server: on a worker too.
    let _ = tokio::task::spawn_blocking(move || shared.service.end_session(session)).await;
}
