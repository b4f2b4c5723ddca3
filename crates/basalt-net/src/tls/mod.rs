//! TLS on the listeners, and for the clients that dial them (rustls, with the aws-lc-rs
//! provider the object store's HTTP client already builds).
//!
//! A server's [`ServerTls`] is made once per process from `[security]`'s PEM files: its
//! certificate chain and key, and optionally a CA its clients' certificates are checked
//! against. Every listener given it serves TLS only ([`crate::Listener::with_tls`]): the
//! handshake runs in the connection's own task, on the first read or write of the
//! [`Stream`], so a client trickling its hello holds no accept loop and is shed by the
//! listener's header timeout like any request begun and not finished. A client that speaks
//! plaintext to a TLS port is refused with a line saying so (or served in clear where the
//! listener allows it, as HBase's `hbase.server.netty.tls.supportplaintext`).
//!
//! The certificate and key are reloaded without a restart ([`reload`]): a handshake at most
//! once a second looks whether the files changed, and a new pair that loads replaces the
//! old one; one that does not keeps the old and logs a warning naming the file.
//!
//! With a client CA, clients are asked for a certificate (not required: REST's password
//! clients have none); a verified one names the client ([`identity`]).
//!
//! # Layout
//! - [`pem`]: reading certificates and keys from PEM files, errors naming the file.
//! - [`reload`]: the certificate resolver that notices changed files; its pure rule.
//! - [`identity`]: who a verified client certificate names.
//! - [`stream`]: [`Stream`], an accepted connection: plain, or TLS after a lazy handshake.
//! - [`client`]: [`ClientTls`] and [`ClientStream`], for clients dialling a TLS port.

pub mod client;
pub mod identity;
pub mod pem;
pub mod reload;
pub mod stream;

pub use client::{ClientStream, ClientTls};
pub use stream::{Plaintext, Stream};

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// The PEM files of a server's TLS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate chain, the server's own first.
    pub cert_file: PathBuf,
    /// Its private key (PKCS#8, PKCS#1 or SEC1).
    pub key_file: PathBuf,
    /// CA certificates client certificates are verified against; without it none is asked.
    pub client_ca_file: Option<PathBuf>,
}

/// Why TLS could not be set up: a sentence naming the file and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsError(pub String);

impl fmt::Display for TlsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TlsError {}

/// The crypto provider every TLS configuration here uses.
pub(crate) fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// A server's TLS, shared by all the listeners of a process.
pub struct ServerTls {
    acceptor: tokio_rustls::TlsAcceptor,
    resolver: Arc<reload::Reloading>,
    verifies_clients: bool,
}

impl fmt::Debug for ServerTls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerTls")
            .field("cert_file", &self.resolver.cert_file())
            .field("verifies_clients", &self.verifies_clients)
            .finish()
    }
}

impl ServerTls {
    /// Loads the files (each error names its file).
    pub fn load(files: &TlsFiles) -> Result<Arc<Self>, TlsError> {
        let resolver = Arc::new(reload::Reloading::load(
            files.cert_file.clone(),
            files.key_file.clone(),
        )?);
        let builder = rustls::ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| TlsError(format!("TLS: {e}")))?;
        let builder = match &files.client_ca_file {
            None => builder.with_no_client_auth(),
            Some(ca) => {
                let roots = pem::roots(ca)?;
                let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                    Arc::new(roots),
                    provider(),
                )
                .allow_unauthenticated()
                .build()
                .map_err(|e| TlsError(format!("{}: {e}", ca.display())))?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let mut config = builder.with_cert_resolver(resolver.clone());
        // No resumption: every connection gets a full handshake, so a reloaded certificate
        // (or a client CA's verdict) applies to each new connection. Clients here keep
        // their connections, so the cost is once per connection.
        config.session_storage = Arc::new(rustls::server::NoServerSessionStorage {});
        config.send_tls13_tickets = 0;
        Ok(Arc::new(Self {
            acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(config)),
            resolver,
            verifies_clients: files.client_ca_file.is_some(),
        }))
    }

    pub(crate) fn acceptor(&self) -> &tokio_rustls::TlsAcceptor {
        &self.acceptor
    }

    /// Whether client certificates are asked for and verified (a client CA is set).
    pub fn verifies_clients(&self) -> bool {
        self.verifies_clients
    }

    /// Looks at the files now (as a handshake would, at most once a second), reloading them
    /// if they changed; whether a new pair is now served.
    pub fn reload_now(&self) -> bool {
        self.resolver.check(std::time::Instant::now())
    }
}

/// A server's TLS as a configuration carries it (not from the file: set by the process
/// from `[security]`); equal when it is the same [`ServerTls`].
#[derive(Clone, Default)]
pub struct TlsSlot(pub Option<Arc<ServerTls>>);

impl TlsSlot {
    pub fn get(&self) -> Option<Arc<ServerTls>> {
        self.0.clone()
    }

    pub fn is_on(&self) -> bool {
        self.0.is_some()
    }
}

impl PartialEq for TlsSlot {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for TlsSlot {}

impl fmt::Debug for TlsSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            None => f.write_str("plain"),
            Some(tls) => tls.fmt(f),
        }
    }
}
