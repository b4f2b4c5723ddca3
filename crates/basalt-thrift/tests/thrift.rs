//! The Thrift gateway's integration tests.
//!
//! One binary for every test file here (each file is a module): one link instead of
//! one per file, which is most of a cold build's time and disk.

mod support;

mod held_sockets;
mod held_sockets_http_thrift2;
mod http_and_thrift2;
mod malformed;
mod methods;
