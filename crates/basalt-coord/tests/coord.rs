//! The coordinator's integration tests.
//!
//! One binary for every test file here (each file is a module): one link instead of
//! one per file, which is most of a cold build's time and disk.

mod common;
mod durable;

mod coordinator_on_etcd;
mod coordinator_on_local;
mod durable_compaction_keeps_state;
mod durable_damage_is_named;
mod durable_decoders_never_panic;
mod durable_matches_memory_model;
mod durable_reopen_keeps_revisions;
mod etcd_compaction_ends_watches;
mod etcd_endpoint_failover;
mod etcd_over_tls;
mod lease_keeper_survives_member_loss;
