//! The native HBase protocol's integration tests.
//!
//! One binary for every test file here (each file is a module): one link instead of
//! one per file, which is most of a cold build's time and disk.

mod support;

mod admin_service;
mod cell_block_answers;
mod held_sockets;
mod malformed;
mod native_calls;
mod native_snapshots;
mod pipelined_calls;
mod retried_increments;
mod scan_answers;
mod scan_protocol;
mod scan_read_point;
mod simple_refused;
