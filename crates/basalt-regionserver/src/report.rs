//! What a region server tells the master: its regions with their sizes and request
//! counts, and the totals (HBase's `ServerLoad`).

use basalt_api::{RegionReport, RegionState};
use basalt_db::Database;
use basalt_proto::pb;

/// The regions open (or FAILED_OPEN) here and the server's totals.
pub fn report(db: &Database) -> pb::ServerReport {
    let regions: Vec<RegionReport> = db
        .hosted()
        .into_iter()
        .map(|hosted| {
            let metrics = hosted
                .region
                .as_ref()
                .map(|r| r.metrics())
                .unwrap_or_default();
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
        regions: regions.len() as u64,
        read_requests: regions.iter().map(|r| r.read_requests).sum(),
        write_requests: regions.iter().map(|r| r.write_requests).sum(),
        memstore_bytes: regions.iter().map(|r| r.memstore_bytes).sum(),
        store_file_bytes: regions.iter().map(|r| r.store_file_bytes).sum(),
        ..pb::ServerStatus::default()
    };
    pb::ServerReport {
        status: Some(status),
        regions: regions.iter().map(Into::into).collect(),
    }
}
