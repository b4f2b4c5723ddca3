//! The client side: [`ClientTls`] trusts a CA file (and may present a certificate of its
//! own), and [`ClientStream`] is a dialled connection, plain or TLS. The gRPC client's
//! connector, the servers dialling each other, and tests use it.

use super::{pem, provider, TlsError};
use rustls::pki_types::ServerName;
use std::io;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// What a client trusts and presents; equal when it is the same loaded configuration.
#[derive(Clone)]
pub struct ClientTls {
    config: Arc<rustls::ClientConfig>,
}

impl PartialEq for ClientTls {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.config, &other.config)
    }
}

impl Eq for ClientTls {}

impl std::fmt::Debug for ClientTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClientTls")
    }
}

impl ClientTls {
    /// Trusts the CA certificates of `ca_file`; presents `cert_file` with `key_file` when
    /// given (a server verifying client certificates takes its name as the user).
    pub fn load(ca_file: &Path, cert: Option<(&Path, &Path)>) -> Result<Self, TlsError> {
        let roots = pem::roots(ca_file)?;
        let builder = rustls::ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| TlsError(format!("TLS: {e}")))?
            .with_root_certificates(roots);
        let config = match cert {
            None => builder.with_no_client_auth(),
            Some((cert_file, key_file)) => {
                let certs = pem::certs(cert_file)?;
                let key = pem::key(key_file)?;
                builder.with_client_auth_cert(certs, key).map_err(|e| {
                    TlsError(format!(
                        "{} with {}: not a usable client certificate and key: {e}",
                        cert_file.display(),
                        key_file.display()
                    ))
                })?
            }
        };
        Ok(Self {
            config: Arc::new(config),
        })
    }

    /// The same, offering HTTP/2 by ALPN (`h2`): servers that choose the protocol by ALPN
    /// (Go's, such as etcd's) speak HTTP/1.1 to a client that offers none.
    pub fn offering_h2(&self) -> Self {
        let mut config = (*self.config).clone();
        config.alpn_protocols = vec![b"h2".to_vec()];
        Self {
            config: Arc::new(config),
        }
    }

    /// The TLS session over `tcp` to `host` (a name or an IP address, which the server's
    /// certificate must carry).
    pub async fn connect(&self, host: &str, tcp: TcpStream) -> io::Result<ClientStream> {
        let name = ServerName::try_from(host.to_string()).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("'{host}' is not a name a TLS certificate can carry: {e}"),
            )
        })?;
        let connector = tokio_rustls::TlsConnector::from(self.config.clone());
        let tls = connector
            .connect(name, tcp)
            .await
            .map_err(|e| io::Error::new(e.kind(), format!("TLS with {host} failed: {e}")))?;
        Ok(ClientStream::Tls(Box::new(tls)))
    }
}

/// A blocking TLS session (the native RPC test client's).
pub type BlockingTls = rustls::StreamOwned<rustls::ClientConnection, std::net::TcpStream>;

impl ClientTls {
    /// As [`ClientTls::connect`], for a blocking socket: the handshake runs on the first
    /// read or write.
    pub fn connect_blocking(
        &self,
        host: &str,
        tcp: std::net::TcpStream,
    ) -> io::Result<BlockingTls> {
        let name = ServerName::try_from(host.to_string()).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("'{host}' is not a name a TLS certificate can carry: {e}"),
            )
        })?;
        let session = rustls::ClientConnection::new(self.config.clone(), name)
            .map_err(|e| io::Error::other(format!("TLS with {host}: {e}")))?;
        Ok(rustls::StreamOwned::new(session, tcp))
    }
}

/// A dialled connection.
pub enum ClientStream {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

impl ClientStream {
    /// The server's certificate chain (TLS only), its own first.
    pub fn server_certificates(&self) -> Option<Vec<Vec<u8>>> {
        match self {
            ClientStream::Plain(_) => None,
            ClientStream::Tls(tls) => tls
                .get_ref()
                .1
                .peer_certificates()
                .map(|certs| certs.iter().map(|c| c.to_vec()).collect()),
        }
    }
}

impl AsyncRead for ClientStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            ClientStream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            ClientStream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for ClientStream {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, b: &[u8]) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            ClientStream::Plain(s) => Pin::new(s).poll_write(cx, b),
            ClientStream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, b),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            ClientStream::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            ClientStream::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            ClientStream::Plain(s) => s.is_write_vectored(),
            ClientStream::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            ClientStream::Plain(s) => Pin::new(s).poll_flush(cx),
            ClientStream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            ClientStream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            ClientStream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}
