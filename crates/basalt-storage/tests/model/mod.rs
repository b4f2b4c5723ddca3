//! An in-memory model of HBase's cell semantics, the oracle of the model-based test.
//!
//! It keeps every family's cells as the engine lays them out — a memstore and a list of
//! files, mirrored through the file ids the engine reports — and answers reads by brute
//! force over all of them, column by column, without heaps, seeks or a matcher. Flushes and
//! compactions prune cells by HBase's compaction rules ([`prune`]), so versions, TTL and
//! delete markers disappear from the model exactly when they disappear from HBase.
#![allow(dead_code)]

pub mod prune;
pub mod read;

use basalt_types::{Cell, FamilyDescriptor, RowResult, Scan};
use bytes::Bytes;

#[derive(Debug, Clone)]
pub struct FamilyModel {
    pub descriptor: FamilyDescriptor,
    pub memstore: Vec<Cell>,
    /// `(file id, cells)`, oldest first, as the engine's store lists them.
    pub files: Vec<(u64, Vec<Cell>)>,
}

impl FamilyModel {
    /// Every stored cell of the family, in cell order.
    pub fn all_cells(&self) -> Vec<Cell> {
        let mut cells: Vec<Cell> = self
            .memstore
            .iter()
            .chain(self.files.iter().flat_map(|(_, c)| c))
            .cloned()
            .collect();
        cells.sort_by(|a, b| a.cmp_key(b));
        cells
    }
}

#[derive(Debug, Clone)]
pub struct Model {
    /// In family-name order.
    pub families: Vec<FamilyModel>,
    pub last_seq: u64,
}

impl Model {
    pub fn new(mut families: Vec<FamilyDescriptor>) -> Self {
        families.sort_by(|a, b| a.name.cmp(&b.name));
        let families = families
            .into_iter()
            .map(|descriptor| FamilyModel {
                descriptor,
                memstore: Vec::new(),
                files: Vec::new(),
            })
            .collect();
        Self {
            families,
            last_seq: 0,
        }
    }

    pub fn family_mut(&mut self, name: &[u8]) -> &mut FamilyModel {
        self.families
            .iter_mut()
            .find(|f| f.descriptor.name.as_ref() == name)
            .expect("known family")
    }

    /// Writes cells as one mutation with the next sequence id.
    pub fn write(&mut self, cells: Vec<Cell>) {
        if cells.is_empty() {
            return;
        }
        self.last_seq += 1;
        let seq = self.last_seq;
        for cell in cells {
            let cell = cell.with_seq(seq);
            let memstore = &mut self.family_mut(&cell.family_bytes()).memstore;
            // The same key written twice in one mutation: the later cell replaces the first.
            memstore.retain(|c| c.cmp_key(&cell) != std::cmp::Ordering::Equal);
            memstore.push(cell);
        }
    }

    /// A flush that produced `file_id` for `family` (or nothing).
    pub fn flush(
        &mut self,
        family: &[u8],
        file_id: Option<u64>,
        now_ms: i64,
    ) -> Result<(), String> {
        let f = self.family_mut(family);
        let mut cells = std::mem::take(&mut f.memstore);
        cells.sort_by(|a, b| a.cmp_key(b));
        let kept = prune::prune(&cells, &f.descriptor, prune::Kind::Flush, now_ms);
        match (file_id, kept.is_empty()) {
            (Some(id), false) => f.files.push((id, kept)),
            (None, true) => {}
            (Some(_), true) => {
                return Err(format!(
                    "engine flushed a file the model finds empty for {:?}",
                    f.descriptor.name
                ))
            }
            (None, false) => {
                return Err(format!(
                    "engine flushed nothing but the model keeps {} cells",
                    kept.len()
                ))
            }
        }
        Ok(())
    }

    /// A compaction of `inputs` into `output` for `family`.
    pub fn compact(
        &mut self,
        family: &[u8],
        inputs: &[u64],
        output: Option<u64>,
        major: bool,
        now_ms: i64,
    ) -> Result<(), String> {
        let f = self.family_mut(family);
        let position = f
            .files
            .iter()
            .position(|(id, _)| inputs.contains(id))
            .ok_or("unknown compaction input")?;
        let mut cells: Vec<Cell> = f
            .files
            .iter()
            .filter(|(id, _)| inputs.contains(id))
            .flat_map(|(_, c)| c.clone())
            .collect();
        if major && inputs.len() != f.files.len() {
            return Err("a major compaction must take every file".into());
        }
        cells.sort_by(|a, b| a.cmp_key(b));
        let kind = if major {
            prune::Kind::Major
        } else {
            prune::Kind::Minor
        };
        let kept = prune::prune(&cells, &f.descriptor, kind, now_ms);
        f.files.retain(|(id, _)| !inputs.contains(id));
        match (output, kept.is_empty()) {
            (Some(id), false) => f.files.insert(position.min(f.files.len()), (id, kept)),
            (None, true) => {}
            (Some(_), true) => {
                return Err("engine wrote a compaction file the model finds empty".into())
            }
            (None, false) => {
                return Err(format!(
                    "engine compaction kept nothing but the model keeps {} cells",
                    kept.len()
                ))
            }
        }
        Ok(())
    }

    /// The answer to `scan`.
    pub fn scan(&self, scan: &Scan, now_ms: i64) -> Vec<RowResult> {
        read::scan(self, scan, now_ms)
    }

    /// The newest visible version of a column, as the engine's read-modify-writes see it.
    pub fn latest(
        &self,
        row: &Bytes,
        family: &Bytes,
        qualifier: &Bytes,
        now_ms: i64,
    ) -> Option<Cell> {
        let get = basalt_types::Get::new(row.clone()).column(family.clone(), qualifier.clone());
        let rows = self.scan(&Scan::from_get(&get), now_ms);
        rows.into_iter()
            .next()
            .and_then(|r| r.cells.into_iter().next())
    }
}
