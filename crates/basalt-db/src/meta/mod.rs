//! `hbase:meta`: the catalog as a table on the engine, scannable like any other.
//!
//! | row | family:qualifier | value |
//! |-----|------------------|-------|
//! | namespace name | `ns:d` | the namespace's properties |
//! | table name (`ns:t`, or `t` in `default`) | `table:state` | `ENABLED` / `DISABLED` |
//! | table name | `table:descriptor` | the table descriptor |
//! | `table,start_key,region_id` | `info:regioninfo` | the region record |
//! | `table,start_key,region_id` | `info:state` | `OPEN`, `SPLITTING`, `SPLIT`, `MERGED` (for people) |
//! | `table,start_key,region_id` | `info:server` | where it is served |
//!
//! Every catalog change is one atomic multi-row mutation of the meta region, so a crash
//! leaves the catalog before or after a change, never half of it.
//!
//! # Layout
//! - [`record`]: a region as the catalog records it.
//! - [`codec`]: the byte forms stored in the cells.
//! - [`folder_info`]: `.tableinfo` and `.regioninfo`, the catalog's fallback in the folders.
//! - [`namespace_info`]: `namespaces/<name>.nsinfo`, namespaces described on the store.

pub mod codec;
pub mod folder_info;
pub mod namespace_info;
pub mod record;

use crate::error::from_storage;
use crate::health::OpenFailure;
use basalt_api::Result;
use basalt_storage::Region;
use basalt_types::{
    Delete, FamilyDescriptor, Mutation, NamespaceDescriptor, Put, RowMutations, Scan,
    TableDescriptor, TableName,
};
use bytes::Bytes;
use record::{RegionRecord, RegionState};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The meta region's fixed encoded name (HBase's, for familiarity).
pub const META_REGION: &str = "1588230740";
/// What standalone mode reports as every region's server.
pub const SERVER_NAME: &str = "localhost,16020";

const NS: &[u8] = b"ns";
const TABLE: &[u8] = b"table";
const INFO: &[u8] = b"info";

pub fn meta_table_name() -> TableName {
    TableName::new("hbase", "meta").expect("hbase:meta is a valid name")
}

pub fn meta_descriptor() -> TableDescriptor {
    let families = [INFO, TABLE, NS]
        .iter()
        .map(|name| {
            let mut f = FamilyDescriptor::new(Bytes::from_static(name)).expect("valid family name");
            f.in_memory = true;
            f
        })
        .collect();
    TableDescriptor::new(meta_table_name(), families)
}

/// The catalog as read from meta at open.
#[derive(Debug, Default)]
pub struct Loaded {
    pub namespaces: BTreeMap<String, NamespaceDescriptor>,
    /// `(descriptor, enabled)`.
    pub tables: BTreeMap<TableName, (TableDescriptor, bool)>,
    pub regions: Vec<RegionRecord>,
}

/// Why meta's rows could not be read.
#[derive(Debug)]
pub enum LoadError {
    /// Reading the meta region failed (a damaged file, an I/O error).
    Storage(basalt_storage::Error),
    /// A row's cell does not decode.
    BadRow(String),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Storage(e) => write!(f, "{e}"),
            Self::BadRow(message) => f.write_str(message),
        }
    }
}

/// Reads and changes `hbase:meta`: the open meta region, or (when it could not be opened or
/// read at start) the failure every change answers with.
#[derive(Debug)]
pub struct Meta {
    region: std::result::Result<Arc<Region>, Arc<OpenFailure>>,
}

impl Meta {
    pub fn new(region: Arc<Region>) -> Self {
        Self { region: Ok(region) }
    }

    /// Meta that failed to open: every change fails with `failure`.
    pub fn failed(failure: Arc<OpenFailure>) -> Self {
        Self {
            region: Err(failure),
        }
    }

    /// The open meta region, or why there is none.
    pub fn region(&self) -> Result<&Arc<Region>> {
        self.region.as_ref().map_err(|f| f.error())
    }

    pub fn load(&self) -> std::result::Result<Loaded, LoadError> {
        let region = match &self.region {
            Ok(region) => region,
            Err(failure) => return Err(LoadError::BadRow(failure.cause.clone())),
        };
        let mut loaded = Loaded::default();
        let scanner = region.scanner(&Scan::new()).map_err(LoadError::Storage)?;
        for row in scanner {
            let row = row.map_err(LoadError::Storage)?;
            let key = row.row_bytes().unwrap_or_default();
            let bad = |what: &str, e: String| {
                LoadError::BadRow(format!("hbase:meta row {key:?}: bad {what}: {e}"))
            };
            if let Some(props) = row.value(NS, b"d") {
                let name = String::from_utf8_lossy(&key).into_owned();
                let properties =
                    codec::decode_properties(props).map_err(|e| bad("namespace", e))?;
                loaded
                    .namespaces
                    .insert(name.clone(), NamespaceDescriptor { name, properties });
            }
            if let Some(descriptor) = row.value(TABLE, b"descriptor") {
                let descriptor =
                    codec::decode_table(descriptor).map_err(|e| bad("table descriptor", e))?;
                let enabled = row.value(TABLE, b"state").is_none_or(|s| s == b"ENABLED");
                loaded
                    .tables
                    .insert(descriptor.name.clone(), (descriptor, enabled));
            }
            if let Some(info) = row.value(INFO, b"regioninfo") {
                loaded
                    .regions
                    .push(codec::decode_region(info).map_err(|e| bad("region record", e))?);
            }
        }
        Ok(loaded)
    }

    /// Applies every change at once.
    pub fn commit(&self, changes: Vec<RowMutations>) -> Result<()> {
        if changes.is_empty() {
            return Ok(());
        }
        self.region()?.mutate_rows(&changes).map_err(from_storage)
    }
}

/// Meta's own catalog record (its table is a table like the others for readers).
pub fn meta_record() -> RegionRecord {
    let mut record = RegionRecord::new(
        meta_table_name(),
        0,
        Bytes::new(),
        Bytes::new(),
        RegionState::Open,
    );
    record.encoded_name = META_REGION.to_string();
    record
}

fn row_mutation(row: Bytes, mutation: Mutation) -> RowMutations {
    RowMutations {
        row,
        mutations: vec![mutation],
    }
}

pub fn put_namespace(ns: &NamespaceDescriptor) -> RowMutations {
    let row = Bytes::from(ns.name.clone());
    let put = Put::new(row.clone()).add(
        Bytes::from_static(NS),
        "d",
        codec::encode_properties(&ns.properties),
    );
    row_mutation(row, Mutation::Put(put))
}

pub fn delete_namespace(name: &str) -> RowMutations {
    let row = Bytes::from(name.to_string());
    row_mutation(
        row.clone(),
        Mutation::Delete(Delete::new(row).family(Bytes::from_static(NS))),
    )
}

pub fn put_table(descriptor: &TableDescriptor, enabled: bool) -> RowMutations {
    let row = Bytes::from(descriptor.name.to_string());
    let state = if enabled { "ENABLED" } else { "DISABLED" };
    let put = Put::new(row.clone())
        .add(Bytes::from_static(TABLE), "state", state)
        .add(
            Bytes::from_static(TABLE),
            "descriptor",
            codec::encode_table(descriptor),
        );
    row_mutation(row, Mutation::Put(put))
}

pub fn delete_table(name: &TableName) -> RowMutations {
    let row = Bytes::from(name.to_string());
    row_mutation(
        row.clone(),
        Mutation::Delete(Delete::new(row).family(Bytes::from_static(TABLE))),
    )
}

pub fn put_region(record: &RegionRecord) -> RowMutations {
    let row = record.meta_row();
    let state = match record.state {
        RegionState::Open => "OPEN",
        RegionState::Splitting => "SPLITTING",
        RegionState::Split { .. } => "SPLIT",
        RegionState::Merged { .. } => "MERGED",
    };
    let put = Put::new(row.clone())
        .add(
            Bytes::from_static(INFO),
            "regioninfo",
            codec::encode_region(record),
        )
        .add(Bytes::from_static(INFO), "state", state)
        .add(Bytes::from_static(INFO), "server", SERVER_NAME);
    row_mutation(row, Mutation::Put(put))
}

pub fn delete_region(record: &RegionRecord) -> RowMutations {
    let row = record.meta_row();
    row_mutation(
        row.clone(),
        Mutation::Delete(Delete::new(row).family(Bytes::from_static(INFO))),
    )
}
