//! The catalog in memory: namespaces, tables and their regions, kept in step with
//! `hbase:meta` (meta is written first, then this).

use crate::error::{table_disabled, table_not_found};
use crate::meta::record::RegionRecord;
use basalt_api::Result;
use basalt_storage::Region;
use basalt_types::{NamespaceDescriptor, TableDescriptor, TableName};
use bytes::Bytes;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

/// A serving region: its record and, while its table is enabled, the open region.
#[derive(Debug, Clone)]
pub struct RegionEntry {
    pub record: RegionRecord,
    pub region: Option<Arc<Region>>,
}

#[derive(Debug, Clone)]
pub struct TableEntry {
    pub descriptor: Arc<TableDescriptor>,
    pub enabled: bool,
    /// Serving regions by start key; together they cover every row.
    pub regions: BTreeMap<Bytes, RegionEntry>,
    /// Split or merged regions kept until nothing refers to their files.
    pub retired: Vec<RegionRecord>,
}

impl TableEntry {
    /// The serving region holding `row`.
    pub fn region_for(&self, row: &[u8]) -> Option<&RegionEntry> {
        self.regions
            .range::<[u8], _>((Bound::Unbounded, Bound::Included(row)))
            .next_back()
            .map(|(_, e)| e)
            .filter(|e| e.record.contains_row(row))
    }

    /// The region after the one ending at `end_key` (forwards).
    pub fn region_starting_at(&self, end_key: &[u8]) -> Option<&RegionEntry> {
        self.region_for(end_key)
    }

    /// The region before the one starting at `start_key` (reversed).
    pub fn region_ending_at(&self, start_key: &[u8]) -> Option<&RegionEntry> {
        self.regions
            .range::<[u8], _>((Bound::Unbounded, Bound::Excluded(start_key)))
            .next_back()
            .map(|(_, e)| e)
    }
}

#[derive(Debug, Default)]
pub struct Catalog {
    pub namespaces: BTreeMap<String, NamespaceDescriptor>,
    pub tables: BTreeMap<TableName, TableEntry>,
}

impl Catalog {
    pub fn table(&self, name: &TableName) -> Result<&TableEntry> {
        self.tables.get(name).ok_or_else(|| table_not_found(name))
    }

    pub fn table_mut(&mut self, name: &TableName) -> Result<&mut TableEntry> {
        self.tables
            .get_mut(name)
            .ok_or_else(|| table_not_found(name))
    }

    /// The open region holding `row` of an enabled table.
    pub fn locate(&self, name: &TableName, row: &[u8]) -> Result<Arc<Region>> {
        let table = self.table(name)?;
        if !table.enabled {
            return Err(table_disabled(name));
        }
        table
            .region_for(row)
            .and_then(|e| e.region.clone())
            .ok_or_else(|| {
                crate::error::io(format!(
                    "no open region of {name} holds row {:?}",
                    String::from_utf8_lossy(row)
                ))
            })
    }
}
