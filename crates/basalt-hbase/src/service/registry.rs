//! `ClientMetaService`, HBase 2.5's RPC connection registry: what a client asks its
//! bootstrap servers instead of reading ZooKeeper. This server is the active master, the
//! only bootstrap node, and holds `hbase:meta`.

use super::{answer, unknown_or_unsupported, Answer, Service, ServiceKind};
use crate::pb;
use bytes::Bytes;

const METHODS: &[&str] = &[
    "GetClusterId",
    "GetActiveMaster",
    "GetMasters",
    "GetMetaRegionLocations",
    "GetBootstrapNodes",
];

/// `hbase:meta,,1`'s RegionInfo (region id 1, the whole key space).
pub fn meta_region_info() -> pb::RegionInfo {
    pb::RegionInfo {
        region_id: 1,
        table_name: pb::TableName {
            namespace: Bytes::from_static(b"hbase"),
            qualifier: Bytes::from_static(b"meta"),
        },
        start_key: Some(Bytes::new()),
        end_key: Some(Bytes::new()),
        offline: Some(false),
        split: Some(false),
        replica_id: Some(0),
    }
}

pub fn call(service: &Service, method: &str) -> Answer {
    let me = service.me.pb();
    match method {
        "GetClusterId" => answer(pb::GetClusterIdResponse {
            cluster_id: Some(service.cluster_id.clone()),
        }),
        "GetActiveMaster" => answer(pb::GetActiveMasterResponse {
            server_name: Some(me),
        }),
        "GetMasters" => answer(pb::GetMastersResponse {
            master_servers: vec![pb::GetMastersResponseEntry {
                server_name: me,
                is_active: true,
            }],
        }),
        "GetMetaRegionLocations" => answer(pb::GetMetaRegionLocationsResponse {
            meta_locations: vec![pb::RegionLocation {
                region_info: meta_region_info(),
                server_name: Some(me),
                seq_num: 0,
            }],
        }),
        "GetBootstrapNodes" => answer(pb::GetBootstrapNodesResponse {
            server_name: vec![me],
        }),
        _ => Err(unknown_or_unsupported(
            ServiceKind::ClientMeta,
            method,
            METHODS,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_is_region_one_of_hbase_meta() {
        let info = meta_region_info();
        assert_eq!(info.region_id, 1);
        assert_eq!(&info.table_name.namespace[..], b"hbase");
        assert_eq!(&info.table_name.qualifier[..], b"meta");
    }
}
