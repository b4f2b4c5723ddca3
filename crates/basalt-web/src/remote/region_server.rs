//! A region server's web UI reads its own `RegionServerService.GetServerReport`: the
//! regions it serves with their sizes and requests, and its metrics (requests by kind with
//! latency histograms, block cache, flush and compaction queues, log syncs), turned into
//! the [`Snapshot`] the standalone pages already render.

use super::{address, channel, failed, wait};
use crate::heat::ring::RegionReading;
use crate::snapshot::{Snapshot, TableSummary};
use crate::WebError;
use basalt_api::{ClusterHealth, FailedRegion, RegionReport, RegionState};
use basalt_db::metrics::histogram::HistogramSnapshot;
use basalt_db::metrics::{Op, OpSnapshot};
use basalt_proto::pb;
use basalt_proto::pb::region_server_service_client::RegionServerServiceClient;
use basalt_storage::block_cache::BlockCacheStats;
use basalt_storage::engine::jobs::JobStats;
use basalt_storage::region::load::LoadReport;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};
use tokio::runtime::Handle;

/// Reports are as large as the regions a server holds.
const REPORT_MAX_BYTES: usize = 64 << 20;

/// A region server, read over RPC at the address it will publish.
pub struct RegionServerSource {
    runtime: Handle,
    addr: Arc<OnceLock<String>>,
}

impl RegionServerSource {
    pub fn new(runtime: Handle, addr: Arc<OnceLock<String>>) -> Self {
        Self { runtime, addr }
    }

    pub fn snapshot(&self) -> Result<Snapshot, WebError> {
        Ok(from_report(self.report()?))
    }

    /// The server's report as it sends it.
    pub fn report(&self) -> Result<pb::ServerReport, WebError> {
        let address = address(&self.addr)?;
        wait(&self.runtime, &address, fetch(&address))
    }
}

/// The report of the region server at `address` (`host:port`).
pub(crate) async fn fetch(address: &str) -> Result<pb::ServerReport, WebError> {
    let mut client = RegionServerServiceClient::new(channel(address).await?)
        .max_decoding_message_size(REPORT_MAX_BYTES);
    let report = client.get_server_report(pb::Empty {}).await;
    report.map(|r| r.into_inner()).map_err(failed)
}

/// The heat sampler's readings from a server's report: each region's counters with its
/// load (a region the report gives no load for has none). Regions it cannot decode, or
/// FAILED_OPEN, are left out.
pub fn readings(report: pb::ServerReport) -> Vec<RegionReading> {
    let mut loads: std::collections::HashMap<String, pb::RegionLoad> = report
        .loads
        .into_iter()
        .map(|l| (l.encoded_name.clone(), l))
        .collect();
    report
        .regions
        .into_iter()
        .filter_map(|r| RegionReport::try_from(r).ok())
        .filter(|r| r.state == RegionState::Open)
        .map(|r| {
            let load = loads.remove(&r.encoded_name).unwrap_or_default();
            RegionReading {
                load: LoadReport {
                    scanned_cells: load.scanned_cells,
                    scanned_bytes: load.scanned_bytes,
                    sampled_writes: load.sampled_writes,
                    ascending_writes: load.ascending_writes,
                    hot_rows: load
                        .hot_rows
                        .into_iter()
                        .map(|h| (h.row, h.count))
                        .collect(),
                    load_median: Some(load.load_median).filter(|m| !m.is_empty()),
                },
                table: r.table,
                encoded_name: r.encoded_name,
                start_key: r.start_key,
                end_key: r.end_key,
                reads: r.read_requests,
                writes: r.write_requests,
                store_files: r.store_files,
                size_bytes: r.store_file_bytes + r.memstore_bytes,
                server: r.server,
            }
        })
        .collect()
}

/// The pages' view of a server's report. Regions it cannot decode are left out.
pub fn from_report(report: pb::ServerReport) -> Snapshot {
    let regions: Vec<RegionReport> = report
        .regions
        .into_iter()
        .filter_map(|r| RegionReport::try_from(r).ok())
        .collect();
    let m = report.metrics.unwrap_or_default();
    let failed_regions = regions
        .iter()
        .filter(|r| r.state == RegionState::FailedOpen)
        .map(|r| FailedRegion {
            table: r.table.clone(),
            region_name: r.region_name.clone(),
            encoded_name: r.encoded_name.clone(),
            file: None,
            cause: r.failure.clone().unwrap_or_default(),
        })
        .collect();
    Snapshot {
        ops: m.ops.iter().filter_map(op_snapshot).collect(),
        tables: tables(&regions),
        regions,
        cache: BlockCacheStats {
            hits: m.cache_hits,
            misses: m.cache_misses,
            evictions: m.cache_evictions,
            size_bytes: m.cache_size_bytes,
            capacity_bytes: m.cache_capacity_bytes,
            entries: m.cache_entries,
        },
        jobs: JobStats {
            flush_queue_length: usize::try_from(m.flush_queue_length).unwrap_or(usize::MAX),
            compaction_queue_length: usize::try_from(m.compaction_queue_length)
                .unwrap_or(usize::MAX),
            flushes_running: m.flushes_running,
            compactions_running: m.compactions_running,
            write_stalls: m.write_stalls,
            write_stall_us: m.write_stall_us,
            compaction_paced_us: m.compaction_paced_us,
        },
        wal_syncs: m.wal_syncs,
        memstore_limit_bytes: m.memstore_limit_bytes,
        health: ClusterHealth {
            failed_regions,
            ..ClusterHealth::default()
        },
        server: report.status.map(|s| s.name),
    }
}

/// One kind of request, when this build knows the kind.
fn op_snapshot(m: &pb::OpMetrics) -> Option<OpSnapshot> {
    let op = Op::ALL.into_iter().find(|op| op.name() == m.op)?;
    Some(OpSnapshot {
        op,
        latency: HistogramSnapshot {
            counts: m.bucket_counts.clone(),
            count: m.count,
            sum_us: m.sum_us,
            min_us: m.min_us,
            max_us: m.max_us,
        },
        errors: m.errors,
    })
}

/// The server's regions summed per table (every table it serves is enabled).
fn tables(regions: &[RegionReport]) -> Vec<TableSummary> {
    let mut by_table: BTreeMap<String, Vec<RegionReport>> = BTreeMap::new();
    for r in regions {
        by_table
            .entry(r.table.to_string())
            .or_default()
            .push(r.clone());
    }
    by_table
        .into_values()
        .filter_map(|reports| {
            let name = reports.first()?.table.clone();
            Some(TableSummary::of(name, true, &reports))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_becomes_the_pages_snapshot() {
        let region = |table: &str, encoded: &str, state: i32| pb::RegionReport {
            table: Some(pb::TableName {
                namespace: "default".into(),
                qualifier: table.into(),
            }),
            region_name: format!("{table},,1.{encoded}."),
            encoded_name: encoded.into(),
            server: "h,1,2".into(),
            store_files: 2,
            memstore_bytes: 10,
            state,
            failure: if state == 0 {
                String::new()
            } else {
                "bad file".into()
            },
            ..pb::RegionReport::default()
        };
        let report = pb::ServerReport {
            status: Some(pb::ServerStatus {
                name: "h,1,2".into(),
                ..pb::ServerStatus::default()
            }),
            regions: vec![
                region("t", "a", 0),
                region("t", "b", 0),
                region("u", "c", 2),
            ],
            metrics: Some(pb::ServerMetrics {
                ops: vec![
                    pb::OpMetrics {
                        op: "get".into(),
                        count: 3,
                        errors: 1,
                        ..pb::OpMetrics::default()
                    },
                    pb::OpMetrics {
                        op: "teleport".into(),
                        ..pb::OpMetrics::default()
                    },
                ],
                cache_hits: 7,
                wal_syncs: 4,
                ..pb::ServerMetrics::default()
            }),
            loads: Vec::new(),
            holding_recovered_edits: Vec::new(),
        };
        let s = from_report(report);
        assert_eq!(s.server.as_deref(), Some("h,1,2"));
        assert_eq!(s.region_count(), 3);
        assert_eq!(s.tables.len(), 2);
        assert_eq!((s.tables[0].regions, s.tables[0].store_files), (2, 4));
        assert_eq!(s.ops.len(), 1, "an unknown kind is left out");
        assert_eq!((s.ops[0].op, s.total_requests()), (Op::Get, 3));
        assert_eq!((s.cache.hits, s.wal_syncs), (7, 4));
        assert_eq!(s.failed_region_count(), 1);
        assert_eq!(s.health.failed_regions[0].cause, "bad file");
    }
}
