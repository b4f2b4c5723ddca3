//! HBase's Thrift gateways over any [`basalt_api::Connection`]: Thrift1 (service `Hbase`;
//! Python's happybase, and any other Thrift1 client, work unchanged) and Thrift2 (service
//! `THBaseService`; easybase and other Thrift2 clients), chosen by [`ThriftConfig::thrift2`].
//!
//! The gateway speaks Thrift with a hand-written codec (no Thrift compiler, no `thrift`
//! crate): the binary or compact protocol over the buffered or framed transport, chosen by
//! [`ThriftConfig`] as HBase's `-c` and `-f` do. Every call decodes into a generic
//! [`protocol::Value`] tree under [`protocol::Limits`] (message size, string and container
//! lengths, value count, nesting), checked before anything is allocated; the `Hbase`
//! methods then read their arguments from the tree and call Basalt's blocking client API
//! with HBase's server-side semantics (`ThriftHBaseServiceHandler`).
//!
//! Connections are tasks on one I/O thread, not threads: an idle one costs a few kilobytes,
//! so thousands can stay open, and none is ever dropped for being idle between calls
//! (HBase's Thrift server does that, and it is happybase users' most common complaint).
//! Calls run on a bounded pool of worker threads.
//!
//! With [`ThriftConfig::http`] the same calls travel as HTTP POSTs (HBase's
//! `hbase.regionserver.thrift.http`), on `basalt_net`'s HTTP listener. Both services share
//! the codec, the listener, the workers and the scanner registry.
//!
//! With authentication required ([`start_with_auth`]) every socket connection negotiates
//! SASL PLAIN first (Thrift's `TSaslClientTransport`) and its calls run as its user, so
//! HBase's ACLs apply; scanners answer only the connection that opened them.
//!
//! ```no_run
//! # fn run(conn: std::sync::Arc<dyn basalt_api::Connection>) -> Result<(), basalt_thrift::ThriftError> {
//! let server = basalt_thrift::start(conn, basalt_thrift::ThriftConfig::default())?;
//! println!("thrift on {}", server.local_addr());
//! server.shutdown();
//! # Ok(()) }
//! ```
//!
//! # Layout
//! - [`protocol`]: the binary and compact protocols, [`protocol::Value`] and the limits.
//! - [`transport`]: buffered and framed message delimiting, without a thread waiting.
//! - [`service`]: the `Hbase` methods, one module per group, and the Thrift structs.
//! - [`thrift2`]: the `THBaseService` methods and the Thrift2 structs.
//! - [`scanners`]: open scanners with random ids, leases and a bound.
//! - [`connection`]: one client's connection as a task: gather, answer, reply.
//! - [`sasl`]: Thrift's SASL negotiation frames, a pure codec.
//! - [`gate`]: SASL PLAIN before any call; the refusal of clients that do not negotiate.
//! - [`call`]: one call on a worker thread, and `TApplicationException`s.
//! - [`http`]: Thrift over HTTP, each call a POST.
//! - [`server`]: the runtime, the listener (`basalt_net`'s), shutdown.
//! - [`config`]: the settings, [`ThriftConfig`].
//! - [`error`]: the error type, [`ThriftError`].

pub mod call;
pub mod config;
pub mod connection;
pub mod error;
pub mod gate;
pub mod http;
pub mod protocol;
pub mod sasl;
pub mod scanners;
pub mod server;
pub mod service;
pub mod thrift2;
pub mod transport;

pub use config::{Flavor, ThriftConfig};
pub use error::ThriftError;
pub use server::{start, start_with_auth, ThriftServer};
