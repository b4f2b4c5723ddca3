//! `Version`, `ClusterVersion` and `StorageClusterStatus`.
//!
//! ```text
//! Version        {"REST":"0.0.3","JVM":"…","OS":"…","Server":"…","Jersey":"…"}
//! ClusterVersion {"Version":"2.5.5"}      <ClusterVersion Version="2.5.5"/>      2.5.5
//! Status         {"regions":2,"requests":0,"averageLoad":2.0,"LiveNodes":[{"name":"h:p",…,"Region":[…]}],"DeadNodes":[]}
//! ```

use super::Model;
use crate::repr::{b64, proto, xml};
use basalt_api::RegionReport;
use prost::Message;
use serde_json::{json, Value};

/// The REST protocol version HBase reports.
pub const REST_VERSION: &str = "0.0.3";
/// The HBase version Basalt speaks for.
pub const HBASE_VERSION: &str = "2.5.5";

/// `/version`: the gateway's software versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub rest: String,
    pub runtime: String,
    pub os: String,
    pub server: String,
    pub framework: String,
}

impl Version {
    pub fn current() -> Self {
        Self {
            rest: REST_VERSION.to_string(),
            runtime: "Rust (no JVM)".to_string(),
            os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
            server: format!("basalt-rest/{}", env!("CARGO_PKG_VERSION")),
            framework: "axum/0.8".to_string(),
        }
    }
}

impl Model for Version {
    fn json(&self) -> Value {
        json!({
            "REST": self.rest, "JVM": self.runtime, "OS": self.os,
            "Server": self.server, "Jersey": self.framework,
        })
    }

    fn xml(&self) -> String {
        format!(
            "<Version{}/>",
            xml::attrs(&[
                ("REST", self.rest.clone()),
                ("JVM", self.runtime.clone()),
                ("OS", self.os.clone()),
                ("Server", self.server.clone()),
                ("Jersey", self.framework.clone()),
            ])
        )
    }

    fn protobuf(&self) -> Vec<u8> {
        proto::Version {
            rest_version: Some(self.rest.clone()),
            jvm_version: Some(self.runtime.clone()),
            os_version: Some(self.os.clone()),
            server_version: Some(self.server.clone()),
            jersey_version: Some(self.framework.clone()),
        }
        .encode_to_vec()
    }

    fn text(&self) -> String {
        format!(
            "rest {} [JVM: {}] [OS: {}] [Server: {}] [Jersey: {}]\n",
            self.rest, self.runtime, self.os, self.server, self.framework
        )
    }
}

/// `/version/cluster`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterVersion(pub String);

impl Model for ClusterVersion {
    fn json(&self) -> Value {
        json!({ "Version": self.0 })
    }

    fn xml(&self) -> String {
        format!(
            "<ClusterVersion{}/>",
            xml::attrs(&[("Version", self.0.clone())])
        )
    }

    /// HBase sends the bare version string for its protobuf form too.
    fn protobuf(&self) -> Vec<u8> {
        self.0.as_bytes().to_vec()
    }

    fn text(&self) -> String {
        format!("{}\n", self.0)
    }
}

/// `/status/cluster`: one live node per server hosting regions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterStatus {
    /// Server name and its regions.
    pub nodes: Vec<(String, Vec<RegionReport>)>,
}

fn mb(bytes: u64) -> i64 {
    (bytes / (1024 * 1024)) as i64
}

impl ClusterStatus {
    fn region_count(&self) -> usize {
        self.nodes.iter().map(|(_, r)| r.len()).sum()
    }

    fn requests(regions: &[RegionReport]) -> u64 {
        regions
            .iter()
            .map(|r| r.read_requests + r.write_requests)
            .sum()
    }

    fn average_load(&self) -> f64 {
        if self.nodes.is_empty() {
            0.0
        } else {
            self.region_count() as f64 / self.nodes.len() as f64
        }
    }

    fn total_requests(&self) -> u64 {
        self.nodes.iter().map(|(_, r)| Self::requests(r)).sum()
    }
}

fn region_json(r: &RegionReport) -> Value {
    json!({
        "name": b64::encode(r.region_name.as_bytes()),
        "stores": 1, "storefiles": r.store_files,
        "storefileSizeMB": mb(r.store_file_bytes), "memstoreSizeMB": mb(r.memstore_bytes),
        "storefileIndexSizeKB": 0,
        "readRequestsCount": r.read_requests, "writeRequestsCount": r.write_requests,
    })
}

impl Model for ClusterStatus {
    fn json(&self) -> Value {
        let nodes: Vec<Value> = self
            .nodes
            .iter()
            .map(|(name, regions)| {
                json!({
                    "name": name, "startCode": 0, "requests": Self::requests(regions),
                    "heapSizeMB": 0, "maxHeapSizeMB": 0,
                    "Region": regions.iter().map(region_json).collect::<Vec<_>>(),
                })
            })
            .collect();
        json!({
            "regions": self.region_count(), "requests": self.total_requests(),
            "averageLoad": self.average_load(), "LiveNodes": nodes, "DeadNodes": [],
        })
    }

    fn xml(&self) -> String {
        let mut out = format!(
            "<ClusterStatus{}><LiveNodes>",
            xml::attrs(&[
                ("regions", self.region_count().to_string()),
                ("requests", self.total_requests().to_string()),
                ("averageLoad", self.average_load().to_string()),
            ])
        );
        for (name, regions) in &self.nodes {
            out.push_str(&format!(
                "<Node{}>",
                xml::attrs(&[
                    ("name", name.clone()),
                    ("startCode", "0".into()),
                    ("requests", Self::requests(regions).to_string()),
                ])
            ));
            for r in regions {
                out.push_str(&format!(
                    "<Region{}/>",
                    xml::attrs(&[
                        ("name", b64::encode(r.region_name.as_bytes())),
                        ("stores", "1".into()),
                        ("storefiles", r.store_files.to_string()),
                        ("storefileSizeMB", mb(r.store_file_bytes).to_string()),
                        ("memstoreSizeMB", mb(r.memstore_bytes).to_string()),
                        ("readRequestsCount", r.read_requests.to_string()),
                        ("writeRequestsCount", r.write_requests.to_string()),
                    ])
                ));
            }
            out.push_str("</Node>");
        }
        out.push_str("</LiveNodes><DeadNodes/></ClusterStatus>");
        out
    }

    fn protobuf(&self) -> Vec<u8> {
        let clamp = |v: i64| i32::try_from(v).unwrap_or(i32::MAX);
        proto::StorageClusterStatus {
            live_nodes: self
                .nodes
                .iter()
                .map(|(name, regions)| proto::StatusNode {
                    name: name.clone(),
                    start_code: Some(0),
                    requests: Some(Self::requests(regions) as i64),
                    heap_size_mb: Some(0),
                    max_heap_size_mb: Some(0),
                    regions: regions
                        .iter()
                        .map(|r| proto::StatusRegion {
                            name: r.region_name.as_bytes().to_vec(),
                            stores: Some(1),
                            storefiles: Some(clamp(r.store_files as i64)),
                            storefile_size_mb: Some(clamp(mb(r.store_file_bytes))),
                            mem_store_size_mb: Some(clamp(mb(r.memstore_bytes))),
                            read_requests_count: Some(r.read_requests as i64),
                            write_requests_count: Some(r.write_requests as i64),
                        })
                        .collect(),
                })
                .collect(),
            dead_nodes: Vec::new(),
            regions: Some(clamp(self.region_count() as i64)),
            requests: Some(self.total_requests() as i64),
            average_load: Some(self.average_load()),
        }
        .encode_to_vec()
    }

    fn text(&self) -> String {
        let mut out = format!(
            "{} live servers, 0 dead servers, {:.4} average load\n\n{} live servers\n",
            self.nodes.len(),
            self.average_load(),
            self.nodes.len()
        );
        for (name, regions) in &self.nodes {
            out.push_str(&format!(
                "    {name}\n        requests={}, regions={}\n\n",
                Self::requests(regions),
                regions.len()
            ));
            for r in regions {
                out.push_str(&format!(
                    "        {}\n            storefiles={}, storefileSizeMB={}, memstoreSizeMB={}\n",
                    r.region_name,
                    r.store_files,
                    mb(r.store_file_bytes),
                    mb(r.memstore_bytes)
                ));
            }
        }
        out
    }
}
