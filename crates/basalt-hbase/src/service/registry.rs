//! `ClientMetaService`, HBase 2.5's RPC connection registry: what a client asks its
//! bootstrap servers instead of reading ZooKeeper: the active master and where
//! `hbase:meta` is read, as the [`crate::Topology`] knows them (in standalone, this very
//! server; in a cluster, the active master). This server is the bootstrap node.

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
    let topology = service.topology.as_ref();
    let master = topology.active_master().map(|m| m.pb());
    match method {
        "GetClusterId" => answer(pb::GetClusterIdResponse {
            cluster_id: Some(service.cluster_id()),
        }),
        "GetActiveMaster" => answer(pb::GetActiveMasterResponse {
            server_name: master,
        }),
        "GetMasters" => answer(pb::GetMastersResponse {
            master_servers: master
                .into_iter()
                .map(|server_name| pb::GetMastersResponseEntry {
                    server_name,
                    is_active: true,
                })
                .collect(),
        }),
        "GetMetaRegionLocations" => answer(pb::GetMetaRegionLocationsResponse {
            meta_locations: topology
                .meta_server()
                .map(|server| pb::RegionLocation {
                    region_info: meta_region_info(),
                    server_name: Some(server.pb()),
                    seq_num: 0,
                })
                .into_iter()
                .collect(),
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
