//! The cluster's catalog in the master's memory, loaded from the coordinator and changed
//! by writing the coordinator first (a guarded transaction), then this.
//!
//! The catalog's values use the same encodings as `hbase:meta` in standalone (region
//! records, table descriptors, property maps: `basalt_db::meta::codec`), so a standalone
//! folder's catalog moves into a cluster unchanged.

use basalt_api::{ApiError, Result};
use basalt_coord::{layout, Coordinator, Op};
use basalt_db::meta::codec;
use basalt_db::meta::record::{RegionRecord, RegionState};
use basalt_types::{NamespaceDescriptor, TableDescriptor, TableName};
use std::collections::{BTreeMap, HashMap};

/// Where a region is in its assignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssignState {
    /// Not on any server (new, disabled table, or its server stopped): the next assignment
    /// opens it.
    Offline,
    /// Closed on purpose (`unassign`): it stays closed, whatever the balancer or a new
    /// master does, until `assign` or enabling its table.
    Closed,
    Opening,
    Open,
    Closing,
    /// Its server failed to open it.
    FailedOpen,
    /// Its server died holding it: it waits for its log to be replayed before it opens
    /// elsewhere (never opened without its unflushed edits).
    Crashed,
}

impl AssignState {
    pub fn name(self) -> &'static str {
        match self {
            Self::Offline => "OFFLINE",
            Self::Closed => "CLOSED",
            Self::Opening => "OPENING",
            Self::Open => "OPEN",
            Self::Closing => "CLOSING",
            Self::FailedOpen => "FAILED_OPEN",
            Self::Crashed => "CRASHED",
        }
    }

    fn parse(name: &str) -> Self {
        match name {
            "CLOSED" => Self::Closed,
            "OPENING" => Self::Opening,
            "OPEN" => Self::Open,
            "CLOSING" => Self::Closing,
            "FAILED_OPEN" => Self::FailedOpen,
            "CRASHED" => Self::Crashed,
            _ => Self::Offline,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    pub server: Option<String>,
    /// Bumped at every open: names one opening of the region.
    pub open_seq: u64,
    pub state: AssignState,
    pub failure: Option<String>,
    /// Dead servers whose logs may hold edits of this region not flushed anywhere: the
    /// next open reads them first (and flushes) before the region serves. Cleared only
    /// when an open succeeds; kept through failures, closes and master failovers.
    pub recover_from: Vec<String>,
}

/// Separates the server names of `recover_from` (a server name holds commas).
const RECOVER_SEPARATOR: char = ';';

impl Default for Assignment {
    fn default() -> Self {
        Self {
            server: None,
            open_seq: 0,
            state: AssignState::Offline,
            failure: None,
            recover_from: Vec::new(),
        }
    }
}

impl Assignment {
    fn encode(&self) -> Vec<u8> {
        let mut props = BTreeMap::new();
        if let Some(server) = &self.server {
            props.insert("server".to_string(), server.clone());
        }
        props.insert("open_seq".to_string(), self.open_seq.to_string());
        props.insert("state".to_string(), self.state.name().to_string());
        if let Some(failure) = &self.failure {
            props.insert("failure".to_string(), failure.clone());
        }
        if !self.recover_from.is_empty() {
            let joined = self.recover_from.join(&RECOVER_SEPARATOR.to_string());
            props.insert("recover_from".to_string(), joined);
        }
        codec::encode_properties(&props)
    }

    fn decode(bytes: &[u8]) -> std::result::Result<Self, String> {
        let props = codec::decode_properties(bytes)?;
        let mut decoded = Self::decode_props(&props);
        // Written before `recover_from` existed: a CRASHED region's log is its server's.
        if decoded.state == AssignState::Crashed && !props.contains_key("recover_from") {
            decoded.recover_from.extend(decoded.server.clone());
        }
        Ok(decoded)
    }

    fn decode_props(props: &BTreeMap<String, String>) -> Self {
        Self {
            server: props.get("server").cloned(),
            open_seq: props
                .get("open_seq")
                .and_then(|s| s.parse().ok())
                .unwrap_or(0),
            state: AssignState::parse(props.get("state").map_or("", String::as_str)),
            failure: props.get("failure").cloned(),
            recover_from: props.get("recover_from").map_or_else(Vec::new, |joined| {
                joined
                    .split(RECOVER_SEPARATOR)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect()
            }),
        }
    }
}

#[derive(Debug, Clone)]
pub struct TableState {
    pub descriptor: TableDescriptor,
    pub enabled: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub namespaces: BTreeMap<String, NamespaceDescriptor>,
    pub tables: BTreeMap<TableName, TableState>,
    /// Every region record by encoded name, serving or retired (split/merged).
    pub regions: BTreeMap<String, RegionRecord>,
    /// Ordered, so that every pass over it (reconciliation, a dead server's regions) goes
    /// in the same order on every run.
    pub assign: BTreeMap<String, Assignment>,
}

fn bad(what: &str, key: &[u8], e: impl std::fmt::Display) -> ApiError {
    ApiError::new(
        basalt_api::ErrorKind::DataCorruption,
        "org.apache.hadoop.hbase.exceptions.DeserializationException",
        format!(
            "catalog key {}: bad {what}: {e}",
            String::from_utf8_lossy(key)
        ),
    )
}

impl Catalog {
    /// Reads the whole catalog from the coordinator.
    pub async fn load(coord: &dyn Coordinator) -> Result<Catalog> {
        let mut catalog = Catalog::default();
        let list = |prefix: &'static str| async move {
            coord
                .list(prefix.as_bytes())
                .await
                .map_err(|e| crate::error::coordinator(&e))
        };
        for kv in list(layout::NAMESPACES).await?.kvs {
            let name = layout::name_under(&kv.key, layout::NAMESPACES).unwrap_or_default();
            let properties =
                codec::decode_properties(&kv.value).map_err(|e| bad("namespace", &kv.key, e))?;
            catalog.namespaces.insert(
                name.to_string(),
                NamespaceDescriptor {
                    name: name.to_string(),
                    properties,
                },
            );
        }
        let states: HashMap<String, bool> = list(layout::TABLE_STATE)
            .await?
            .kvs
            .into_iter()
            .filter_map(|kv| {
                let name = layout::name_under(&kv.key, layout::TABLE_STATE)?.to_string();
                Some((name, kv.value != b"DISABLED"))
            })
            .collect();
        for kv in list(layout::TABLES).await?.kvs {
            let descriptor =
                codec::decode_table(&kv.value).map_err(|e| bad("table", &kv.key, e))?;
            let enabled = states
                .get(&descriptor.name.to_string())
                .copied()
                .unwrap_or(true);
            catalog.tables.insert(
                descriptor.name.clone(),
                TableState {
                    descriptor,
                    enabled,
                },
            );
        }
        for kv in list(layout::REGIONS).await?.kvs {
            let record = codec::decode_region(&kv.value).map_err(|e| bad("region", &kv.key, e))?;
            catalog.regions.insert(record.encoded_name.clone(), record);
        }
        for kv in list(layout::ASSIGN).await?.kvs {
            let name = layout::name_under(&kv.key, layout::ASSIGN)
                .unwrap_or_default()
                .to_string();
            let assignment =
                Assignment::decode(&kv.value).map_err(|e| bad("assignment", &kv.key, e))?;
            catalog.assign.insert(name, assignment);
        }
        Ok(catalog)
    }

    pub fn table(&self, name: &TableName) -> Result<&TableState> {
        self.tables
            .get(name)
            .ok_or_else(|| crate::error::table_not_found(name))
    }

    /// The serving regions of `table`, by start key.
    pub fn serving(&self, table: &TableName) -> Vec<&RegionRecord> {
        let mut regions: Vec<&RegionRecord> = self
            .regions
            .values()
            .filter(|r| &r.table == table && r.is_serving())
            .collect();
        regions.sort_by(|a, b| a.start_key.cmp(&b.start_key));
        regions
    }

    /// Retired regions (split or merged away) of `table`.
    pub fn retired(&self, table: &TableName) -> Vec<&RegionRecord> {
        self.regions
            .values()
            .filter(|r| &r.table == table && !r.is_serving())
            .collect()
    }

    /// The serving region of `table` holding `row`.
    pub fn region_for(&self, table: &TableName, row: &[u8]) -> Option<&RegionRecord> {
        self.regions
            .values()
            .filter(|r| &r.table == table && r.is_serving() && r.contains_row(row))
            .max_by(|a, b| a.start_key.cmp(&b.start_key))
    }

    pub fn assignment(&self, encoded: &str) -> Assignment {
        self.assign.get(encoded).cloned().unwrap_or_default()
    }

    /// Regions each server holds (open or opening).
    pub fn regions_on(&self, server: &str) -> Vec<String> {
        let mut names: Vec<String> = self
            .assign
            .iter()
            .filter(|(_, a)| a.server.as_deref() == Some(server))
            .map(|(name, _)| name.clone())
            .collect();
        names.sort();
        names
    }

    /// Finds a region by encoded name or full region name.
    pub fn find(&self, name: &str) -> Result<&RegionRecord> {
        let encoded = basalt_types::name::encoded_region_name(name);
        self.regions.get(encoded).ok_or_else(|| {
            ApiError::new(
                basalt_api::ErrorKind::NotFound,
                "org.apache.hadoop.hbase.UnknownRegionException",
                name.to_string(),
            )
        })
    }
}

/// The coordinator changes for the catalog's values.
pub mod ops {
    use super::*;

    pub fn put_namespace(ns: &NamespaceDescriptor) -> Op {
        Op::put(
            layout::namespace(&ns.name),
            codec::encode_properties(&ns.properties),
        )
    }
    pub fn delete_namespace(name: &str) -> Op {
        Op::delete(layout::namespace(name))
    }
    pub fn put_table(descriptor: &TableDescriptor) -> Op {
        Op::put(
            layout::table(&descriptor.name.to_string()),
            codec::encode_table(descriptor),
        )
    }
    pub fn table_state(name: &TableName, enabled: bool) -> Op {
        let state: &[u8] = if enabled { b"ENABLED" } else { b"DISABLED" };
        Op::put(layout::table_state(&name.to_string()), state.to_vec())
    }
    pub fn delete_table(name: &TableName) -> Vec<Op> {
        vec![
            Op::delete(layout::table(&name.to_string())),
            Op::delete(layout::table_state(&name.to_string())),
        ]
    }
    pub fn put_region(record: &RegionRecord) -> Op {
        Op::put(
            layout::region(&record.encoded_name),
            codec::encode_region(record),
        )
    }
    pub fn delete_region(encoded: &str) -> Vec<Op> {
        vec![
            Op::delete(layout::region(encoded)),
            Op::delete(layout::assign(encoded)),
        ]
    }
    pub fn put_assignment(encoded: &str, assignment: &Assignment) -> Op {
        Op::put(layout::assign(encoded), assignment.encode())
    }
}

/// A region record in the state a new region starts in.
pub fn new_record(
    table: &TableName,
    id: u64,
    start: bytes::Bytes,
    end: bytes::Bytes,
) -> RegionRecord {
    RegionRecord::new(table.clone(), id, start, end, RegionState::Open)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignments_round_trip() {
        let a = Assignment {
            server: Some("h,1,2".into()),
            open_seq: 7,
            state: AssignState::Open,
            failure: None,
            recover_from: Vec::new(),
        };
        assert_eq!(Assignment::decode(&a.encode()).expect("decodes"), a);
        let crashed = Assignment {
            state: AssignState::Crashed,
            recover_from: vec!["h,1,2".into(), "g,3,4".into()],
            ..a
        };
        assert_eq!(
            Assignment::decode(&crashed.encode()).expect("decodes"),
            crashed
        );
        // A CRASHED record from before `recover_from`: its server's log is the one to read.
        let mut old = BTreeMap::new();
        old.insert("server".to_string(), "h,1,2".to_string());
        old.insert("state".to_string(), "CRASHED".to_string());
        let decoded = Assignment::decode(&codec::encode_properties(&old)).expect("decodes");
        assert_eq!(decoded.recover_from, vec!["h,1,2".to_string()]);
    }
}
