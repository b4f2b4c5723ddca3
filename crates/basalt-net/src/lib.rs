//! Listeners that keep serving real clients while idle and trickling sockets are held
//! open: the accept loop, connection accounting, header timeout and caps that Basalt's
//! gRPC server, Thrift and REST gateways and web UI share; TLS on any of them.
//!
//! Every connection is accepted at once and admitted under two caps, on all connections
//! and on one client address's. A connection that has not proven itself — no byte yet, or
//! a request begun and not complete — gives its slot to a new connection when a cap is
//! reached, and is closed anyway once a begun request is `header_timeout` old; one that
//! completed a request is never closed for being idle between requests (HTTP listeners
//! may close the longest idle one when nothing unproven is left). [`book`] has the rules
//! and a worked example.
//!
//! Protocol code reports progress: a [`Conn`] sees bytes arrive; the protocol says when a
//! request is complete and answered ([`Peer::begin_request`], [`Peer::end_request`]; the
//! [`http`] adapter does it for axum). What it is not: a server — it knows no protocol, and
//! the per-call limits (message sizes, calls at once) stay with each server.
//!
//! It is its own crate, with tokio only (axum behind a feature), because its four users
//! share no other crate that could hold it without pulling in a server they do not need.
//!
//! # Layout
//! - [`limits`]: [`Limits`], the settings every listener's configuration section carries.
//! - [`book`]: the pure core: phases, admission, shedding, expiry.
//! - [`registry`]: the book's shell: slots, waking the shed, warnings.
//! - [`listener`]: [`Listener`], binding, accepting, the header-timeout sweeper.
//! - [`conn`]: [`Conn`], an admitted connection's stream; [`Peer`], its handle.
//! - [`tls`]: TLS on a listener ([`Listener::with_tls`]): the lazy handshake in the
//!   connection's task, certificates reloaded without a restart, client certificates'
//!   names; [`tls::ClientTls`] for clients.
//! - [`http`] (feature `axum`): [`http::serve`], axum over a [`Listener`].
//! - [`siege`] (feature `testing`): idle and trickling sockets for tests.
//! - [`certs`] (feature `testing`): a CA and certificates for tests (`openssl`).

pub mod book;
#[cfg(feature = "testing")]
pub mod certs;
pub mod conn;
#[cfg(feature = "axum")]
pub mod http;
pub mod limits;
pub mod listener;
pub mod registry;
#[cfg(feature = "testing")]
pub mod siege;
pub mod tls;

pub use book::{Phase, Reason};
pub use conn::{Busy, Conn, Peer};
pub use limits::Limits;
pub use listener::{Connections, Listener};
pub use tls::{Plaintext, ServerTls, Stream, TlsFiles, TlsSlot};
