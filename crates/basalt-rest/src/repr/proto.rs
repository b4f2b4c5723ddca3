//! HBase REST's protobuf messages (`hbase-rest/src/main/protobuf/*.proto`, proto2), written
//! by hand with HBase's field numbers so that HBase clients decode them unchanged.

use crate::error::{RestError, Result};
use prost::Message;

/// `CellMessage.proto`. `row` is unused inside a cell set; `timestamp` is left out for
/// cells at `LATEST_TIMESTAMP`.
#[derive(Clone, PartialEq, Message)]
pub struct Cell {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub row: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub column: Option<Vec<u8>>,
    #[prost(int64, optional, tag = "3")]
    pub timestamp: Option<i64>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub data: Option<Vec<u8>>,
}

/// `CellSetMessage.proto`: `CellSet.Row`.
#[derive(Clone, PartialEq, Message)]
pub struct CellSetRow {
    #[prost(bytes = "vec", required, tag = "1")]
    pub key: Vec<u8>,
    #[prost(message, repeated, tag = "2")]
    pub values: Vec<Cell>,
}

/// `CellSetMessage.proto`.
#[derive(Clone, PartialEq, Message)]
pub struct CellSet {
    #[prost(message, repeated, tag = "1")]
    pub rows: Vec<CellSetRow>,
}

/// `ScannerMessage.proto`.
#[derive(Clone, PartialEq, Message)]
pub struct Scanner {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub start_row: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub end_row: Option<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "3")]
    pub columns: Vec<Vec<u8>>,
    #[prost(int32, optional, tag = "4")]
    pub batch: Option<i32>,
    #[prost(int64, optional, tag = "5")]
    pub start_time: Option<i64>,
    #[prost(int64, optional, tag = "6")]
    pub end_time: Option<i64>,
    #[prost(int32, optional, tag = "7")]
    pub max_versions: Option<i32>,
    #[prost(string, optional, tag = "8")]
    pub filter: Option<String>,
    #[prost(int32, optional, tag = "9")]
    pub caching: Option<i32>,
    #[prost(string, repeated, tag = "10")]
    pub labels: Vec<String>,
    #[prost(bool, optional, tag = "11")]
    pub cache_blocks: Option<bool>,
    #[prost(int32, optional, tag = "12")]
    pub limit: Option<i32>,
}

/// `name`/`value` attribute pairs of table and column schemas.
#[derive(Clone, PartialEq, Message)]
pub struct Attribute {
    #[prost(string, required, tag = "1")]
    pub name: String,
    #[prost(string, required, tag = "2")]
    pub value: String,
}

/// `ColumnSchemaMessage.proto`.
#[derive(Clone, PartialEq, Message)]
pub struct ColumnSchema {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(message, repeated, tag = "2")]
    pub attrs: Vec<Attribute>,
    #[prost(int32, optional, tag = "3")]
    pub ttl: Option<i32>,
    #[prost(int32, optional, tag = "4")]
    pub max_versions: Option<i32>,
    #[prost(string, optional, tag = "5")]
    pub compression: Option<String>,
}

/// `TableSchemaMessage.proto`.
#[derive(Clone, PartialEq, Message)]
pub struct TableSchema {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(message, repeated, tag = "2")]
    pub attrs: Vec<Attribute>,
    #[prost(message, repeated, tag = "3")]
    pub columns: Vec<ColumnSchema>,
    #[prost(bool, optional, tag = "4")]
    pub in_memory: Option<bool>,
    #[prost(bool, optional, tag = "5")]
    pub read_only: Option<bool>,
}

/// `VersionMessage.proto`.
#[derive(Clone, PartialEq, Message)]
pub struct Version {
    #[prost(string, optional, tag = "1")]
    pub rest_version: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub jvm_version: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub os_version: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub server_version: Option<String>,
    #[prost(string, optional, tag = "5")]
    pub jersey_version: Option<String>,
}

/// `TableListMessage.proto`.
#[derive(Clone, PartialEq, Message)]
pub struct TableList {
    #[prost(string, repeated, tag = "1")]
    pub name: Vec<String>,
}

/// `TableInfoMessage.proto`: `TableInfo.Region`.
#[derive(Clone, PartialEq, Message)]
pub struct TableInfoRegion {
    #[prost(string, required, tag = "1")]
    pub name: String,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub start_key: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub end_key: Option<Vec<u8>>,
    #[prost(int64, optional, tag = "4")]
    pub id: Option<i64>,
    #[prost(string, optional, tag = "5")]
    pub location: Option<String>,
}

/// `TableInfoMessage.proto`.
#[derive(Clone, PartialEq, Message)]
pub struct TableInfo {
    #[prost(string, required, tag = "1")]
    pub name: String,
    #[prost(message, repeated, tag = "2")]
    pub regions: Vec<TableInfoRegion>,
}

/// `StorageClusterStatusMessage.proto`: `StorageClusterStatus.Region`.
#[derive(Clone, PartialEq, Message)]
pub struct StatusRegion {
    #[prost(bytes = "vec", required, tag = "1")]
    pub name: Vec<u8>,
    #[prost(int32, optional, tag = "2")]
    pub stores: Option<i32>,
    #[prost(int32, optional, tag = "3")]
    pub storefiles: Option<i32>,
    #[prost(int32, optional, tag = "4")]
    pub storefile_size_mb: Option<i32>,
    #[prost(int32, optional, tag = "5")]
    pub mem_store_size_mb: Option<i32>,
    #[prost(int64, optional, tag = "7")]
    pub read_requests_count: Option<i64>,
    #[prost(int64, optional, tag = "8")]
    pub write_requests_count: Option<i64>,
}

/// `StorageClusterStatusMessage.proto`: `StorageClusterStatus.Node`.
#[derive(Clone, PartialEq, Message)]
pub struct StatusNode {
    #[prost(string, required, tag = "1")]
    pub name: String,
    #[prost(int64, optional, tag = "2")]
    pub start_code: Option<i64>,
    #[prost(int64, optional, tag = "3")]
    pub requests: Option<i64>,
    #[prost(int32, optional, tag = "4")]
    pub heap_size_mb: Option<i32>,
    #[prost(int32, optional, tag = "5")]
    pub max_heap_size_mb: Option<i32>,
    #[prost(message, repeated, tag = "6")]
    pub regions: Vec<StatusRegion>,
}

/// `StorageClusterStatusMessage.proto`.
#[derive(Clone, PartialEq, Message)]
pub struct StorageClusterStatus {
    #[prost(message, repeated, tag = "1")]
    pub live_nodes: Vec<StatusNode>,
    #[prost(string, repeated, tag = "2")]
    pub dead_nodes: Vec<String>,
    #[prost(int32, optional, tag = "3")]
    pub regions: Option<i32>,
    #[prost(int64, optional, tag = "4")]
    pub requests: Option<i64>,
    #[prost(double, optional, tag = "5")]
    pub average_load: Option<f64>,
}

/// `NamespacesMessage.proto`.
#[derive(Clone, PartialEq, Message)]
pub struct Namespaces {
    #[prost(string, repeated, tag = "1")]
    pub namespace: Vec<String>,
}

/// `NamespacePropertiesMessage.proto`: `NamespaceProperties.Property`.
#[derive(Clone, PartialEq, Message)]
pub struct Property {
    #[prost(string, required, tag = "1")]
    pub key: String,
    #[prost(string, required, tag = "2")]
    pub value: String,
}

/// `NamespacePropertiesMessage.proto`.
#[derive(Clone, PartialEq, Message)]
pub struct NamespaceProperties {
    #[prost(message, repeated, tag = "1")]
    pub props: Vec<Property>,
}

/// Decodes a protobuf body, naming the model on failure.
pub fn decode<M: Message + Default>(body: &[u8], model: &str) -> Result<M> {
    M::decode(body).map_err(|e| RestError::bad(format!("malformed protobuf {model}: {e}")))
}
