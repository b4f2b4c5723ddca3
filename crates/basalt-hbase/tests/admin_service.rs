//! `AdminService` over a real socket: the regions online here (with `hbase:meta`), one
//! region's info by encoded name (with its compaction state), this server's name, a flush
//! that writes a file, and the regions' loads that count it.

use crate::support;

use basalt_hbase::pb;
use basalt_hbase::HbaseConfig;
use basalt_types::TableName;
use bytes::Bytes;
use support::{create_table, put, region, regions, Client};

#[test]
fn admin_calls_answer_for_this_servers_regions() {
    let s = support::server(HbaseConfig::default());
    create_table(&s.server, "t", &[b"m"]);
    let mut client = Client::connect(&s.server, "ClientService");
    let names = regions(&mut client, "t");
    let write = pb::MutateRequest {
        region: region(&names[0]),
        mutation: put(b"a", b"v"),
        condition: None,
        nonce_group: None,
    };
    let _: pb::MutateResponse = client.ok("Mutate", &write);

    let mut admin = Client::connect(&s.server, "AdminService");
    let empty = pb::CellBlockMeta::default();
    let online: pb::GetOnlineRegionResponse = admin.ok("GetOnlineRegion", &empty);
    let ids: Vec<u64> = online.region_info.iter().map(|r| r.region_id).collect();
    assert_eq!(ids.len(), 3, "hbase:meta and two regions of t");
    assert_eq!(ids[0], 1);

    let encoded =
        basalt_types::name::encoded_region_name(std::str::from_utf8(&names[1]).expect("utf-8"));
    let by_encoded = pb::GetRegionInfoRequest {
        region: pb::RegionSpecifier {
            r#type: pb::region_specifier::RegionSpecifierType::EncodedRegionName as i32,
            value: Bytes::from(encoded.to_string()),
        },
        compaction_state: None,
    };
    let info: pb::GetRegionInfoResponse = admin.ok("GetRegionInfo", &by_encoded);
    assert_eq!(info.region_info.start_key.as_deref(), Some(&b"m"[..]));
    assert_eq!(info.compaction_state, None, "not asked for");
    let with_state = pb::GetRegionInfoRequest {
        compaction_state: Some(true),
        ..by_encoded.clone()
    };
    let info: pb::GetRegionInfoResponse = admin.ok("GetRegionInfo", &with_state);
    assert_eq!(
        info.compaction_state,
        Some(pb::get_region_info_response::CompactionState::None as i32)
    );

    let server: pb::GetServerInfoResponse = admin.ok("GetServerInfo", &empty);
    assert_eq!(
        server.server_info.server_name.port,
        Some(u32::from(s.server.local_addr().port()))
    );

    let table = TableName::parse("t").expect("name");
    let files = |s: &support::Server| -> usize {
        s.conn.admin().list_regions(&table).expect("regions")[0].store_files
    };
    assert_eq!(files(&s), 0);
    let flush = pb::FlushRegionRequest {
        region: region(&names[0]),
        if_older_than_ts: None,
        write_flush_wal_marker: None,
        family: None,
    };
    let flushed: pb::FlushRegionResponse = admin.ok("FlushRegion", &flush);
    assert_eq!(flushed.flushed, Some(true));
    assert_eq!(files(&s), 1, "the flush wrote a store file");

    let loads = pb::GetRegionLoadRequest {
        table_name: Some(support::table_name("t")),
    };
    let loads: pb::GetRegionLoadResponse = admin.ok("GetRegionLoad", &loads);
    let named: Vec<_> = loads
        .region_loads
        .iter()
        .map(|l| l.region_specifier.value.clone())
        .collect();
    assert_eq!(named, names, "both regions of t, by region name");
    let first = &loads.region_loads[0];
    assert_eq!((first.stores, first.storefiles), (Some(1), Some(1)));
    assert!(first.write_requests_count >= Some(1));

    let e = admin
        .call("RollWALWriter", &empty)
        .expect_err("not offered");
    assert_eq!(
        e.exception_class_name.as_deref(),
        Some("org.apache.hadoop.hbase.DoNotRetryIOException")
    );
}
