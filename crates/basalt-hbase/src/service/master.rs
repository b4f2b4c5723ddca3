//! `MasterService`: table and namespace DDL, listing and describing tables, table states,
//! the balancer switch; snapshots in [`super::snapshots`].
//!
//! Basalt's DDL is synchronous: when `CreateTable` answers, the table's regions are open.
//! The procedure ids HBase 2.x answers for asynchronous DDL are still given (clients wait
//! on them), and `getProcedureResult` answers every id as finished.

use super::schema;
use super::{answer, decode, unknown_or_unsupported, Answer, Service, ServiceKind};
use crate::meta::{table_name_pb, table_state};
use crate::pb;
use crate::RpcError;
use basalt_api::{ApiError, ErrorKind, PreSplit};
use basalt_types::{NamespaceDescriptor, TableName};
use bytes::Bytes;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

const METHODS: &[&str] = &[
    "GetSchemaAlterStatus",
    "GetTableDescriptors",
    "GetTableNames",
    "GetClusterStatus",
    "IsMasterRunning",
    "AddColumn",
    "DeleteColumn",
    "ModifyColumn",
    "MoveRegion",
    "MergeTableRegions",
    "AssignRegion",
    "UnassignRegion",
    "OfflineRegion",
    "SplitRegion",
    "DeleteTable",
    "truncateTable",
    "EnableTable",
    "DisableTable",
    "ModifyTable",
    "CreateTable",
    "Shutdown",
    "StopMaster",
    "IsMasterInMaintenanceMode",
    "Balance",
    "SetBalancerRunning",
    "IsBalancerEnabled",
    "SetSplitOrMergeEnabled",
    "IsSplitOrMergeEnabled",
    "Normalize",
    "SetNormalizerRunning",
    "IsNormalizerEnabled",
    "RunCatalogScan",
    "EnableCatalogJanitor",
    "IsCatalogJanitorEnabled",
    "RunCleanerChore",
    "SetCleanerChoreRunning",
    "IsCleanerChoreEnabled",
    "ExecMasterService",
    "Snapshot",
    "GetCompletedSnapshots",
    "DeleteSnapshot",
    "IsSnapshotDone",
    "RestoreSnapshot",
    "IsRestoreSnapshotDone",
    "ExecProcedure",
    "ExecProcedureWithRet",
    "IsProcedureDone",
    "ModifyNamespace",
    "CreateNamespace",
    "DeleteNamespace",
    "GetNamespaceDescriptor",
    "ListNamespaceDescriptors",
    "ListTableDescriptorsByNamespace",
    "ListTableNamesByNamespace",
    "GetTableState",
    "SetQuota",
    "getLastMajorCompactionTimestamp",
    "getProcedureResult",
    "getSecurityCapabilities",
    "AbortProcedure",
    "GetProcedures",
    "GetLocks",
    "ListNamespaces",
    "ClearDeadServers",
];

/// Procedure ids handed out (every procedure has finished by the time its id is).
static PROCEDURES: AtomicU64 = AtomicU64::new(1);

fn procedure() -> Answer {
    answer(pb::ProcedureResponse {
        proc_id: Some(PROCEDURES.fetch_add(1, Ordering::Relaxed)),
    })
}

pub fn call(service: &Service, method: &str, param: &Bytes) -> Answer {
    let admin = service.conn.admin();
    match method {
        "IsMasterRunning" => answer(pb::IsMasterRunningResponse {
            is_master_running: true,
        }),
        "CreateTable" => {
            let request: pb::CreateTableRequest = decode(param, "CreateTableRequest")?;
            let table = schema::table(&request.table_schema)?;
            let split = match request.split_keys.is_empty() {
                true => PreSplit::None,
                false => PreSplit::Keys(request.split_keys),
            };
            admin.create_table(&table, &split)?;
            procedure()
        }
        "DeleteTable" | "EnableTable" | "DisableTable" => {
            let request: pb::TableNameRequest = decode(param, method)?;
            let name = schema::table_name(&request.table_name)?;
            match method {
                "DeleteTable" => admin.delete_table(&name)?,
                "EnableTable" => admin.enable_table(&name)?,
                _ => admin.disable_table(&name)?,
            }
            procedure()
        }
        "truncateTable" => {
            let request: pb::TruncateTableRequest = decode(param, "TruncateTableRequest")?;
            let name = schema::table_name(&request.table_name)?;
            admin.truncate_table(&name, request.preserve_splits.unwrap_or(false))?;
            procedure()
        }
        "GetTableDescriptors" => {
            let request: pb::GetTableDescriptorsRequest =
                decode(param, "GetTableDescriptorsRequest")?;
            let names = match request.table_names.is_empty() {
                false => request
                    .table_names
                    .iter()
                    .map(schema::table_name)
                    .collect::<Result<_, _>>()?,
                true => list(
                    service,
                    request.regex.as_deref(),
                    request.namespace.as_deref(),
                )?,
            };
            let mut table_schema = Vec::new();
            for name in names {
                match admin.describe_table(&name) {
                    Ok(descriptor) => table_schema.push(schema::table_pb(&descriptor)),
                    // HBase leaves out the names it does not find.
                    Err(e) if e.kind == ErrorKind::NotFound => {}
                    Err(e) => return Err(e.into()),
                }
            }
            answer(pb::GetTableDescriptorsResponse { table_schema })
        }
        "GetTableNames" => {
            let request: pb::GetTableNamesRequest = decode(param, "GetTableNamesRequest")?;
            let names = list(
                service,
                request.regex.as_deref(),
                request.namespace.as_deref(),
            )?;
            answer(pb::GetTableNamesResponse {
                table_names: names.iter().map(table_name_pb).collect(),
            })
        }
        "GetTableState" => {
            let request: pb::TableNameRequest = decode(param, "GetTableStateRequest")?;
            let name = schema::table_name(&request.table_name)?;
            answer(pb::GetTableStateResponse {
                table_state: table_state(admin.is_table_enabled(&name)?),
            })
        }
        "CreateNamespace" => {
            let request: pb::CreateNamespaceRequest = decode(param, "CreateNamespaceRequest")?;
            admin.create_namespace(&namespace(&request.namespace_descriptor)?)?;
            answer(pb::ProcedureResponse { proc_id: None })
        }
        "DeleteNamespace" => {
            let request: pb::DeleteNamespaceRequest = decode(param, "DeleteNamespaceRequest")?;
            admin.delete_namespace(&request.namespace_name)?;
            answer(pb::ProcedureResponse { proc_id: None })
        }
        "ModifyNamespace" => {
            let request: pb::CreateNamespaceRequest = decode(param, "ModifyNamespaceRequest")?;
            admin.modify_namespace(&namespace(&request.namespace_descriptor)?)?;
            answer(pb::ProcedureResponse { proc_id: None })
        }
        "GetNamespaceDescriptor" => {
            let request: pb::GetNamespaceDescriptorRequest =
                decode(param, "GetNamespaceDescriptorRequest")?;
            let ns = admin.describe_namespace(&request.namespace_name)?;
            answer(pb::GetNamespaceDescriptorResponse {
                namespace_descriptor: namespace_pb(&ns),
            })
        }
        "ListNamespaceDescriptors" => answer(pb::ListNamespaceDescriptorsResponse {
            namespace_descriptor: admin.list_namespaces()?.iter().map(namespace_pb).collect(),
        }),
        "ListNamespaces" => answer(pb::ListNamespacesResponse {
            namespace_name: admin
                .list_namespaces()?
                .into_iter()
                .map(|n| n.name)
                .collect(),
        }),
        "AddColumn" | "ModifyColumn" => {
            let request: pb::AddColumnRequest = decode(param, method)?;
            let name = schema::table_name(&request.table_name)?;
            let family = schema::family(&request.column_families)?;
            match method {
                "AddColumn" => admin.add_family(&name, &family)?,
                _ => admin.modify_family(&name, &family)?,
            }
            procedure()
        }
        "DeleteColumn" => {
            let request: pb::DeleteColumnRequest = decode(param, "DeleteColumnRequest")?;
            let name = schema::table_name(&request.table_name)?;
            admin.delete_family(&name, &request.column_name)?;
            procedure()
        }
        "IsBalancerEnabled" => answer(pb::IsBalancerEnabledResponse {
            enabled: admin.balancer_enabled()?,
        }),
        "SetBalancerRunning" => {
            let request: pb::SetBalancerRunningRequest =
                decode(param, "SetBalancerRunningRequest")?;
            answer(pb::SetBalancerRunningResponse {
                prev_balance_value: Some(admin.balance_switch(request.on)?),
            })
        }
        "Balance" => answer(pb::BalanceResponse {
            balancer_ran: admin.balance()?,
        }),
        "GetClusterStatus" => cluster_status(service),
        "SplitRegion" => {
            let request: pb::SplitTableRegionRequest = decode(param, "SplitTableRegionRequest")?;
            let name = schema::table_name(&request.region_info.table_name)?;
            let row = request.split_row.filter(|r| !r.is_empty()).ok_or_else(|| {
                RpcError::do_not_retry("SplitRegion needs a split row (Basalt does not pick a midpoint for one region)")
            })?;
            admin.split(&name, Some(&row))?;
            procedure()
        }
        "MergeTableRegions" => {
            let request: pb::MergeTableRegionsRequest = decode(param, "MergeTableRegionsRequest")?;
            let [a, b] = request.region.as_slice() else {
                return Err(RpcError::do_not_retry(
                    "MergeTableRegions merges exactly two regions",
                ));
            };
            admin.merge_regions(&encoded_name(a), &encoded_name(b))?;
            procedure()
        }
        m if super::snapshots::METHODS.contains(&m) => super::snapshots::call(
            service,
            m,
            param,
            PROCEDURES.fetch_add(1, Ordering::Relaxed),
        ),
        "getProcedureResult" => {
            let _: pb::GetProcedureResultRequest = decode(param, "GetProcedureResultRequest")?;
            answer(pb::GetProcedureResultResponse {
                state: pb::get_procedure_result_response::State::Finished as i32,
            })
        }
        _ => Err(unknown_or_unsupported(ServiceKind::Master, method, METHODS)),
    }
}

/// The encoded name a region specifier names.
fn encoded_name(spec: &pb::RegionSpecifier) -> String {
    let value = String::from_utf8_lossy(&spec.value).to_string();
    basalt_types::name::encoded_region_name(&value).to_string()
}

/// The live region servers with their regions' loads, the active master, the cluster id
/// and the balancer's switch.
fn cluster_status(service: &Service) -> Answer {
    let admin = service.conn.admin();
    let topology = service.topology.as_ref();
    let mut loads: BTreeMap<String, (pb::ServerName, pb::ServerLoad)> = topology
        .region_servers()
        .into_iter()
        .map(|s| (s.server_name(), (s.pb(), pb::ServerLoad::default())))
        .collect();
    for table in admin.list_tables(None)? {
        for region in admin.list_regions(&table)? {
            let Some(server) = topology.server_of(&region) else {
                continue;
            };
            let (_, load) = loads
                .entry(server.server_name())
                .or_insert_with(|| (server.pb(), pb::ServerLoad::default()));
            let requests = region.read_requests + region.write_requests;
            load.total_number_of_requests =
                Some(load.total_number_of_requests.unwrap_or(0) + requests);
            load.number_of_requests = load.total_number_of_requests;
            load.region_loads.push(pb::RegionLoad {
                region_specifier: pb::RegionSpecifier {
                    r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
                    value: crate::meta::region_name(&region),
                },
                stores: None,
                storefiles: Some(region.store_files as u32),
                storefile_size_mb: Some((region.store_file_bytes >> 20) as u32),
                mem_store_size_mb: Some((region.memstore_bytes >> 20) as u32),
                read_requests_count: Some(region.read_requests),
                write_requests_count: Some(region.write_requests),
            });
        }
    }
    let servers_name = loads.values().map(|(name, _)| name.clone()).collect();
    answer(pb::GetClusterStatusResponse {
        cluster_status: pb::ClusterStatus {
            live_servers: loads
                .into_values()
                .map(|(server, server_load)| pb::LiveServerInfo {
                    server,
                    server_load,
                })
                .collect(),
            dead_servers: Vec::new(),
            cluster_id: Some(pb::ClusterId {
                cluster_id: service.cluster_id(),
            }),
            master: Some(
                topology
                    .active_master()
                    .unwrap_or_else(|| service.me.clone())
                    .pb(),
            ),
            backup_masters: Vec::new(),
            balancer_on: Some(admin.balancer_enabled()?),
            servers_name,
        },
    })
}

/// Tables matching `regex` (all when `None`) in `namespace` (all when `None`); user
/// tables only, as Basalt has no system tables to list.
fn list(
    service: &Service,
    regex: Option<&str>,
    namespace: Option<&str>,
) -> Result<Vec<TableName>, RpcError> {
    let regex = regex.filter(|r| !r.is_empty() && *r != ".*");
    let names = service.conn.admin().list_tables(regex)?;
    Ok(names
        .into_iter()
        .filter(|n| namespace.is_none_or(|ns| ns.is_empty() || n.namespace() == ns))
        .collect())
}

fn namespace(pb: &pb::NamespaceDescriptor) -> Result<NamespaceDescriptor, RpcError> {
    let name = String::from_utf8_lossy(&pb.name);
    let mut ns = NamespaceDescriptor::new(&name).map_err(ApiError::from)?;
    for pair in &pb.configuration {
        ns.properties.insert(pair.name.clone(), pair.value.clone());
    }
    Ok(ns)
}

fn namespace_pb(ns: &NamespaceDescriptor) -> pb::NamespaceDescriptor {
    pb::NamespaceDescriptor {
        name: Bytes::from(ns.name.clone()),
        configuration: ns
            .properties
            .iter()
            .map(|(k, v)| pb::NameStringPair {
                name: k.clone(),
                value: v.clone(),
            })
            .collect(),
    }
}
