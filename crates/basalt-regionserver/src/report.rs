//! What a region server tells the master: its regions with their sizes and request
//! counts, and the totals (HBase's `ServerLoad`); and, for its own web UI, its request
//! metrics by kind with their latency histograms, block cache, queues and log syncs, and each
//! region's load for hot-spot views (scanned cells and bytes, the sample of rows written).

use crate::rate::RequestRate;
use basalt_api::{RegionReport, RegionState};
use basalt_db::Database;
use basalt_proto::pb;
use std::time::Instant;

/// The regions open (or FAILED_OPEN) here and the server's totals; `rate` keeps the
/// requests-per-second window.
pub fn report(db: &Database, rate: &RequestRate) -> pb::ServerReport {
    let mut loads = Vec::new();
    let mut holding_recovered_edits = Vec::new();
    let regions: Vec<RegionReport> = db
        .hosted()
        .into_iter()
        .map(|hosted| {
            let metrics = hosted
                .region
                .as_ref()
                .map(|r| r.metrics())
                .unwrap_or_default();
            if let Some(region) = &hosted.region {
                loads.push(load(&hosted.record.encoded_name, region.load()));
                if region.holds_recovered_edits() {
                    holding_recovered_edits.push(hosted.record.encoded_name.clone());
                }
            }
            RegionReport {
                table: hosted.record.table.clone(),
                region_name: hosted.record.region_name(),
                encoded_name: hosted.record.encoded_name.clone(),
                start_key: hosted.record.start_key.clone(),
                end_key: hosted.record.end_key.clone(),
                server: db.server_name().to_string(),
                store_files: metrics.store_files,
                store_file_bytes: metrics.store_file_bytes,
                memstore_bytes: metrics.memstore_bytes,
                read_requests: metrics.read_requests,
                write_requests: metrics.write_requests,
                state: match hosted.failure {
                    Some(_) => RegionState::FailedOpen,
                    None => RegionState::Open,
                },
                failure: hosted.failure,
            }
        })
        .collect();
    let status = pb::ServerStatus {
        name: db.server_name().to_string(),
        // Online regions: a FAILED_OPEN one is reported, but not counted among them.
        regions: regions.iter().filter(|r| r.failure.is_none()).count() as u64,
        read_requests: regions.iter().map(|r| r.read_requests).sum(),
        write_requests: regions.iter().map(|r| r.write_requests).sum(),
        memstore_bytes: regions.iter().map(|r| r.memstore_bytes).sum(),
        store_file_bytes: regions.iter().map(|r| r.store_file_bytes).sum(),
        requests_per_second: rate.observe(requests_total(db), Instant::now()),
        ..pb::ServerStatus::default()
    };
    pb::ServerReport {
        status: Some(status),
        regions: regions.iter().map(Into::into).collect(),
        metrics: Some(metrics(db)),
        loads,
        holding_recovered_edits,
    }
}

/// A region's load beyond its request counters, as the report carries it.
fn load(encoded_name: &str, load: basalt_storage::region::load::LoadReport) -> pb::RegionLoad {
    pb::RegionLoad {
        encoded_name: encoded_name.to_string(),
        scanned_cells: load.scanned_cells,
        scanned_bytes: load.scanned_bytes,
        sampled_writes: load.sampled_writes,
        ascending_writes: load.ascending_writes,
        hot_rows: load
            .hot_rows
            .into_iter()
            .map(|(row, count)| pb::HotRow { row, count })
            .collect(),
        load_median: load.load_median.unwrap_or_default(),
    }
}

/// Every request this server has answered, of every kind.
fn requests_total(db: &Database) -> u64 {
    db.metrics()
        .snapshots()
        .iter()
        .map(|op| op.latency.count)
        .sum()
}

/// The request metrics and engine gauges the web UI shows.
fn metrics(db: &Database) -> pb::ServerMetrics {
    let ctx = db.engine().context();
    let cache = ctx.cache.stats();
    let jobs = ctx.jobs.stats();
    let ops = db
        .metrics()
        .snapshots()
        .into_iter()
        .map(|op| pb::OpMetrics {
            op: op.op.name().to_string(),
            bucket_counts: op.latency.counts,
            count: op.latency.count,
            sum_us: op.latency.sum_us,
            min_us: op.latency.min_us,
            max_us: op.latency.max_us,
            errors: op.errors,
        })
        .collect();
    pb::ServerMetrics {
        ops,
        cache_hits: cache.hits,
        cache_misses: cache.misses,
        cache_evictions: cache.evictions,
        cache_size_bytes: cache.size_bytes,
        cache_capacity_bytes: cache.capacity_bytes,
        cache_entries: cache.entries,
        flush_queue_length: jobs.flush_queue_length as u64,
        compaction_queue_length: jobs.compaction_queue_length as u64,
        flushes_running: jobs.flushes_running,
        compactions_running: jobs.compactions_running,
        write_stalls: jobs.write_stalls,
        write_stall_us: jobs.write_stall_us,
        compaction_paced_us: jobs.compaction_paced_us,
        wal_syncs: ctx.wal.sync_count(),
        memstore_limit_bytes: ctx.config.global_memstore_limit_bytes,
        // The start code of the name `host,port,startcode` is the start time.
        started_ms: db
            .server_name()
            .rsplit(',')
            .next()
            .and_then(|code| code.parse().ok())
            .unwrap_or(0),
        version: env!("CARGO_PKG_VERSION").to_string(),
    }
}
