//! The REST API over real HTTP, as an HBase REST client drives it: one gateway per test
//! over a fresh embedded database on a free port.

mod check;
mod errors;
mod held_sockets;
mod malformed;
mod namespaces;
mod rows;
mod scanners;
mod scans;
mod schema;
mod support;
