//! The catalog in memory: namespaces, tables and their regions, kept in step with
//! `hbase:meta` (meta is written first, then this).
//!
//! A region whose files could not be opened stays in the catalog as FAILED_OPEN (its
//! [`RegionEntry::failure`]); routing answers its rows with the failure, so every other
//! region serves. When `hbase:meta` itself failed to open the catalog holds no table and
//! every lookup answers with meta's failure ([`Catalog::meta_failure`]).

use crate::error::{table_disabled, table_not_found};
use crate::health::OpenFailure;
use crate::meta::record::RegionRecord;
use basalt_api::Result;
use basalt_storage::Region;
use basalt_types::{NamespaceDescriptor, TableDescriptor, TableName};
use bytes::Bytes;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

/// A serving region: its record and, while its table is enabled, the open region — or
/// why it could not be opened.
#[derive(Debug, Clone)]
pub struct RegionEntry {
    pub record: RegionRecord,
    pub region: Option<Arc<Region>>,
    /// Set when the last attempt to open it failed (FAILED_OPEN); never written to meta.
    pub failure: Option<Arc<OpenFailure>>,
}

impl RegionEntry {
    /// An entry for a region opened (or not opened: a disabled table) as `region` says.
    pub fn new(record: RegionRecord, region: Option<Arc<Region>>) -> Self {
        Self {
            record,
            region,
            failure: None,
        }
    }

    /// The entry after an attempt to open it: the region, or the failure.
    pub fn opened(
        record: RegionRecord,
        opened: std::result::Result<Arc<Region>, Arc<OpenFailure>>,
    ) -> Self {
        match opened {
            Ok(region) => Self::new(record, Some(region)),
            Err(failure) => Self {
                record,
                region: None,
                failure: Some(failure),
            },
        }
    }
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
    /// Why `hbase:meta` could not be opened or read: then no table is known.
    pub meta_failure: Option<Arc<OpenFailure>>,
    /// A region server's catalog: only the regions opened here; a row of any other region
    /// answers NotServingRegion, so the client asks the master again.
    pub hosting: bool,
}

impl Catalog {
    /// The empty catalog of a region server.
    pub fn hosting() -> Self {
        Self {
            hosting: true,
            ..Self::default()
        }
    }

    pub fn table(&self, name: &TableName) -> Result<&TableEntry> {
        self.tables.get(name).ok_or_else(|| self.not_found(name))
    }

    pub fn table_mut(&mut self, name: &TableName) -> Result<&mut TableEntry> {
        let missing = self.not_found(name);
        self.tables.get_mut(name).ok_or(missing)
    }

    /// What a lookup of a table not in the catalog answers: not found, or, while meta is
    /// failed, meta's failure (the table may well exist).
    fn not_found(&self, name: &TableName) -> basalt_api::ApiError {
        if self.hosting {
            return crate::host::not_serving(&format!(
                "no region of {name} is open on this server"
            ));
        }
        match &self.meta_failure {
            Some(failure) => failure.error(),
            None => table_not_found(name),
        }
    }

    /// Fails with meta's failure while meta is not open.
    pub fn require_meta(&self) -> Result<()> {
        match &self.meta_failure {
            Some(failure) => Err(failure.error()),
            None => Ok(()),
        }
    }

    /// The open region holding `row` of an enabled table.
    pub fn locate(&self, name: &TableName, row: &[u8]) -> Result<Arc<Region>> {
        let table = self.table(name)?;
        if !table.enabled {
            return Err(table_disabled(name));
        }
        let entry = table.region_for(row);
        if let Some(failure) = entry.and_then(|e| e.failure.as_ref()) {
            return Err(failure.error());
        }
        if self.hosting && entry.is_none() {
            return Err(crate::host::not_serving(&format!(
                "no region of {name} holding row {} is open on this server",
                basalt_types::escape::to_string_binary(row)
            )));
        }
        entry.and_then(|e| e.region.clone()).ok_or_else(|| {
            crate::error::io(format!(
                "no open region of {name} holds row {:?}",
                String::from_utf8_lossy(row)
            ))
        })
    }
}
