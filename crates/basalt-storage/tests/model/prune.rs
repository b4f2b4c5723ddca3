//! HBase's flush and compaction rules, cell by cell over one family's sorted cells.
//!
//! Flushes and minor compactions keep delete markers and drop what they mask (unless
//! KEEP_DELETED_CELLS); major compactions also drop markers (unless KEEP_DELETED_CELLS, or
//! TTL with the marker unexpired). Versions beyond VERSIONS and TTL-expired cells beyond
//! MIN_VERSIONS go. "Skip the rest of the column" drops every later cell of the column,
//! markers included, as HBase's seek to the next column does.

use basalt_types::{Cell, CellType, FamilyDescriptor, KeepDeletedCells};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Flush,
    Minor,
    Major,
}

pub fn oldest_unexpired(family: &FamilyDescriptor, now_ms: i64) -> i64 {
    family
        .ttl_ms()
        .map_or(i64::MIN, |ttl| now_ms.saturating_sub(ttl as i64))
}

pub fn cell_ttl_expired(cell: &Cell, now_ms: i64) -> bool {
    cell.ttl_ms()
        .is_some_and(|ttl| cell.timestamp().saturating_add(ttl as i64) < now_ms)
}

/// Markers seen so far in a row, with set semantics.
#[derive(Debug, Default)]
pub struct Markers {
    family_max: Option<i64>,
    family_versions: Vec<i64>,
    /// `(qualifier, DeleteColumn max)`.
    columns: Vec<(bytes::Bytes, i64)>,
    /// `(qualifier, exact ts)`.
    versions: Vec<(bytes::Bytes, i64)>,
}

/// How a put is masked.
#[derive(Debug, PartialEq, Eq)]
pub enum Masked {
    No,
    /// By a DeleteFamily or DeleteColumn: everything older in the column is masked too.
    Range,
    /// By a Delete or DeleteFamilyVersion at exactly its timestamp.
    Exact,
}

impl Markers {
    pub fn add(&mut self, marker: &Cell) {
        let ts = marker.timestamp();
        match marker.cell_type() {
            CellType::DeleteFamily => {
                self.family_max = Some(self.family_max.map_or(ts, |m| m.max(ts)))
            }
            CellType::DeleteFamilyVersion => self.family_versions.push(ts),
            CellType::DeleteColumn => self.columns.push((marker.qualifier_bytes(), ts)),
            CellType::Delete => self.versions.push((marker.qualifier_bytes(), ts)),
            _ => {}
        }
    }

    pub fn masks(&self, put: &Cell) -> Masked {
        let ts = put.timestamp();
        if self.family_max.is_some_and(|m| ts <= m) {
            return Masked::Range;
        }
        if self
            .columns
            .iter()
            .any(|(q, m)| *q == put.qualifier() && ts <= *m)
        {
            return Masked::Range;
        }
        if self.family_versions.contains(&ts)
            || self
                .versions
                .iter()
                .any(|(q, m)| *q == put.qualifier() && ts == *m)
        {
            return Masked::Exact;
        }
        Masked::No
    }
}

/// The cells of `cells` (one family, sorted) that survive `kind`.
pub fn prune(cells: &[Cell], family: &FamilyDescriptor, kind: Kind, now_ms: i64) -> Vec<Cell> {
    let oldest = oldest_unexpired(family, now_ms);
    let expired = |ts: i64| ts < oldest;
    let mut kept = Vec::new();
    for row in cells.chunk_by(|a, b| a.row() == b.row()) {
        let mut markers = Markers::default();
        for column in row.chunk_by(|a, b| a.qualifier() == b.qualifier()) {
            // "Skip the rest of the column" drops every later cell of it — except in the
            // empty-qualifier column, where HBase steps cell by cell because DeleteFamily
            // markers live there: later puts still go, later markers are still judged.
            let steps = column[0].qualifier().is_empty();
            let mut done = false;
            let mut count = 0u32;
            let mut previous: Option<(i64, CellType)> = None;
            for cell in column {
                if family.min_versions == 0 && expired(cell.timestamp()) {
                    break;
                }
                if cell.is_delete() {
                    let tracked = match family.keep_deleted_cells {
                        KeepDeletedCells::False => true,
                        KeepDeletedCells::Ttl => expired(cell.timestamp()),
                        KeepDeletedCells::True => false,
                    };
                    if tracked {
                        markers.add(cell);
                    }
                    if kind != Kind::Major {
                        kept.push(cell.clone());
                        continue;
                    }
                    if tracked || previous == Some((cell.timestamp(), cell.cell_type())) {
                        continue; // dropped by the major compaction
                    }
                    // A kept marker goes through the version check without counting.
                    if count > family.max_versions
                        || (count > family.min_versions && expired(cell.timestamp()))
                    {
                        if steps {
                            continue;
                        }
                        break;
                    }
                    previous = Some((cell.timestamp(), cell.cell_type()));
                    kept.push(cell.clone());
                    continue;
                }
                if done || cell_ttl_expired(cell, now_ms) {
                    continue;
                }
                match markers.masks(cell) {
                    Masked::Range if steps => continue,
                    Masked::Range => break,
                    Masked::Exact => continue,
                    Masked::No => {}
                }
                if previous == Some((cell.timestamp(), cell.cell_type())) {
                    continue;
                }
                count += 1;
                if count > family.max_versions
                    || (count > family.min_versions && expired(cell.timestamp()))
                {
                    if steps {
                        done = true;
                        continue;
                    }
                    break;
                }
                previous = Some((cell.timestamp(), cell.cell_type()));
                kept.push(cell.clone());
            }
        }
    }
    kept
}
