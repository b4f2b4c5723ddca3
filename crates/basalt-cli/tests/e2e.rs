//! The `basalt` binary end to end: real processes, real sockets, real clients.
//!
//! One binary for every test file here (each file is a module): one link instead of
//! one per file, which is most of a cold build's time and disk.

mod support;

mod bind_everywhere;
mod block_encodings_e2e;
mod chaos;
mod cluster_assign;
mod cluster_connect_failover;
mod cluster_ddl_procedures;
mod cluster_decommission;
mod cluster_failover;
mod cluster_gateways;
mod cluster_hbase_driver;
mod cluster_heat_browser;
mod cluster_log_seal;
mod cluster_log_split;
mod cluster_master_takeover;
mod cluster_merge_races;
mod cluster_mode;
mod cluster_native_standby;
mod cluster_on_s3;
mod cluster_operations;
mod cluster_partition;
mod cluster_procedures;
mod cluster_rit_crashed;
mod cluster_scan_read_point;
mod cluster_snapshots_on_s3;
mod cluster_unreachable_open;
mod cluster_web;
mod disk_full_tmpfs;
mod export_import;
mod failed_regions_status;
mod happybase;
mod hbase_driver;
mod hbase_rpc_node;
mod hbck_failed_region;
mod hbck_rebuild_meta;
mod idle_load;
mod importtsv_e2e;
mod itbll;
mod keydist_e2e;
mod load_split_standalone;
mod local_connection;
mod migrate_e2e;
mod native_port_junk;
mod one_process_cluster;
mod one_process_native;
mod outcome_unknown_wire;
mod pe_e2e;
mod rest_gateway;
mod shell_e2e;
mod shell_tty;
mod skip_corrupt_wal;
mod slowlog_e2e;
mod snapshot_e2e;
mod snapshot_export_import;
mod standalone;
mod standalone_assignment;
mod standalone_folder_format;
mod standalone_grants;
mod thrift_gateways;
mod web_browser;
mod web_heat_browser;
