//! The cell and the order of cells.
//!
//! A cell is one value at `row / family:qualifier / timestamp`, or a delete marker there.
//! Every sorted structure in Basalt (memstore, file, merge heap) keeps cells in one order:
//!
//! | field      | direction | why |
//! |------------|-----------|-----|
//! | row        | ↑ bytewise | rows are the table's sort key |
//! | family     | ↑ bytewise | a row's families in name order |
//! | qualifier  | ↑ bytewise | a family's columns in name order |
//! | timestamp  | ↓          | newest version first, so "latest N" is a prefix |
//! | type code  | ↓          | a delete marker (8–14) comes before a put (4) at the same timestamp |
//! | sequence id| ↓          | at equal coordinates the later write wins |
//!
//! Five cells in order:
//!
//! | row | family:qualifier | ts | type | seq |
//! |-----|------------------|----|------|-----|
//! | r1  | cf:a             | 20 | Put  | 7 |
//! | r1  | cf:a             | 10 | DeleteColumn | 9 |
//! | r1  | cf:a             | 10 | Put  | 9 |
//! | r1  | cf:a             | 10 | Put  | 3 |
//! | r1  | cf:b             | 99 | Put  | 1 |
//!
//! `Minimum` (0) and `Maximum` (255) never stored: they make seek keys that sort after or
//! before every real cell at the same coordinates ([`Cell::first_on_row`] and friends).

use bytes::Bytes;
use std::cmp::Ordering;

/// HBase's `KeyValue.Type` codes; the code is what is stored and what orders cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum CellType {
    /// Seek-key sentinel that sorts after every real type.
    Minimum = 0,
    Put = 4,
    /// Deletes exactly one version (`Delete.addColumn(f, q, ts)`).
    Delete = 8,
    /// Deletes every column of a family at exactly one timestamp.
    DeleteFamilyVersion = 10,
    /// Deletes every version of a column at or below its timestamp.
    DeleteColumn = 12,
    /// Deletes every column of a family at or below its timestamp.
    DeleteFamily = 14,
    /// Seek-key sentinel that sorts before every real type.
    Maximum = 255,
}

impl CellType {
    pub fn code(self) -> u8 {
        self as u8
    }

    pub fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            0 => Self::Minimum,
            4 => Self::Put,
            8 => Self::Delete,
            10 => Self::DeleteFamilyVersion,
            12 => Self::DeleteColumn,
            14 => Self::DeleteFamily,
            255 => Self::Maximum,
            _ => return None,
        })
    }

    pub fn is_delete(self) -> bool {
        matches!(
            self,
            Self::Delete | Self::DeleteFamilyVersion | Self::DeleteColumn | Self::DeleteFamily
        )
    }

    /// Markers that apply to a whole family rather than one column.
    pub fn is_family_delete(self) -> bool {
        matches!(self, Self::DeleteFamily | Self::DeleteFamilyVersion)
    }

    /// The name HBase's shell prints in `type=...`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Minimum => "Minimum",
            Self::Put => "Put",
            Self::Delete => "Delete",
            Self::DeleteFamilyVersion => "DeleteFamilyVersion",
            Self::DeleteColumn => "DeleteColumn",
            Self::DeleteFamily => "DeleteFamily",
            Self::Maximum => "Maximum",
        }
    }
}

/// One value (or delete marker) at `row / family:qualifier / timestamp`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Cell {
    row: Bytes,
    family: Bytes,
    qualifier: Bytes,
    /// Milliseconds since the epoch (or any value the client chose).
    timestamp: i64,
    cell_type: CellType,
    /// The write's sequence id within its region (0 once a major compaction no longer needs it).
    seq_id: u64,
    value: Bytes,
    /// Cell TTL in milliseconds (HBase's per-mutation `setTTL`, kept as a tag there).
    ttl_ms: Option<u64>,
}

impl Cell {
    /// A cell of any type (sequence id 0, no TTL: see [`Cell::with_seq`], [`Cell::with_ttl_ms`]).
    pub fn new(
        row: impl Into<Bytes>,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        timestamp: i64,
        cell_type: CellType,
        value: impl Into<Bytes>,
    ) -> Self {
        Self {
            row: row.into(),
            family: family.into(),
            qualifier: qualifier.into(),
            timestamp,
            cell_type,
            seq_id: 0,
            value: value.into(),
            ttl_ms: None,
        }
    }

    /// A put cell.
    pub fn put(
        row: impl Into<Bytes>,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        timestamp: i64,
        value: impl Into<Bytes>,
    ) -> Self {
        Self {
            row: row.into(),
            family: family.into(),
            qualifier: qualifier.into(),
            timestamp,
            cell_type: CellType::Put,
            seq_id: 0,
            value: value.into(),
            ttl_ms: None,
        }
    }

    /// A delete marker of `cell_type` (empty value).
    pub fn marker(
        row: impl Into<Bytes>,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        timestamp: i64,
        cell_type: CellType,
    ) -> Self {
        Self {
            row: row.into(),
            family: family.into(),
            qualifier: qualifier.into(),
            timestamp,
            cell_type,
            seq_id: 0,
            value: Bytes::new(),
            ttl_ms: None,
        }
    }

    /// A seek key sorting before every cell of `row`.
    pub fn first_on_row(row: Bytes) -> Self {
        Self::marker(row, Bytes::new(), Bytes::new(), i64::MAX, CellType::Maximum)
            .with_seq(u64::MAX)
    }

    /// A seek key sorting before every cell of `row / family:qualifier`.
    pub fn first_on_column(row: Bytes, family: Bytes, qualifier: Bytes) -> Self {
        Self::marker(row, family, qualifier, i64::MAX, CellType::Maximum).with_seq(u64::MAX)
    }

    /// A seek key sorting after every cell of `row / family:qualifier`.
    pub fn last_on_column(row: Bytes, family: Bytes, qualifier: Bytes) -> Self {
        Self::marker(row, family, qualifier, i64::MIN, CellType::Minimum)
    }

    /// A seek key sorting before the cells of `row / family:qualifier` at `timestamp`.
    pub fn first_at_timestamp(row: Bytes, family: Bytes, qualifier: Bytes, timestamp: i64) -> Self {
        Self::marker(row, family, qualifier, timestamp, CellType::Maximum).with_seq(u64::MAX)
    }

    pub fn row(&self) -> &[u8] {
        &self.row
    }

    pub fn family(&self) -> &[u8] {
        &self.family
    }

    pub fn qualifier(&self) -> &[u8] {
        &self.qualifier
    }

    /// The value: its own buffer (a block's slice, or the client's), shared by cloning.
    pub fn value(&self) -> &Bytes {
        &self.value
    }

    /// The row as a shared buffer (a reference count, no copy).
    pub fn row_bytes(&self) -> Bytes {
        self.row.clone()
    }

    pub fn family_bytes(&self) -> Bytes {
        self.family.clone()
    }

    pub fn qualifier_bytes(&self) -> Bytes {
        self.qualifier.clone()
    }

    /// The value, giving the cell up.
    pub fn into_value(self) -> Bytes {
        self.value
    }

    /// Milliseconds since the epoch (or any value the client chose).
    pub fn timestamp(&self) -> i64 {
        self.timestamp
    }

    pub fn cell_type(&self) -> CellType {
        self.cell_type
    }

    /// The write's sequence id within its region (0 once a major compaction no longer needs it).
    pub fn seq_id(&self) -> u64 {
        self.seq_id
    }

    /// Cell TTL in milliseconds (HBase's per-mutation `setTTL`, kept as a tag there).
    pub fn ttl_ms(&self) -> Option<u64> {
        self.ttl_ms
    }

    pub fn set_timestamp(&mut self, timestamp: i64) {
        self.timestamp = timestamp;
    }

    pub fn set_seq_id(&mut self, seq_id: u64) {
        self.seq_id = seq_id;
    }

    pub fn set_ttl_ms(&mut self, ttl_ms: Option<u64>) {
        self.ttl_ms = ttl_ms;
    }

    pub fn set_value(&mut self, value: impl Into<Bytes>) {
        self.value = value.into();
    }

    pub fn set_cell_type(&mut self, cell_type: CellType) {
        self.cell_type = cell_type;
    }

    /// The cell with its family name replaced (a store's interned copy of the same name).
    pub fn with_family(mut self, family: Bytes) -> Self {
        self.family = family;
        self
    }

    pub fn with_value(mut self, value: impl Into<Bytes>) -> Self {
        self.value = value.into();
        self
    }

    pub fn with_timestamp(mut self, timestamp: i64) -> Self {
        self.timestamp = timestamp;
        self
    }

    pub fn with_seq(mut self, seq_id: u64) -> Self {
        self.seq_id = seq_id;
        self
    }

    pub fn with_ttl_ms(mut self, ttl_ms: Option<u64>) -> Self {
        self.ttl_ms = ttl_ms;
        self
    }

    pub fn is_delete(&self) -> bool {
        self.cell_type.is_delete()
    }

    /// Compare by the cell order (row, family, qualifier ↑; timestamp, type, seq ↓).
    /// Values do not take part.
    pub fn cmp_key(&self, other: &Cell) -> Ordering {
        compare_keys(self, other)
    }

    /// Same row, family and qualifier.
    pub fn same_column(&self, other: &Cell) -> bool {
        self.qualifier == other.qualifier && self.family == other.family && self.row == other.row
    }

    /// Bytes this cell occupies in memory and on the wire, roughly: key, value and overhead.
    pub fn heap_size(&self) -> usize {
        const FIXED_OVERHEAD: usize = 64;
        self.row.len()
            + self.family.len()
            + self.qualifier.len()
            + self.value.len()
            + FIXED_OVERHEAD
    }
}

/// The cell order; see the module documentation for the table.
pub fn compare_keys(a: &Cell, b: &Cell) -> Ordering {
    a.row
        .cmp(&b.row)
        .then_with(|| a.family.cmp(&b.family))
        .then_with(|| a.qualifier.cmp(&b.qualifier))
        .then_with(|| b.timestamp.cmp(&a.timestamp))
        .then_with(|| b.cell_type.code().cmp(&a.cell_type.code()))
        .then_with(|| b.seq_id.cmp(&a.seq_id))
}

/// A cell ordered by the cell order alone, for sorted collections and heaps.
#[derive(Debug, Clone)]
pub struct KeyOrdered(pub Cell);

impl PartialEq for KeyOrdered {
    fn eq(&self, other: &Self) -> bool {
        compare_keys(&self.0, &other.0) == Ordering::Equal
    }
}
impl Eq for KeyOrdered {}
impl PartialOrd for KeyOrdered {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for KeyOrdered {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_keys(&self.0, &other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(row: &'static str, q: &'static str, ts: i64, t: CellType, seq: u64) -> Cell {
        Cell::marker(row, "cf", q, ts, t).with_seq(seq)
    }

    #[test]
    fn the_documented_order_holds() {
        let ordered = [
            c("r1", "a", 20, CellType::Put, 7),
            c("r1", "a", 10, CellType::DeleteColumn, 9),
            c("r1", "a", 10, CellType::Put, 9),
            c("r1", "a", 10, CellType::Put, 3),
            c("r1", "b", 99, CellType::Put, 1),
            c("r2", "", 1, CellType::Put, 1),
        ];
        for pair in ordered.windows(2) {
            assert_eq!(pair[0].cmp_key(&pair[1]), Ordering::Less, "{pair:?}");
        }
    }

    #[test]
    fn seek_keys_bracket_real_cells() {
        let cell = c("r1", "a", 5, CellType::DeleteFamily, 100);
        let row = Bytes::from_static(b"r1");
        assert!(Cell::first_on_row(row.clone()).cmp_key(&cell).is_lt());
        let (f, q) = (cell.family_bytes(), cell.qualifier_bytes());
        assert!(Cell::first_on_column(row.clone(), f.clone(), q.clone())
            .cmp_key(&cell)
            .is_lt());
        assert!(Cell::last_on_column(row.clone(), f.clone(), q.clone())
            .cmp_key(&cell)
            .is_gt());
        assert!(Cell::first_at_timestamp(row, f, q, 5)
            .cmp_key(&cell)
            .is_lt());
    }

    #[test]
    fn type_codes_round_trip() {
        for code in 0..=255u8 {
            if let Some(t) = CellType::from_code(code) {
                assert_eq!(t.code(), code);
            }
        }
        assert_eq!(CellType::from_code(6), None);
    }
}
