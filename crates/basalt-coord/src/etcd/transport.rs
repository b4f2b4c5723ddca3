//! How a call reaches etcd: one HTTP/2 channel per endpoint, tried in order, every call
//! under one deadline.
//!
//! A call starts at the endpoint that answered last and moves to the next one when the
//! current one cannot take it: it refused the connection, its member has no leader (every
//! request carries etcd's `hasleader` metadata, so such a member says so at once instead
//! of waiting), or, for calls that are safe to repeat, any transport failure or a slow
//! answer. After a full round it waits a little (50 ms, doubling to 500 ms) and goes
//! round again, until the deadline. A transaction is not repeated once it may have reached
//! a member (a broken connection, a timeout): it fails with `Unavailable` and the caller
//! reads back what happened, as with etcd's own client.
//!
//! With TLS settings ([`ClientTls`]: the CA etcd's certificate is checked against, and a
//! client certificate when etcd runs with `--client-cert-auth`, whose CN is then the etcd
//! user its RBAC applies to) every connection is TLS, made by the connector itself; the
//! endpoints are then written `https://host:port` or `host:port`.

use crate::{CoordError, Result};
use basalt_net::tls::{ClientStream, ClientTls};
use hyper_util::rt::TokioIo;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::time::Instant;
use tonic::codegen::Service;
use tonic::metadata::MetadataValue;
use tonic::transport::{Channel, Endpoint, Uri};
use tonic::{Code, Status};

/// The longest answer accepted (a listing page or a large value).
pub(crate) const RESPONSE_BYTES_MAX: usize = 64 * 1024 * 1024;
const ROUND_PAUSE_MIN: Duration = Duration::from_millis(50);
const ROUND_PAUSE_MAX: Duration = Duration::from_millis(500);
/// A repeatable call gives one endpoint at most this share of its deadline (and at least
/// one second), so that a member that hangs leaves time to ask another.
const READ_ATTEMPT_SHARE: u32 = 3;

/// Opens the channels' connections: TCP without Nagle's delay, then TLS when configured.
#[derive(Debug, Clone)]
struct Connector {
    tls: Option<ClientTls>,
}

impl Service<Uri> for Connector {
    type Response = TokioIo<ClientStream>;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<Self::Response>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        let tls = self.tls.clone();
        Box::pin(async move {
            let host = uri.host().ok_or_else(|| {
                io::Error::new(io::ErrorKind::InvalidInput, format!("no host in '{uri}'"))
            })?;
            let host = host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_string();
            let stream =
                TcpStream::connect((host.as_str(), uri.port_u16().unwrap_or(2379))).await?;
            stream.set_nodelay(true)?;
            let stream = match &tls {
                None => ClientStream::Plain(stream),
                Some(tls) => tls.connect(&host, stream).await?,
            };
            Ok(TokioIo::new(stream))
        })
    }
}

/// What a call is, for its retries and its errors.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Call {
    pub(crate) what: &'static str,
    /// Safe to send again after it may have been applied.
    pub(crate) repeatable: bool,
    /// The lease a "lease not found" answer refers to.
    pub(crate) lease: i64,
}

impl Call {
    pub(crate) fn read(what: &'static str) -> Self {
        Self {
            what,
            repeatable: true,
            lease: 0,
        }
    }
    pub(crate) fn write(what: &'static str) -> Self {
        Self {
            what,
            repeatable: false,
            lease: 0,
        }
    }
    pub(crate) fn lease(mut self, lease: i64) -> Self {
        self.lease = lease;
        self
    }
}

/// The endpoints of one etcd cluster and their channels.
#[derive(Debug)]
pub(crate) struct Endpoints {
    uris: Vec<String>,
    channels: Vec<Channel>,
    /// The endpoint that answered last: calls start there.
    current: AtomicUsize,
    timeout: Duration,
}

impl Endpoints {
    /// Channels (connected lazily, on first use) to `endpoints`, `host:port` or
    /// `http://host:port` — with `tls`, `host:port` or `https://host:port`. Must run
    /// inside a tokio runtime.
    pub(crate) fn new(
        endpoints: &[String],
        timeout: Duration,
        tls: Option<ClientTls>,
    ) -> Result<Self> {
        if endpoints.is_empty() {
            return Err(CoordError::Refused("no etcd endpoint given".to_string()));
        }
        let mut uris = Vec::with_capacity(endpoints.len());
        let mut channels = Vec::with_capacity(endpoints.len());
        for endpoint in endpoints {
            let (scheme, address) = endpoint
                .split_once("://")
                .unwrap_or((if tls.is_some() { "https" } else { "http" }, endpoint));
            match (scheme, tls.is_some()) {
                ("http", false) | ("https", true) => {}
                ("https", false) => {
                    return Err(CoordError::Refused(format!(
                        "etcd endpoint '{endpoint}' is https: give the CA to trust (etcds://, --coordinator-ca)"
                    )))
                }
                ("http", true) => {
                    return Err(CoordError::Refused(format!(
                        "etcd endpoint '{endpoint}' is plain http, but TLS settings were given"
                    )))
                }
                _ => {
                    return Err(CoordError::Refused(format!(
                        "etcd endpoint '{endpoint}': expected http:// or https://"
                    )))
                }
            }
            let uri = format!("{scheme}://{address}");
            // The channel itself speaks plain HTTP/2: the connector makes the TLS session.
            let channel = Endpoint::from_shared(format!("http://{address}"))
                .map_err(|e| CoordError::Refused(format!("bad etcd endpoint '{endpoint}': {e}")))?
                .connect_timeout(timeout.min(Duration::from_secs(2)))
                .http2_keep_alive_interval(Duration::from_secs(5))
                .keep_alive_timeout(Duration::from_secs(3))
                .keep_alive_while_idle(true)
                .connect_with_connector_lazy(Connector {
                    tls: tls.as_ref().map(ClientTls::offering_h2),
                });
            uris.push(uri);
            channels.push(channel);
        }
        Ok(Self {
            uris,
            channels,
            current: AtomicUsize::new(0),
            timeout,
        })
    }

    /// The endpoints, comma-separated, for logs and errors.
    pub(crate) fn names(&self) -> String {
        self.uris.join(",")
    }

    /// Runs `attempt` on one endpoint after another (see the module doc) until one
    /// answers, the answer is final, or the deadline passes. `attempt` gets the channel
    /// and the time it has.
    pub(crate) async fn call<T, F, Fut>(&self, call: Call, attempt: F) -> Result<T>
    where
        F: Fn(Channel, Duration) -> Fut,
        Fut: Future<Output = std::result::Result<T, Status>>,
    {
        let deadline = Instant::now() + self.timeout;
        let count = self.channels.len();
        let mut failures: Vec<Option<String>> = vec![None; count];
        let mut pause = ROUND_PAUSE_MIN;
        loop {
            let start = self.current.load(Ordering::Relaxed);
            for step in 0..count {
                let index = (start + step) % count;
                let remaining = deadline.saturating_duration_since(Instant::now());
                if remaining.is_zero() {
                    return Err(self.unavailable(call, &failures));
                }
                let budget = if call.repeatable {
                    remaining.min((self.timeout / READ_ATTEMPT_SHARE).max(Duration::from_secs(1)))
                } else {
                    remaining
                };
                let channel = self.channels[index].clone();
                let outcome = tokio::time::timeout(budget, attempt(channel, budget)).await;
                let status = match outcome {
                    Ok(Ok(answer)) => {
                        self.current.store(index, Ordering::Relaxed);
                        return Ok(answer);
                    }
                    Ok(Err(status)) => status,
                    Err(_) => Status::deadline_exceeded(format!("no answer within {budget:?}")),
                };
                match classify(call, &self.uris[index], &status) {
                    Failure::Final(error) => return Err(error),
                    Failure::NotApplied(cause) => failures[index] = Some(cause),
                    Failure::Unknown(cause) if call.repeatable => failures[index] = Some(cause),
                    Failure::Unknown(cause) => {
                        failures[index] = Some(cause);
                        let error = self.unavailable(call, &failures);
                        return Err(CoordError::Unavailable(format!(
                            "{error} (it may or may not have been applied)"
                        )));
                    }
                }
                tracing::debug!(
                    endpoint = %self.uris[index],
                    call = call.what,
                    cause = failures[index].as_deref().unwrap_or(""),
                    "etcd endpoint failed; trying the next"
                );
            }
            let remaining = deadline.saturating_duration_since(Instant::now());
            // A retry back-off between rounds (no endpoint could take the call).
            tokio::time::sleep(pause.min(remaining)).await;
            pause = (pause * 2).min(ROUND_PAUSE_MAX);
        }
    }

    fn unavailable(&self, call: Call, failures: &[Option<String>]) -> CoordError {
        let causes: Vec<String> = self
            .uris
            .iter()
            .zip(failures)
            .map(|(uri, cause)| format!("{uri}: {}", cause.as_deref().unwrap_or("not tried")))
            .collect();
        CoordError::Unavailable(format!(
            "etcd {}: {} failed within {:?} ({})",
            self.names(),
            call.what,
            self.timeout,
            causes.join("; ")
        ))
    }
}

/// A request carrying etcd's "require a leader" metadata, and `timeout` as its gRPC
/// deadline when given (not for streams, which outlive one call's deadline).
pub(crate) fn request<M>(message: M, timeout: Option<Duration>) -> tonic::Request<M> {
    let mut request = tonic::Request::new(message);
    request
        .metadata_mut()
        .insert("hasleader", MetadataValue::from_static("true"));
    if let Some(timeout) = timeout {
        request.set_timeout(timeout);
    }
    request
}

enum Failure {
    /// The request certainly changed nothing: another endpoint may take it.
    NotApplied(String),
    /// It may have reached a member.
    Unknown(String),
    /// The cluster answered: no point asking another member.
    Final(CoordError),
}

/// etcd's answers that mean the request was not applied.
const NOT_APPLIED: [&str; 3] = [
    "etcdserver: no leader",
    "etcdserver: server stopped",
    "etcdserver: not leader",
];

fn classify(call: Call, uri: &str, status: &Status) -> Failure {
    let message = status.message().to_string();
    match status.code() {
        Code::Unavailable if never_connected(status) => Failure::NotApplied(message),
        Code::Unavailable | Code::FailedPrecondition if NOT_APPLIED.contains(&message.as_str()) => {
            Failure::NotApplied(message)
        }
        Code::Unavailable
        | Code::DeadlineExceeded
        | Code::Cancelled
        | Code::Unknown
        | Code::Internal
        | Code::Aborted => Failure::Unknown(format!("{:?}: {message}", status.code())),
        Code::NotFound if message.contains("lease not found") => {
            Failure::Final(CoordError::LeaseGone(call.lease))
        }
        code => Failure::Final(CoordError::Refused(format!(
            "etcd {uri}: {}: {code:?}: {message}",
            call.what
        ))),
    }
}

/// Whether the failure happened while connecting (so nothing was sent).
fn never_connected(status: &Status) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(status);
    while let Some(error) = source {
        if error.is::<tonic::ConnectError>() {
            return true;
        }
        source = error.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etcd::pb::etcdserverpb::kv_client::KvClient;
    use crate::etcd::pb::etcdserverpb::RangeRequest;

    #[tokio::test]
    async fn a_refused_connection_counts_as_not_sent_so_a_write_tries_again() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let refusing = format!(
            "127.0.0.1:{}",
            listener.local_addr().expect("address").port()
        );
        drop(listener);
        let endpoints = Endpoints::new(
            std::slice::from_ref(&refusing),
            Duration::from_millis(400),
            None,
        )
        .expect("endpoints");
        let attempts = AtomicUsize::new(0);
        let error = endpoints
            .call(Call::write("probe"), |channel, time| {
                attempts.fetch_add(1, Ordering::Relaxed);
                async move {
                    KvClient::new(channel)
                        .range(request(RangeRequest::default(), Some(time)))
                        .await
                }
            })
            .await
            .expect_err("nothing listens");
        assert!(
            attempts.load(Ordering::Relaxed) > 1,
            "a write that was never sent is tried again"
        );
        let CoordError::Unavailable(message) = error else {
            panic!("expected Unavailable, got {error:?}");
        };
        assert!(message.contains(&refusing), "{message}");
        assert!(!message.contains("may or may not"), "{message}");
    }
}
