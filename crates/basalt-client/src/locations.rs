//! The region-location cache: which region (and server) holds a row, remembered per table
//! so that single-row calls name their region without asking the catalog each time.
//!
//! Entries are keyed by region start key; a row's region is the entry with the greatest
//! start key ≤ the row, if its range holds the row:
//!
//! | cached regions (start..end) | row  | answer             |
//! |-----------------------------|------|--------------------|
//! | `""..b`, `b..m`, `m..""`    | `c`  | `b..m`             |
//! | `""..b`, `m..""`            | `c`  | none: ask the server |
//!
//! A server answers a call naming a region it no longer holds for that row (after a split,
//! a merge, a move) with "retry elsewhere"; the caller then [`forget`](LocationCache::forget)s
//! the entry and locates the row again. Inserting a region drops every cached entry it
//! overlaps, so stale parents never shadow their daughters. The cache is bounded: past
//! `entries_max` a table's entries are dropped wholesale.

use basalt_api::RegionLocation;
use basalt_types::TableName;
use bytes::Bytes;
use parking_lot::RwLock;
use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};

/// How the cache has fared, for tests and diagnostics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LocationStats {
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that had to ask the server.
    pub misses: u64,
    /// Entries dropped because a server said the region was elsewhere.
    pub invalidations: u64,
}

pub(crate) struct LocationCache {
    tables: RwLock<HashMap<TableName, BTreeMap<Bytes, RegionLocation>>>,
    entries_max: usize,
    hits: AtomicU64,
    misses: AtomicU64,
    invalidations: AtomicU64,
}

impl LocationCache {
    pub(crate) fn new(entries_max: usize) -> Self {
        Self {
            tables: RwLock::new(HashMap::new()),
            entries_max: entries_max.max(1),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            invalidations: AtomicU64::new(0),
        }
    }

    /// The cached region holding `row`, counting a hit or a miss.
    pub(crate) fn get(&self, table: &TableName, row: &[u8]) -> Option<RegionLocation> {
        let found = self
            .tables
            .read()
            .get(table)
            .and_then(|regions| holder(regions, row))
            .cloned();
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Remembers `location`, dropping the cached regions it overlaps.
    pub(crate) fn insert(&self, table: &TableName, location: RegionLocation) {
        let mut tables = self.tables.write();
        let total: usize = tables.values().map(BTreeMap::len).sum();
        if total >= self.entries_max {
            tables.clear();
        }
        let regions = tables.entry(table.clone()).or_default();
        let overlapping: Vec<Bytes> = regions
            .values()
            .filter(|r| overlaps(r, &location))
            .map(|r| r.start_key.clone())
            .collect();
        for start in overlapping {
            regions.remove(&start);
        }
        regions.insert(location.start_key.clone(), location);
    }

    /// Drops the cached region holding `row` (a server said it is not there).
    pub(crate) fn forget(&self, table: &TableName, row: &[u8]) {
        let mut tables = self.tables.write();
        let Some(regions) = tables.get_mut(table) else {
            return;
        };
        if let Some(start) = holder(regions, row).map(|r| r.start_key.clone()) {
            regions.remove(&start);
            self.invalidations.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Drops everything known about `table` (it was dropped, truncated or altered).
    pub(crate) fn forget_table(&self, table: &TableName) {
        self.tables.write().remove(table);
    }

    pub(crate) fn stats(&self) -> LocationStats {
        LocationStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            invalidations: self.invalidations.load(Ordering::Relaxed),
        }
    }
}

fn holder<'a>(
    regions: &'a BTreeMap<Bytes, RegionLocation>,
    row: &[u8],
) -> Option<&'a RegionLocation> {
    regions
        .range::<[u8], _>((Bound::Unbounded, Bound::Included(row)))
        .next_back()
        .map(|(_, r)| r)
        .filter(|r| r.contains(row))
}

/// Whether two key ranges (`end` empty = unbounded) share a row.
fn overlaps(a: &RegionLocation, b: &RegionLocation) -> bool {
    let a_before_b_ends = b.end_key.is_empty() || a.start_key < b.end_key;
    let b_before_a_ends = a.end_key.is_empty() || b.start_key < a.end_key;
    a_before_b_ends && b_before_a_ends
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(name: &str, start: &str, end: &str) -> RegionLocation {
        RegionLocation {
            region_name: name.to_string(),
            start_key: Bytes::copy_from_slice(start.as_bytes()),
            end_key: Bytes::copy_from_slice(end.as_bytes()),
            server: "s1".to_string(),
        }
    }

    fn table() -> TableName {
        TableName::parse("t").expect("a valid name")
    }

    fn name_for(cache: &LocationCache, row: &str) -> Option<String> {
        cache.get(&table(), row.as_bytes()).map(|l| l.region_name)
    }

    #[test]
    fn finds_the_region_whose_range_holds_the_row() {
        let cache = LocationCache::new(100);
        cache.insert(&table(), loc("a", "", "b"));
        cache.insert(&table(), loc("c", "m", ""));
        assert_eq!(name_for(&cache, "a").as_deref(), Some("a"));
        assert_eq!(name_for(&cache, "c"), None, "no cached region holds c");
        assert_eq!(name_for(&cache, "m").as_deref(), Some("c"));
        assert_eq!(name_for(&cache, "zz").as_deref(), Some("c"));
        let stats = cache.stats();
        assert_eq!((stats.hits, stats.misses), (3, 1));
    }

    #[test]
    fn daughters_replace_their_parent_and_forget_drops_one_entry() {
        let cache = LocationCache::new(100);
        cache.insert(&table(), loc("parent", "", ""));
        cache.insert(&table(), loc("lower", "", "k"));
        assert_eq!(
            name_for(&cache, "z"),
            None,
            "the parent overlapped and went"
        );
        cache.insert(&table(), loc("upper", "k", ""));
        assert_eq!(name_for(&cache, "a").as_deref(), Some("lower"));
        assert_eq!(name_for(&cache, "z").as_deref(), Some("upper"));
        cache.forget(&table(), b"z");
        assert_eq!(name_for(&cache, "z"), None);
        assert_eq!(name_for(&cache, "a").as_deref(), Some("lower"));
        assert_eq!(cache.stats().invalidations, 1);
        cache.forget_table(&table());
        assert_eq!(name_for(&cache, "a"), None);
    }

    #[test]
    fn the_cache_stays_within_its_bound() {
        let cache = LocationCache::new(4);
        for i in 0..10u8 {
            let start = format!("{i}");
            let end = format!("{i}~");
            cache.insert(&table(), loc(&start, &start, &end));
            let total: usize = cache.tables.read().values().map(BTreeMap::len).sum();
            assert!(total <= 4, "{total} entries");
        }
        assert_eq!(name_for(&cache, "9x").as_deref(), Some("9"));
    }
}
