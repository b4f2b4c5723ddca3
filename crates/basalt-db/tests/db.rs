//! The database's integration tests.
//!
//! One binary for every test file here (each file is a module): one link instead of
//! one per file, which is most of a cold build's time and disk.

mod basics;
mod faults;
mod support;

mod buffered_mutator;
mod bulk_load;
mod bulk_load_parallel;
mod catalog_fallback_files;
mod catalog_format_version;
mod ddl;
mod disk_full;
mod failed_open_manifest;
mod failed_open_meta;
mod failed_open_region;
mod family_readd;
mod fault_injection;
mod format_fixture;
mod host_recovered_edits;
mod host_recovery;
mod lease_gate;
mod load_split_hot_range;
mod merge_under_load;
mod metrics_requests;
mod nonces_across_moves;
mod presplit_routing;
mod restart;
mod scan_bounds;
mod snapshot_kill9;
mod snapshot_pitr_splits;
mod snapshot_point_in_time;
mod snapshots;
mod split_under_load;
mod unnamed_folders_quarantined;
