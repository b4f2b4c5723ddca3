//! One client connection, as a task: gather a message, answer it on a worker thread, send
//! the reply; until the peer leaves, sends something malformed, or is shed.
//!
//! While it waits for a message the connection holds no buffer and no thread. It is busy
//! (never shed) from a complete message until its reply is written; idle between messages
//! (never shed for that); the listener's header clock runs from a message's first byte to
//! its last (see `basalt_net`). A reply the client does not take within `write_timeout_ms`
//! closes the connection.
//!
//! With a [`Gate`] (authentication required) the connection first negotiates SASL PLAIN
//! ([`crate::gate`]); its calls then arrive framed, and each runs as its principal
//! (`basalt_acl::context`), so the connection the service calls checks HBase's ACLs for it.

use crate::call::answer;
use crate::gate::{self, Gate};
use crate::service::Service;
use crate::transport::{Incoming, MessageReader, TransportKind, Wire};
use basalt_net::Conn;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;

/// What every connection of a gateway shares.
pub struct Shared {
    pub service: Service,
    pub wire: Wire,
    pub write_timeout: Duration,
    /// SASL PLAIN before any call (authentication required).
    pub gate: Option<Gate>,
}

impl Shared {
    pub fn new(service: Service, wire: Wire, write_timeout: Duration) -> Self {
        Self {
            service,
            wire,
            write_timeout,
            gate: None,
        }
    }

    /// The same, requiring every connection to authenticate at `gate` first.
    pub fn with_gate(mut self, gate: Option<Gate>) -> Self {
        self.gate = gate;
        self
    }
}

/// Serves `conn` as connection `session` until it ends.
pub async fn serve(shared: Arc<Shared>, mut conn: Conn, session: u64) {
    let (principal, wire) = match &shared.gate {
        None => (None, Arc::new(shared.wire.clone())),
        Some(g) => match gate::admit(g, &mut conn, &shared.wire.limits, session).await {
            // After SASL every message is framed, whatever the gateway's transport.
            Some(principal) => (
                Some(principal),
                Arc::new(Wire {
                    transport: TransportKind::Framed,
                    ..shared.wire.clone()
                }),
            ),
            None => return,
        },
    };
    let mut reader = MessageReader::new(&wire);
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
        let (worker, wire, principal) = (shared.clone(), wire.clone(), principal.clone());
        let answered = tokio::task::spawn_blocking(move || {
            basalt_acl::context::with(principal, || {
                answer(&worker.service, session, &wire, &input, malformed)
            })
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
