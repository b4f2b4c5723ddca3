//! Calls as a native HBase client makes them, over a real socket: `hbase:meta` rows as
//! HBase 2.x lays them out, scans region by region, Multi with per-action answers,
//! mutations whose cells come in a KeyValueCodec cell block, and the exceptions a client
//! retries on (`NotServingRegionException`) or not.

use crate::support;

use basalt_hbase::pb;
use basalt_hbase::HbaseConfig;
use basalt_types::Cell;
use bytes::Bytes;
use prost::Message;
use support::{create_table, get, put, region, regions, Client};

fn scan_region(client: &mut Client, name: &Bytes, rows_per_call: u32) -> Vec<Bytes> {
    let open = pb::ScanRequest {
        region: Some(region(name)),
        scan: Some(pb::Scan::default()),
        number_of_rows: Some(rows_per_call),
        ..Default::default()
    };
    let mut response: pb::ScanResponse = client.ok("Scan", &open);
    let id = response.scanner_id.expect("scanner id");
    let mut rows = Vec::new();
    loop {
        rows.extend(
            response
                .results
                .iter()
                .map(|r| r.cell[0].row.clone().expect("row")),
        );
        if response.more_results_in_region == Some(false) {
            break;
        }
        let next = pb::ScanRequest {
            scanner_id: Some(id),
            number_of_rows: Some(rows_per_call),
            ..Default::default()
        };
        response = client.ok("Scan", &next);
    }
    rows
}

#[test]
fn meta_lists_each_region_with_hbases_columns_and_scans_stay_in_their_region() {
    let s = support::server(HbaseConfig::default());
    create_table(&s.server, "t", &[b"m"]);
    let mut client = Client::connect(&s.server, "ClientService");
    let names = regions(&mut client, "t");
    assert_eq!(names.len(), 2);
    assert!(
        names[0].starts_with(b"t,,") && names[1].starts_with(b"t,m,"),
        "{names:?}"
    );
    // The region row's info:regioninfo is PBUF + RegionInfo with the key range.
    let request = pb::GetRequest {
        region: region(&Bytes::from_static(b"hbase:meta,,1")),
        get: pb::Get {
            column: vec![pb::Column {
                family: Bytes::from_static(b"info"),
                qualifier: vec![
                    Bytes::from_static(b"regioninfo"),
                    Bytes::from_static(b"server"),
                ],
            }],
            ..get(&names[1])
        },
    };
    let response: pb::GetResponse = client.ok("Get", &request);
    let cells = response.result.expect("a row").cell;
    assert_eq!(cells.len(), 2);
    let info = cells[0].value.clone().expect("regioninfo");
    assert_eq!(&info[..4], b"PBUF");
    let info = pb::RegionInfo::decode(&info[4..]).expect("RegionInfo");
    assert_eq!(info.start_key.as_deref(), Some(&b"m"[..]));
    assert_eq!(info.table_name.qualifier, Bytes::from_static(b"t"));
    let server = cells[1].value.clone().expect("server");
    assert_eq!(
        server,
        format!("127.0.0.1:{}", s.server.local_addr().port()).as_bytes()
    );
    // The table row's table:state says ENABLED.
    let state = pb::GetRequest {
        region: region(&Bytes::from_static(b"hbase:meta,,1")),
        get: get(b"t"),
    };
    let response: pb::GetResponse = client.ok("Get", &state);
    let value = response.result.expect("row").cell[0]
        .value
        .clone()
        .expect("state");
    assert_eq!(pb::TableState::decode(value).expect("TableState").state, 0);
    for row in [&b"a"[..], b"b", b"c", b"m", b"n", b"z"] {
        let target = if row < &b"m"[..] {
            &names[0]
        } else {
            &names[1]
        };
        let request = pb::MutateRequest {
            region: region(target),
            mutation: put(row, b"v"),
            condition: None,
            nonce_group: None,
        };
        let _: pb::MutateResponse = client.ok("Mutate", &request);
    }
    assert_eq!(
        scan_region(&mut client, &names[0], 2),
        [&b"a"[..], b"b", b"c"]
    );
    assert_eq!(
        scan_region(&mut client, &names[1], 1),
        [&b"m"[..], b"n", b"z"]
    );
    // A row sent to the wrong region is refused, not written there.
    let wrong = pb::MutateRequest {
        region: region(&names[0]),
        mutation: put(b"x", b"v"),
        condition: None,
        nonce_group: None,
    };
    let e = client.call("Mutate", &wrong).expect_err("wrong region");
    assert_eq!(
        e.exception_class_name.as_deref(),
        Some("org.apache.hadoop.hbase.regionserver.WrongRegionException")
    );
}

#[test]
fn multi_answers_each_action_and_cell_blocks_carry_mutations() {
    let s = support::server(HbaseConfig::default());
    create_table(&s.server, "t", &[b"m"]);
    let mut client = Client::connect(&s.server, "ClientService");
    let names = regions(&mut client, "t");
    let action = |index: u32, mutation: pb::MutationProto| pb::Action {
        index: Some(index),
        mutation: Some(mutation),
        get: None,
    };
    let request = pb::MultiRequest {
        region_action: vec![pb::RegionAction {
            region: region(&names[0]),
            atomic: None,
            action: vec![
                action(0, put(b"a", b"1")),
                action(1, put(b"x", b"outside")),
                pb::Action {
                    index: Some(2),
                    mutation: None,
                    get: Some(get(b"a")),
                },
            ],
            condition: None,
        }],
        ..Default::default()
    };
    let response: pb::MultiResponse = client.ok("Multi", &request);
    let results = &response.region_action_result[0].result_or_exception;
    assert_eq!(results.len(), 3);
    assert!(results[0].exception.is_none());
    assert_eq!(
        results[1].exception.as_ref().map(|e| e.name.as_str()),
        Some("org.apache.hadoop.hbase.regionserver.WrongRegionException")
    );
    // The get runs in the same batch, after the put.
    assert_eq!(results[2].index, Some(2));

    // A client that names KeyValueCodec sends a put's cells in the cell block.
    let mut coded = Client::raw(&s.server);
    let header = pb::ConnectionHeader {
        user_info: None,
        service_name: Some("ClientService".into()),
        cell_block_codec_class: Some("org.apache.hadoop.hbase.codec.KeyValueCodec".into()),
        cell_block_compressor_class: None,
    };
    let mut preface = b"HBas\x00\x50".to_vec();
    preface.extend_from_slice(&(header.encoded_len() as u32).to_be_bytes());
    preface.extend_from_slice(&header.encode_to_vec());
    std::io::Write::write_all(&mut coded, &preface).expect("preface");
    let mut coded = Client {
        stream: coded,
        next_id: 1,
    };
    let cells = basalt_hbase::cellblock::encode(&[Cell::put(
        Bytes::from_static(b"c"),
        Bytes::from_static(b"cf"),
        Bytes::from_static(b"q"),
        77,
        Bytes::from_static(b"from-block"),
    )]);
    let request = pb::MutateRequest {
        region: region(&names[0]),
        mutation: pb::MutationProto {
            row: Some(Bytes::from_static(b"c")),
            mutate_type: Some(pb::mutation_proto::MutationType::Put as i32),
            associated_cell_count: Some(1),
            ..Default::default()
        },
        condition: None,
        nonce_group: None,
    };
    coded
        .call_with_cells("Mutate", &request, &cells)
        .expect("put from the cell block");
    let read = pb::GetRequest {
        region: region(&names[0]),
        get: get(b"c"),
    };
    let response: pb::GetResponse = client.ok("Get", &read);
    let cell = &response.result.expect("row").cell[0];
    assert_eq!(cell.value.as_deref(), Some(&b"from-block"[..]));
    assert_eq!(cell.timestamp, Some(77));
}

#[test]
fn a_deleted_tables_region_is_not_served_and_a_missing_table_is_not_found() {
    let s = support::server(HbaseConfig::default());
    create_table(&s.server, "t", &[]);
    let mut client = Client::connect(&s.server, "ClientService");
    let name = regions(&mut client, "t")[0].clone();
    let mut master = Client::connect(&s.server, "MasterService");
    let table = pb::TableNameRequest {
        table_name: support::table_name("t"),
    };
    let _: pb::ProcedureResponse = master.ok("DisableTable", &table);
    let state: pb::GetTableStateResponse = master.ok("GetTableState", &table);
    assert_eq!(
        state.table_state.state,
        pb::table_state::State::Disabled as i32
    );
    let _: pb::ProcedureResponse = master.ok("DeleteTable", &table);
    let e = client
        .call(
            "Get",
            &pb::GetRequest {
                region: region(&name),
                get: get(b"r"),
            },
        )
        .expect_err("gone");
    assert_eq!(
        e.exception_class_name.as_deref(),
        Some("org.apache.hadoop.hbase.NotServingRegionException")
    );
    assert_eq!(
        e.do_not_retry,
        Some(false),
        "clients look the region up again"
    );
    let e = master.call("GetTableState", &table).expect_err("no table");
    assert_eq!(
        e.exception_class_name.as_deref(),
        Some("org.apache.hadoop.hbase.TableNotFoundException")
    );
    assert_eq!(e.do_not_retry, Some(true));
    let running: pb::IsMasterRunningResponse =
        master.ok("IsMasterRunning", &pb::CellBlockMeta::default());
    assert!(running.is_master_running);
}

#[test]
fn the_registry_and_cluster_status_name_this_server() {
    let s = support::server(HbaseConfig::default());
    create_table(&s.server, "t", &[b"m"]);
    let port = u32::from(s.server.local_addr().port());
    let mut registry = Client::connect(&s.server, "ClientMetaService");
    let empty = pb::CellBlockMeta::default();
    let id: pb::GetClusterIdResponse = registry.ok("GetClusterId", &empty);
    assert_eq!(id.cluster_id.as_deref(), Some("test-cluster"));
    let master: pb::GetActiveMasterResponse = registry.ok("GetActiveMaster", &empty);
    assert_eq!(master.server_name.and_then(|s| s.port), Some(port));
    let meta: pb::GetMetaRegionLocationsResponse = registry.ok("GetMetaRegionLocations", &empty);
    assert_eq!(meta.meta_locations[0].region_info.region_id, 1);
    let mut master = Client::connect(&s.server, "MasterService");
    let status: pb::GetClusterStatusResponse = master.ok("GetClusterStatus", &empty);
    let status = status.cluster_status;
    assert_eq!(status.live_servers.len(), 1);
    assert_eq!(status.live_servers[0].server.port, Some(port));
    assert_eq!(status.live_servers[0].server_load.region_loads.len(), 2);
    assert_eq!(
        status.cluster_id.map(|c| c.cluster_id).as_deref(),
        Some("test-cluster")
    );
    let was: pb::SetBalancerRunningResponse = master.ok(
        "SetBalancerRunning",
        &pb::SetBalancerRunningRequest {
            on: false,
            synchronous: None,
        },
    );
    assert!(was.prev_balance_value.is_some());
    let enabled: pb::IsBalancerEnabledResponse = master.ok("IsBalancerEnabled", &empty);
    assert!(!enabled.enabled);
}

#[test]
fn the_blocking_client_answers_and_reports_remote_exceptions() {
    use basalt_hbase::client::{CallError, RpcClient};
    let s = support::server(HbaseConfig::default());
    let mut master = RpcClient::connect(s.server.local_addr(), "MasterService").expect("connect");
    let running: pb::IsMasterRunningResponse = master
        .ask("IsMasterRunning", &pb::CellBlockMeta::default())
        .expect("answer");
    assert!(running.is_master_running);
    let missing = pb::TableNameRequest {
        table_name: support::table_name("nope"),
    };
    match master.call("GetTableState", &missing) {
        Err(CallError::Remote(e)) => {
            assert_eq!(e.class, "org.apache.hadoop.hbase.TableNotFoundException");
            assert!(e.do_not_retry);
        }
        other => panic!("expected TableNotFoundException, got {other:?}"),
    }
}
