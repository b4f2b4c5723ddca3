//! Basalt's gRPC protocol: the service definitions and the conversions between their
//! messages and `basalt-types`.
//!
//! The `.proto` files under `proto/basalt/v1/` are compiled at build time with `protox`
//! (pure Rust, no system `protoc`) and `tonic-prost-build`. The services clients call:
//!
//! - `TableService`: get, multi-get, mutate (put/delete/increment/append, with nonces),
//!   mutate-many, check-and-mutate, row mutations, batch, and server-side scanners
//!   (open / next / close).
//! - `AdminService`: one RPC per method of [`basalt_api::Admin`].
//! - `UserService` (`users.proto`): users and tokens through a running master
//!   (`basalt user … --connect`), and the first superuser made with the bootstrap token.
//!
//! and the cluster's own (`cluster.proto`): `MasterService`, `RegionServerService`.
//!
//! Encoding (`From<&T> for pb::X`) cannot fail; decoding (`TryFrom<pb::X> for T`) checks
//! every field and fails with a [`ConvertError`], never a panic: the server decodes
//! whatever a client sends.
//!
//! # Layout
//! - [`pb`]: the generated messages, clients and servers; [`grpc_methods`]: every RPC's
//!   path, from the descriptors.
//! - [`cellblock`]: many cells in one byte string, HBase's `KeyValueCodec` layout (how row
//!   results carry their cells).
//! - [`convert`]: messages to and from `basalt-types` (cells and reads, mutations,
//!   batches, schema).
//! - [`status`]: [`basalt_api::ApiError`] to and from a gRPC status (kind, HBase exception
//!   name and message travel in the status details).
//! - [`coalesce`]: the byte stream both ends run HTTP/2 over, one system call per burst
//!   of frames.
//! - [`in_process`]: connections between the parts of one process over in-memory pipes
//!   (a master and its region server in standalone).

pub mod cellblock;
pub mod coalesce;
pub mod convert;
pub mod in_process;
pub mod status;

pub use convert::ConvertError;

/// The path of every RPC of every service (`/basalt.v1.TableService/Get`), read from the
/// compiled descriptors: what an enumeration test walks, so no method can be missed.
pub fn grpc_methods() -> Vec<&'static str> {
    include_str!(concat!(env!("OUT_DIR"), "/grpc_methods.txt"))
        .lines()
        .filter(|l| !l.is_empty())
        .collect()
}

/// The generated protobuf messages and tonic services.
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod pb {
    tonic::include_proto!("basalt.v1");
}
