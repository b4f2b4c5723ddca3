//! The store's integration tests.
//!
//! One binary for every test file here (each file is a module): one link instead of
//! one per file, which is most of a cold build's time and disk.

mod common;

mod engine_on_store;
mod log_chunks;
mod log_damage_on_store;
mod log_seal;
mod plain_files;
mod read_cache;
mod shared_files;
mod store_encryption;
mod store_probe;
