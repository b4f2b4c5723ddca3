//! End-to-end tests: a real server on a free port, driven through `basalt-client` (and, for
//! malformed traffic, through raw sockets and hand-made gRPC calls).
//!
//! One test binary with one module per area keeps the link count (and cold CI time) low.

mod calling_threads;
mod common;
mod held_sockets;
mod in_process;
mod limits;
mod locations;
mod malformed;
mod nonces;
mod retries;
mod same_results;
mod scanners;
