//! How the channel reaches a server: a TCP connection without Nagle's delay, its writes
//! gathered into one system call per burst of HTTP/2 frames
//! ([`basalt_proto::coalesce`]), so a call's headers and body leave in one segment, over
//! TLS when the client (or its process) trusts a CA ([`basalt_net::tls::ClientTls`]) — or,
//! when the server is in this process and registered its address
//! ([`basalt_proto::in_process`]), an in-memory pipe to it.

use basalt_net::tls::{ClientStream, ClientTls};
use basalt_proto::coalesce::CoalescingStream;
use basalt_proto::in_process::{self, Link};
use hyper_util::rt::TokioIo;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::net::TcpStream;
use tonic::codegen::Service;
use tonic::transport::Uri;

/// A connection as the channel's HTTP/2 client drives it.
pub type Io = TokioIo<Link<CoalescingStream<ClientStream>>>;

/// Opens the channel's connections (and its reconnections): over TLS when it has a
/// [`ClientTls`].
#[derive(Debug, Clone)]
pub struct Connector {
    tls: Option<ClientTls>,
}

static PROCESS_TLS: std::sync::OnceLock<ClientTls> = std::sync::OnceLock::new();

/// The TLS every client of this process uses when its configuration names none: a
/// server's, trusting `[security] tls_ca_file`, so that masters, region servers and
/// standalone's gateways dial each other over TLS. Set once, at start; a later call
/// changes nothing and returns false.
pub fn set_process_tls(tls: ClientTls) -> bool {
    PROCESS_TLS.set(tls).is_ok()
}

impl Connector {
    /// With `tls`, else the process's ([`set_process_tls`]), else plain.
    pub fn new(tls: Option<&ClientTls>) -> Self {
        Self {
            tls: tls.or(PROCESS_TLS.get()).cloned(),
        }
    }
}

impl Service<Uri> for Connector {
    type Response = Io;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<Io>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        let tls = self.tls.clone();
        Box::pin(async move {
            let (host, port) = host_port(&uri)?;
            if let Some(pipe) = in_process::connect(&host, port) {
                return Ok(TokioIo::new(Link::Pipe(pipe)));
            }
            let stream = TcpStream::connect((host.as_str(), port)).await?;
            stream.set_nodelay(true)?;
            let stream = match &tls {
                None => ClientStream::Plain(stream),
                Some(tls) => tls.connect(&host, stream).await?,
            };
            Ok(TokioIo::new(Link::Socket(CoalescingStream::new(stream))))
        })
    }
}

/// The host (an IPv6 address without its brackets) and port of `uri`, port 80 when it
/// names none (as for any `http://` address).
fn host_port(uri: &Uri) -> io::Result<(String, u16)> {
    let host = uri.host().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("no host in server address '{uri}'"),
        )
    })?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    Ok((host.to_string(), uri.port_u16().unwrap_or(80)))
}

/// What every call of a client presents: an `authorization` header from
/// [`ClientConfig::credentials`](crate::ClientConfig), else the process's own (a server's
/// cluster secret, [`set_process_secrets`]: the one presented at the time of each call,
/// so a rotated secret is presented from the next call on), else nothing.
#[derive(Debug, Clone, Default)]
pub struct Presenter {
    header: Option<tonic::metadata::MetadataValue<tonic::metadata::Ascii>>,
    secrets: Option<basalt_auth::secret::ClusterSecrets>,
}

/// A channel whose every call carries the client's credentials.
pub type Authed =
    tonic::service::interceptor::InterceptedService<tonic::transport::Channel, Presenter>;

static PROCESS_SECRETS: std::sync::OnceLock<basalt_auth::secret::ClusterSecrets> =
    std::sync::OnceLock::new();

/// The cluster secrets whose presented one every client of this process presents when it
/// is given no credentials: a master's or region server's, so that its calls to the others
/// of its cluster (and standalone's gateways' calls to its own master) authenticate. Set
/// once, at start; a later call changes nothing and returns false.
pub fn set_process_secrets(secrets: basalt_auth::secret::ClusterSecrets) -> bool {
    PROCESS_SECRETS.set(secrets).is_ok()
}

fn header_of(
    c: &basalt_auth::Credentials,
) -> Result<tonic::metadata::MetadataValue<tonic::metadata::Ascii>, String> {
    c.header_value().parse().map_err(|_| {
        "the credentials cannot be sent: a user name, token or secret must be text without control characters".to_string()
    })
}

impl Presenter {
    /// Presents `credentials`, else the process's.
    pub fn new(credentials: Option<&basalt_auth::Credentials>) -> Result<Self, String> {
        match credentials {
            Some(c) => Ok(Self {
                header: Some(header_of(c)?),
                secrets: None,
            }),
            None => Ok(Self {
                header: None,
                secrets: PROCESS_SECRETS.get().cloned(),
            }),
        }
    }

    /// `channel`, presenting these credentials on every call.
    pub fn on(&self, channel: tonic::transport::Channel) -> Authed {
        tonic::service::interceptor::InterceptedService::new(channel, self.clone())
    }
}

impl tonic::service::Interceptor for Presenter {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(header) = &self.header {
            request
                .metadata_mut()
                .insert("authorization", header.clone());
        } else if let Some(secrets) = &self.secrets {
            let presented = basalt_auth::Credentials::ClusterSecret(secrets.presented());
            let header = header_of(&presented).map_err(tonic::Status::internal)?;
            request.metadata_mut().insert("authorization", header);
        }
        Ok(request)
    }
}

/// How often a connection is pinged (HTTP/2 PING, answered by the peer's connection
/// task, not by a call handler), and how long an answer may take before the connection is
/// given up. A server that stopped answering altogether (paused, its machine frozen, a
/// cable cut: the socket stays open, nothing comes back) fails its calls within about
/// 6 s: they are retried, and the client asks the master where the regions went, in
/// about the time the server's lease takes to run out — not after the 30 s + 20 s that
/// the defaults took, while calls waited on a server that would never answer.
const KEEP_ALIVE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(2);
const KEEP_ALIVE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(4);

/// The user this process runs as (`USER`, else `USERNAME`), which a client tells servers
/// in its `user-agent` as `user=NAME` (no authentication yet: HBase's SIMPLE); the slow log
/// records it.
fn user_agent(user: Option<&str>) -> String {
    let user = match user {
        Some(u) => u.to_string(),
        None => std::env::var("USER")
            .or_else(|_| std::env::var("USERNAME"))
            .unwrap_or_default(),
    };
    let user: String = user
        .chars()
        .filter(|c| c.is_ascii_graphic())
        .take(64)
        .collect();
    format!("basalt/{} user={user}", env!("CARGO_PKG_VERSION"))
}

/// The endpoint of `address` (`host:port` or `http://host:port`) every client channel
/// uses: `connect_timeout`, keep-alive pings that give up on a silent server, and a
/// `user-agent` naming the user.
pub fn endpoint(
    address: &str,
    connect_timeout: std::time::Duration,
) -> Result<tonic::transport::Endpoint, String> {
    endpoint_as(address, connect_timeout, None)
}

/// As [`endpoint`], naming `user` (this process's user when `None`).
pub fn endpoint_as(
    address: &str,
    connect_timeout: std::time::Duration,
    user: Option<&str>,
) -> Result<tonic::transport::Endpoint, String> {
    let uri = match address.contains("://") {
        true => address.to_string(),
        false => format!("http://{address}"),
    };
    tonic::transport::Endpoint::from_shared(uri)
        .map_err(|e| format!("bad server address '{address}': {e}"))?
        .connect_timeout(connect_timeout)
        .http2_keep_alive_interval(KEEP_ALIVE_INTERVAL)
        .keep_alive_timeout(KEEP_ALIVE_TIMEOUT)
        .keep_alive_while_idle(true)
        .user_agent(user_agent(user))
        .map_err(|e| format!("bad user agent: {e}"))
}

/// A channel to `address` (`host:port` or `http://host:port`) through [`Connector`],
/// connected before it returns (or failing within `timeout`), presenting the process's
/// credentials ([`set_process_credentials`]): how servers reach each other.
pub async fn channel(address: &str, timeout: std::time::Duration) -> Result<Authed, String> {
    let endpoint = endpoint(address, timeout)?;
    let presenter = Presenter::new(None)?;
    match tokio::time::timeout(
        timeout,
        endpoint.connect_with_connector(Connector::new(None)),
    )
    .await
    {
        Ok(Ok(channel)) => Ok(presenter.on(channel)),
        Ok(Err(e)) => Err(format!("cannot connect to {address}: {e}")),
        Err(_) => Err(format!(
            "cannot connect to {address}: no answer within {timeout:?}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(address: &str) -> (String, u16) {
        host_port(&address.parse::<Uri>().expect("a valid uri")).expect("host and port")
    }

    #[test]
    fn host_and_port_come_from_the_address() {
        assert_eq!(parse("http://127.0.0.1:16000"), ("127.0.0.1".into(), 16000));
        assert_eq!(parse("http://localhost:9"), ("localhost".into(), 9));
        assert_eq!(parse("http://[::1]:16000"), ("::1".into(), 16000));
        assert_eq!(parse("http://example.com"), ("example.com".into(), 80));
    }
}
