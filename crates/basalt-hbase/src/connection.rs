//! One client connection, as a task: the preamble and the connection header, then calls.
//!
//! Each call frame is read whole (its length checked first, its bytes gathered as they
//! come, not allocated up front) and answered on a worker while the next is read, as
//! HBase's clients multiplex calls on one connection; answers are written as they finish
//! (clients match them to calls by id), at most `calls_in_flight_max` at once per
//! connection. Anything malformed closes the connection once the calls before it are
//! answered, after an exception answer when the protocol has one (a wrong version or
//! authentication gets HBase's fatal answer, call id -1). With authentication required,
//! a preamble naming SIMPLE (a user name merely asserted) is answered with HBase's
//! `AccessDeniedException: Authentication is required` (call id -1), audited, and closed.

use crate::cellblock::{self, Codec};
use crate::server::Shared;
use crate::service::{CallContext, ServiceKind};
use crate::wire::{self, WireError};
use crate::RpcError;
use basalt_api::{AuthMethod, Principal};
use basalt_net::Conn;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, Semaphore};

/// Fatal connection errors, by HBase's class names.
const FATAL: &str = "org.apache.hadoop.hbase.ipc.FatalConnectionException";
const WRONG_VERSION: &str = "org.apache.hadoop.hbase.ipc.WrongVersionException";
const BAD_AUTH: &str = "org.apache.hadoop.hbase.ipc.BadAuthException";
/// What HBase's server answers SIMPLE with when security is on and fallback is not allowed.
const ACCESS_DENIED: &str = "org.apache.hadoop.hbase.security.AccessDeniedException";
/// Its message, as HBase's.
pub const AUTHENTICATION_REQUIRED: &str = "Authentication is required";
const UNKNOWN_SERVICE: &str = "org.apache.hadoop.hbase.ipc.UnknownServiceException";
const UNSUPPORTED_CODEC: &str = "org.apache.hadoop.hbase.ipc.UnsupportedCellCodecException";
const UNSUPPORTED_COMPRESSION: &str =
    "org.apache.hadoop.hbase.ipc.UnsupportedCompressionCodecException";

/// Why a connection ends.
enum End {
    /// The client left.
    Closed,
    /// Bytes that are not the protocol: logged as a warning.
    Malformed(String),
    /// A socket error: logged at debug.
    Io(std::io::Error),
}

impl From<std::io::Error> for End {
    fn from(e: std::io::Error) -> Self {
        match e.kind() {
            std::io::ErrorKind::UnexpectedEof => End::Closed,
            _ => End::Io(e),
        }
    }
}

pub async fn serve(shared: Arc<Shared>, mut conn: Conn, session: u64) {
    // Answers go out at once (`hbase.ipc.server.tcpnodelay`): the listener sets TCP_NODELAY.
    let peer = conn.peer_addr();
    let end = match preface(&shared, &mut conn).await {
        Ok((kind, codec, principal)) => {
            tracing::debug!(session, service = kind.name(), user = ?principal.as_ref().map(|p| p.name().to_string()), "HBase connection opened");
            calls(&shared, conn, kind, codec, principal).await
        }
        Err(end) => end,
    };
    match end {
        End::Closed => tracing::debug!(session, %peer, "HBase connection closed"),
        End::Malformed(why) => tracing::warn!(session, %peer, "closing an HBase connection: {why}"),
        End::Io(e) => tracing::debug!(session, %peer, "HBase connection ended: {e}"),
    }
}

async fn write(conn: &mut Conn, bytes: &[u8], timeout: Duration) -> Result<(), End> {
    match tokio::time::timeout(timeout, conn.write_all(bytes)).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(e.into()),
        Err(_) => Err(End::Malformed(
            "the client does not read its answers".into(),
        )),
    }
}

/// Reads exactly `len` bytes, growing the buffer as they arrive.
async fn read_frame(
    reader: &mut (impl tokio::io::AsyncRead + Unpin),
    len: usize,
) -> Result<bytes::Bytes, End> {
    let mut buf = Vec::with_capacity(len.min(64 * 1024));
    let read = reader.take(len as u64).read_to_end(&mut buf).await?;
    if read < len {
        return Err(End::Closed);
    }
    Ok(bytes::Bytes::from(buf))
}

/// A fatal answer (call id -1), then the end of the connection.
async fn fatal(conn: &mut Conn, shared: &Shared, class: &str, why: String) -> End {
    let error = RpcError::new(class, why.clone(), true);
    let _ = write(
        conn,
        &wire::encode_exception(wire::FATAL_CALL_ID, &error),
        shared.write_timeout,
    )
    .await;
    End::Malformed(why)
}

/// The preamble and the connection header: the service, the cell-block codec, and the
/// user a verified TLS client certificate names (whatever the header asserts).
async fn preface(
    shared: &Arc<Shared>,
    conn: &mut Conn,
) -> Result<(ServiceKind, Option<Codec>, Option<Principal>), End> {
    let mut preamble = [0u8; 6];
    conn.read_exact(&mut preamble).await?;
    if let Err(e) = wire::check_preamble(&preamble) {
        return Err(match e {
            WireError::WrongVersion(_) => fatal(conn, shared, WRONG_VERSION, e.to_string()).await,
            WireError::UnsupportedAuth(_) => fatal(conn, shared, BAD_AUTH, e.to_string()).await,
            other => End::Malformed(other.to_string()),
        });
    }
    let principal = certificate_principal(shared, conn).await;
    if shared.refuse_simple && preamble[5] == wire::AUTH_SIMPLE && principal.is_none() {
        let peer = conn.peer_addr().ip();
        let why = format!("{AUTHENTICATION_REQUIRED}: this server refuses SIMPLE authentication (a user name merely asserted)");
        basalt_auth::audit::auth_failed("(simple)", Some(peer), "hbase.rpc.preamble", &why);
        let message = AUTHENTICATION_REQUIRED.to_string();
        return Err(fatal(conn, shared, ACCESS_DENIED, message).await);
    }
    let header = match connection_header(shared, conn).await {
        Ok(header) => header,
        Err(Ok((class, why))) => return Err(fatal(conn, shared, class, why).await),
        Err(Err(end)) => return Err(end),
    };
    // The preface is a complete request: the connection has proven itself.
    drop(conn.peer().busy());
    Ok((header.0, header.1, principal))
}

/// The user of a verified TLS client certificate, when certificates name users; audited.
async fn certificate_principal(shared: &Shared, conn: &Conn) -> Option<Principal> {
    if !shared.certificate_users {
        return None;
    }
    let identity = conn.tls_identity()?;
    let peer = Some(conn.peer_addr().ip());
    match basalt_auth::record::certificate_user(identity) {
        Ok(user) => {
            basalt_auth::audit::authenticated(&user, "certificate", peer, "hbase.rpc.certificate");
            Some(match &shared.authenticator {
                Some(auth) => auth.certificate_principal(&user).await,
                None => Principal::new(user, AuthMethod::Certificate),
            })
        }
        Err(e) => {
            basalt_auth::audit::auth_failed(
                identity,
                peer,
                "hbase.rpc.certificate",
                &e.to_string(),
            );
            None
        }
    }
}

/// The calls of a connection, answered concurrently (up to `calls_in_flight_max` at once) and
/// written back as they finish; reading stops while that many run. When the client leaves
/// or sends something malformed, the calls already read still get their answers.
async fn calls(
    shared: &Arc<Shared>,
    conn: Conn,
    kind: ServiceKind,
    codec: Option<Codec>,
    principal: Option<Principal>,
) -> End {
    let peer = conn.peer();
    let (mut reader, mut writer) = tokio::io::split(conn);
    let (answers, mut outbox) = mpsc::channel::<Vec<u8>>(shared.calls_in_flight_max);
    let write_timeout = shared.write_timeout;
    let mut writing = tokio::spawn(async move {
        while let Some(answer) = outbox.recv().await {
            match tokio::time::timeout(write_timeout, writer.write_all(&answer)).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => return End::from(e),
                Err(_) => return End::Malformed("the client does not read its answers".into()),
            }
        }
        End::Closed
    });
    let permits = Arc::new(Semaphore::new(shared.calls_in_flight_max));
    let running = Arc::new(AtomicUsize::new(0));
    let end = loop {
        let mut prefix = [0u8; 4];
        tokio::select! {
            read = reader.read_exact(&mut prefix) => {
                if let Err(e) = read {
                    break End::from(e);
                }
            }
            ended = &mut writing => {
                return ended.unwrap_or_else(|e| End::Malformed(format!("the answer writer failed: {e}")));
            }
        }
        let len = match wire::frame_len(prefix, "a call", shared.limits.frame_max) {
            Ok(len) => len,
            Err(e) => break End::Malformed(e.to_string()),
        };
        let frame = match read_frame(&mut reader, len).await {
            Ok(frame) => frame,
            Err(end) => break end,
        };
        let call = match wire::decode_call(frame, &shared.limits) {
            Ok(call) => call,
            Err(e) => break End::Malformed(e.to_string()),
        };
        let Ok(permit) = permits.clone().acquire_owned().await else {
            break End::Closed;
        };
        // Busy while any call runs: a connection with a call in flight is never shed.
        if running.fetch_add(1, Ordering::AcqRel) == 0 {
            peer.begin_request();
        }
        let (shared, answers, running, peer, principal) = (
            shared.clone(),
            answers.clone(),
            running.clone(),
            peer.clone(),
            principal.clone(),
        );
        tokio::spawn(async move {
            let answer = answer(&shared, kind, codec, call, principal).await;
            // The writer is gone only when the connection is: the answer has nowhere to go.
            let _ = answers.send(answer).await;
            if running.fetch_sub(1, Ordering::AcqRel) == 1 {
                peer.end_request();
            }
            drop(permit);
        });
    };
    // The calls already read still answer; the writer ends after the last.
    drop(answers);
    match writing.await {
        Ok(End::Closed) | Err(_) => end,
        Ok(failed) => failed,
    }
}

type HeaderResult = Result<(ServiceKind, Option<Codec>), Result<(&'static str, String), End>>;

async fn connection_header(shared: &Shared, conn: &mut Conn) -> HeaderResult {
    let mut prefix = [0u8; 4];
    conn.read_exact(&mut prefix)
        .await
        .map_err(|e| Err(e.into()))?;
    let len = wire::frame_len(
        prefix,
        "the connection header",
        shared.limits.connection_header_max,
    )
    .map_err(|e| Err(End::Malformed(e.to_string())))?;
    let bytes = read_frame(conn, len).await.map_err(Err)?;
    let header = wire::decode_connection_header(&bytes).map_err(|e| Ok((FATAL, e.to_string())))?;
    let name = header.service_name.clone().unwrap_or_default();
    let kind = ServiceKind::named(&name)
        .ok_or_else(|| Ok((UNKNOWN_SERVICE, format!("unknown service {name:?}"))))?;
    if let Some(compressor) = header.cell_block_compressor_class.filter(|c| !c.is_empty()) {
        return Err(Ok((
            UNSUPPORTED_COMPRESSION,
            format!("cell block compressor {compressor} is not supported"),
        )));
    }
    let codec = match header.cell_block_codec_class.filter(|c| !c.is_empty()) {
        None => None,
        Some(class) => Some(Codec::named(&class).ok_or_else(|| {
            Ok((
                UNSUPPORTED_CODEC,
                format!("cell block codec {class} is not supported"),
            ))
        })?),
    };
    Ok((kind, codec))
}

/// Runs one call on a worker; its answer frame.
async fn answer(
    shared: &Arc<Shared>,
    kind: ServiceKind,
    codec: Option<Codec>,
    call: wire::Call,
    principal: Option<Principal>,
) -> Vec<u8> {
    let call_id = call.call_id();
    let cells = match (call.cell_block.is_empty(), codec) {
        (true, _) => Ok(Vec::new()),
        (false, Some(codec)) => cellblock::decode(&call.cell_block, codec)
            .map_err(|e| RpcError::do_not_retry(e.to_string())),
        (false, None) => Err(RpcError::do_not_retry(
            "a cell block on a connection that named no codec",
        )),
    };
    let cells = match cells {
        Ok(cells) => cells,
        Err(e) => return wire::encode_exception(call_id, &e),
    };
    if !call.header.request_param.unwrap_or(false) {
        let e = RpcError::do_not_retry(format!("call {} has no request message", call.method()));
        return wire::encode_exception(call_id, &e);
    }
    let method = call.method().to_string();
    let ctx = CallContext {
        codec,
        timeout: call
            .header
            .timeout
            .filter(|ms| *ms > 0)
            .map(|ms| Duration::from_millis(u64::from(ms))),
    };
    let param = call.param;
    let worker = shared.clone();
    let result = tokio::task::spawn_blocking(move || {
        basalt_acl::context::with(principal, || {
            worker.service.call(kind, &method, &param, cells, ctx)
        })
    })
    .await;
    match result {
        Ok(Ok(reply)) => wire::encode_answer(call_id, &reply.message, &reply.cell_block),
        Ok(Err(e)) => wire::encode_exception(call_id, &e),
        Err(e) => {
            tracing::error!("an HBase call failed: {e}");
            wire::encode_exception(
                call_id,
                &RpcError::new(
                    "java.io.IOException",
                    "the call failed on the server",
                    false,
                ),
            )
        }
    }
}
