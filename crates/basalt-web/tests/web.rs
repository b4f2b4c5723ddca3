//! The web UI's integration tests.
//!
//! One binary for every test file here (each file is a module): one link instead of
//! one per file, which is most of a cold build's time and disk.

mod support;

mod web_held_sockets;
mod web_malformed;
mod web_metrics;
mod web_pages;
