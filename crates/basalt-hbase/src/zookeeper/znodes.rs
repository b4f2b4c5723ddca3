//! The znodes an HBase client reads, in HBase's data format: `0xFF`, a four-byte id
//! length, the id (who wrote it, plus an eight-byte salt), then `PBUF` and a protobuf
//! message.
//!
//! - `/hbase/master`: `Master` (the active master's native address);
//! - `/hbase/meta-region-server`: `MetaRegionServer` (where `hbase:meta` is read, state
//!   OPEN);
//! - `/hbase/hbaseid`: `ClusterId`;
//! - `/hbase/rs/<host,port,startcode>`: each live region server, as HBase lists them;
//! - `/hbase/backup-masters`: empty.
//!
//! In standalone every address is the one server's ([`Tree::for_server`]); in a cluster
//! they come from the [`crate::Topology`] at each request ([`Tree::for_topology`]).

use crate::meta::ServerIdentity;
use crate::pb;
use crate::topology::{SingleServer, Topology};
use prost::Message;
use std::collections::BTreeMap;

/// A read-only tree of znodes.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    nodes: BTreeMap<String, Vec<u8>>,
    /// When the tree was made, in ms (every znode's ctime and mtime).
    pub created_ms: i64,
}

/// HBase's znode data: metadata, `PBUF`, the message.
pub fn with_metadata(writer: &str, message: &impl Message) -> Vec<u8> {
    let mut id = writer.as_bytes().to_vec();
    id.extend_from_slice(&0x00ba_5a17_u64.to_be_bytes());
    let mut out = vec![0xff];
    out.extend_from_slice(&(id.len() as u32).to_be_bytes());
    out.extend_from_slice(&id);
    out.extend_from_slice(pb::PB_MAGIC);
    message.encode_raw(&mut out);
    out
}

impl Tree {
    /// The znodes for a single server `me` under `parent` (HBase's `/hbase`).
    pub fn for_server(
        parent: &str,
        me: &ServerIdentity,
        cluster_id: &str,
        created_ms: i64,
    ) -> Self {
        Self::for_topology(
            parent,
            &SingleServer(me.clone()),
            &me.host,
            cluster_id,
            created_ms,
        )
    }

    /// The znodes of `topology` now, written by `host`: a master or `hbase:meta` not
    /// known has no znode (clients wait for it, as for an HBase master starting).
    pub fn for_topology(
        parent: &str,
        topology: &dyn Topology,
        host: &str,
        cluster_id: &str,
        created_ms: i64,
    ) -> Self {
        let writer = format!("basalt@{host}");
        let mut nodes = BTreeMap::new();
        let parent = parent.trim_end_matches('/').to_string();
        nodes.insert(parent.clone(), Vec::new());
        if let Some(master) = topology.active_master() {
            let master = pb::Master {
                master: master.pb(),
                rpc_version: Some(0),
                info_port: Some(0),
            };
            nodes.insert(format!("{parent}/master"), with_metadata(&writer, &master));
        }
        if let Some(meta) = topology.meta_server() {
            let meta = pb::MetaRegionServer {
                server: meta.pb(),
                rpc_version: Some(0),
                state: Some(pb::RegionStateCode::Open as i32),
            };
            nodes.insert(
                format!("{parent}/meta-region-server"),
                with_metadata(&writer, &meta),
            );
        }
        let id = pb::ClusterId {
            cluster_id: cluster_id.to_string(),
        };
        nodes.insert(format!("{parent}/hbaseid"), with_metadata(&writer, &id));
        nodes.insert(format!("{parent}/rs"), Vec::new());
        for server in topology.region_servers() {
            nodes.insert(format!("{parent}/rs/{}", server.server_name()), Vec::new());
        }
        nodes.insert(format!("{parent}/backup-masters"), Vec::new());
        Self { nodes, created_ms }
    }

    pub fn data(&self, path: &str) -> Option<&[u8]> {
        self.nodes.get(normalize(path)).map(Vec::as_slice)
    }

    /// The names of `path`'s children, sorted; `None` when `path` is not a znode.
    pub fn children(&self, path: &str) -> Option<Vec<String>> {
        let path = normalize(path);
        if path != "/" && !self.nodes.contains_key(path) {
            return None;
        }
        let prefix = match path {
            "/" => "/".to_string(),
            p => format!("{p}/"),
        };
        let mut out: Vec<String> = self
            .nodes
            .keys()
            .filter_map(|k| k.strip_prefix(&prefix))
            .filter(|rest| !rest.is_empty() && !rest.contains('/'))
            .map(str::to_string)
            .collect();
        out.dedup();
        // The root's children include every top-level ancestor.
        if path == "/" {
            out = self
                .nodes
                .keys()
                .filter_map(|k| k.strip_prefix('/'))
                .filter_map(|rest| rest.split('/').next())
                .map(str::to_string)
                .collect();
            out.sort();
            out.dedup();
        }
        Some(out)
    }

    pub fn exists(&self, path: &str) -> bool {
        normalize(path) == "/" || self.nodes.contains_key(normalize(path))
    }
}

fn normalize(path: &str) -> &str {
    match path.trim_end_matches('/') {
        "" => "/",
        p => p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn me() -> ServerIdentity {
        ServerIdentity {
            host: "h".into(),
            port: 16020,
            start_code: 42,
        }
    }

    #[test]
    fn the_master_znode_is_in_hbases_format() {
        let tree = Tree::for_server("/hbase", &me(), "cid", 0);
        let data = tree.data("/hbase/master").expect("master");
        assert_eq!(data[0], 0xff);
        let id_len = u32::from_be_bytes([data[1], data[2], data[3], data[4]]) as usize;
        let rest = &data[5 + id_len..];
        assert_eq!(&rest[..4], b"PBUF");
        let master = pb::Master::decode(&rest[4..]).expect("Master");
        assert_eq!(master.master.host_name, "h");
        assert_eq!(master.master.port, Some(16020));
    }

    #[test]
    fn children_are_listed_one_level_down() {
        let tree = Tree::for_server("/hbase", &me(), "cid", 0);
        let children = tree.children("/hbase").expect("parent");
        assert_eq!(
            children,
            [
                "backup-masters",
                "hbaseid",
                "master",
                "meta-region-server",
                "rs"
            ]
        );
        assert_eq!(tree.children("/hbase/rs").expect("rs"), ["h,16020,42"]);
        assert_eq!(tree.children("/").expect("root"), ["hbase"]);
        assert_eq!(tree.children("/nope"), None);
    }

    /// A cluster whose master knows one region server and no active master yet.
    struct Cluster;

    impl Topology for Cluster {
        fn server_of(&self, _: &basalt_api::RegionReport) -> Option<ServerIdentity> {
            None
        }
        fn active_master(&self) -> Option<ServerIdentity> {
            None
        }
        fn meta_server(&self) -> Option<ServerIdentity> {
            Some(me())
        }
        fn region_servers(&self) -> Vec<ServerIdentity> {
            vec![ServerIdentity {
                host: "rs1".into(),
                port: 16021,
                start_code: 7,
            }]
        }
    }

    #[test]
    fn a_cluster_tree_lists_its_region_servers_and_omits_an_unknown_master() {
        let tree = Tree::for_topology("/hbase", &Cluster, "h", "cid", 0);
        assert!(!tree.exists("/hbase/master"), "no master known: no znode");
        assert!(tree.exists("/hbase/meta-region-server"));
        assert_eq!(tree.children("/hbase/rs").expect("rs"), ["rs1,16021,7"]);
    }
}
