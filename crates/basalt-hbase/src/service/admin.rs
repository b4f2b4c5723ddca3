//! `AdminService`, a region server's admin calls: a region's info (with its compaction
//! state when asked), the regions online here and their loads, this server's name, and
//! flushing or compacting one region. Every other method HBase has answers
//! `DoNotRetryIOException` naming it (`GetStoreFile`, `CompactionSwitch`,
//! `UpdateConfiguration`, `RollWALWriter`, ...).
//!
//! A region's compaction state is `NONE`: a compaction a client asks for
//! (`CompactRegion`, or the master's `MajorCompact`) has finished when the call answers,
//! so HBase's `Admin.getCompactionState` polling after one sees it done; a compaction the
//! storage engine runs on its own is not reported.

use super::client::{resolve, Target};
use super::{answer, decode, unknown_or_unsupported, Answer, Service, ServiceKind};
use crate::meta::region_info;
use crate::pb;
use crate::RpcError;
use basalt_api::RegionState;
use bytes::Bytes;
use std::time::{SystemTime, UNIX_EPOCH};

const METHODS: &[&str] = &[
    "GetRegionInfo",
    "GetStoreFile",
    "GetOnlineRegion",
    "OpenRegion",
    "WarmupRegion",
    "CloseRegion",
    "FlushRegion",
    "CompactionSwitch",
    "CompactRegion",
    "ReplicateWALEntry",
    "Replay",
    "RollWALWriter",
    "GetServerInfo",
    "StopServer",
    "UpdateFavoredNodes",
    "UpdateConfiguration",
    "GetRegionLoad",
    "ClearCompactionQueues",
    "ClearRegionBlockCache",
    "ExecuteProcedures",
    "GetSpaceQuotaSnapshots",
    "GetSlowLogResponses",
    "GetLargeLogResponses",
    "ClearSlowLogsResponses",
    "GetLogEntries",
];

pub fn call(service: &Service, method: &str, param: &Bytes) -> Answer {
    match method {
        "GetRegionInfo" => {
            let request: pb::GetRegionInfoRequest = decode(param, "GetRegionInfoRequest")?;
            let info = match resolve(service, &request.region)? {
                Target::Meta => super::registry::meta_region_info(),
                Target::Region { region, .. } => region_info(&region),
            };
            answer(pb::GetRegionInfoResponse {
                region_info: info,
                compaction_state: request
                    .compaction_state
                    .unwrap_or(false)
                    .then_some(pb::get_region_info_response::CompactionState::None as i32),
                splittable: Some(true),
                mergeable: Some(true),
            })
        }
        "GetRegionLoad" => {
            let request: pb::GetRegionLoadRequest = decode(param, "GetRegionLoadRequest")?;
            answer(pb::GetRegionLoadResponse {
                region_loads: region_loads(service, request.table_name.as_ref())?,
            })
        }
        "GetOnlineRegion" => {
            let admin = service.conn.admin();
            let mut regions = Vec::new();
            if service.roles.meta {
                regions.push(super::registry::meta_region_info());
            }
            let tables = match service.roles.regions {
                true => admin.list_tables(None)?,
                false => Vec::new(),
            };
            for table in tables {
                regions.extend(
                    admin
                        .list_regions(&table)?
                        .iter()
                        .filter(|r| r.state == RegionState::Open)
                        .map(region_info),
                );
            }
            answer(pb::GetOnlineRegionResponse {
                region_info: regions,
            })
        }
        "GetServerInfo" => answer(pb::GetServerInfoResponse {
            server_info: pb::ServerInfo {
                server_name: service.me.pb(),
                webui_port: None,
            },
        }),
        "FlushRegion" => {
            let request: pb::FlushRegionRequest = decode(param, "FlushRegionRequest")?;
            let encoded = data_region(service, &request.region)?;
            service.conn.admin().flush_region(&encoded)?;
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_millis() as u64)
                .unwrap_or(0);
            answer(pb::FlushRegionResponse {
                last_flush_time: now,
                flushed: Some(true),
            })
        }
        "CompactRegion" => {
            let request: pb::CompactRegionRequest = decode(param, "CompactRegionRequest")?;
            let encoded = data_region(service, &request.region)?;
            let family = request.family.filter(|f| !f.is_empty());
            service.conn.admin().compact_region(
                &encoded,
                family.as_deref(),
                request.major.unwrap_or(false),
            )?;
            answer(pb::CompactRegionResponse {})
        }
        _ => Err(unknown_or_unsupported(ServiceKind::Admin, method, METHODS)),
    }
}

/// The loads of the open regions served here, of one table or of all.
fn region_loads(
    service: &Service,
    table: Option<&pb::TableName>,
) -> Result<Vec<pb::RegionLoad>, RpcError> {
    if !service.roles.regions {
        return Ok(Vec::new());
    }
    let admin = service.conn.admin();
    let tables = match table {
        Some(name) => vec![super::schema::table_name(name)?],
        None => admin.list_tables(None)?,
    };
    let mut loads = Vec::new();
    for table in tables {
        let stores = admin.describe_table(&table)?.families.len() as u32;
        for region in admin.list_regions(&table)? {
            if region.state != RegionState::Open {
                continue;
            }
            loads.push(pb::RegionLoad {
                region_specifier: pb::RegionSpecifier {
                    r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
                    value: crate::meta::region_name(&region),
                },
                stores: Some(stores),
                storefiles: Some(region.store_files as u32),
                storefile_size_mb: Some((region.store_file_bytes >> 20) as u32),
                mem_store_size_mb: Some((region.memstore_bytes >> 20) as u32),
                read_requests_count: Some(region.read_requests),
                write_requests_count: Some(region.write_requests),
            });
        }
    }
    Ok(loads)
}

/// The encoded name of a table region a call names (never `hbase:meta`, which has no files).
fn data_region(service: &Service, spec: &pb::RegionSpecifier) -> Result<String, RpcError> {
    match resolve(service, spec)? {
        Target::Region { region, .. } => Ok(region.encoded_name.clone()),
        Target::Meta => Err(RpcError::do_not_retry(
            "hbase:meta is synthesized: there is nothing to flush or compact",
        )),
    }
}
