//! The storage engine's integration tests.
//!
//! One binary for every test file here (each file is a module): one link instead of
//! one per file, which is most of a cold build's time and disk.

mod hfile_common;
mod model;
mod split_support;
mod support;
mod wal_damage_support;
mod wal_support;

mod bloom_skipping;
mod cell_borrowed;
mod compaction_pacing;
mod engine_background;
mod engine_disk_full;
mod filter_golden;
mod filter_pushdown;
mod flush_disk_full;
mod format_versions;
mod hfile_block_cache;
mod hfile_bloom;
mod hfile_corruption;
mod hfile_encodings;
mod hfile_round_trip;
mod hfile_seek;
mod manifest_copies;
mod matcher_golden;
mod matcher_model;
mod memstore_accounting;
mod memstore_concurrent_inserts;
mod memstore_entries;
mod memstore_limit;
mod memstore_skiplist_model;
mod model_semantics;
mod region_batch;
mod region_bulk_load;
mod region_close_races;
mod region_concurrency;
mod region_failures;
mod region_leftovers_quarantined;
mod region_manifest_fallback;
mod region_operations;
mod scan_read_point;
mod seed_keep_deleted_cells;
mod split_half_reader;
mod split_merge;
mod split_region;
mod split_rules;
mod store_flush_rules;
mod wal_commit;
mod wal_damage_golden;
mod wal_damage_regions;
mod wal_disk_full;
mod wal_disk_full_race;
mod wal_recovery;
mod wal_recycle;
mod wal_recycle_fuzz;
mod wal_seal;
mod wal_segments;
mod wal_skip_corrupt;
mod wal_split;
mod wal_torn_tail;
