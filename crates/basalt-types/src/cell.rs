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
///
/// The row, family, qualifier and value are ranges of one shared buffer, so a cell costs
/// one reference count to clone or drop. A cell built from its parts ([`Cell::new`]) owns
/// a buffer of exactly those bytes; a cell read from a store file's block is a slice of
/// the block (the length fields between its parts included), one read from a memstore a
/// slice of its arena chunk, one decoded from a cell block a slice of the block. Equality, hashing and `Debug` look at the parts, never at the
/// buffer's layout.
#[derive(Clone)]
pub struct Cell {
    buf: Bytes,
    /// Milliseconds since the epoch (or any value the client chose).
    timestamp: i64,
    /// The write's sequence id within its region (0 once a major compaction no longer needs it).
    seq_id: u64,
    /// Cell TTL in milliseconds (HBase's per-mutation `setTTL`, kept as a tag there).
    ttl_ms: Option<u64>,
    /// The row is `buf[..row_len]`.
    row_len: u32,
    family_at: u32,
    family_len: u32,
    qualifier_at: u32,
    qualifier_len: u32,
    value_at: u32,
    value_len: u32,
    cell_type: CellType,
}

/// Where a cell's parts sit in a shared buffer (the row always at its start).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CellLayout {
    pub row_len: usize,
    pub family_at: usize,
    pub family_len: usize,
    pub qualifier_at: usize,
    pub qualifier_len: usize,
    pub value_at: usize,
    pub value_len: usize,
}

impl CellLayout {
    /// The layout of `row | family | qualifier | value` written back to back.
    pub fn packed(row: usize, family: usize, qualifier: usize, value: usize) -> Self {
        Self {
            row_len: row,
            family_at: row,
            family_len: family,
            qualifier_at: row + family,
            qualifier_len: qualifier,
            value_at: row + family + qualifier,
            value_len: value,
        }
    }

    /// The bytes the layout needs, `None` when a part's end overflows.
    #[inline]
    fn end(&self) -> Option<usize> {
        let family = self.family_at.checked_add(self.family_len)?;
        let qualifier = self.qualifier_at.checked_add(self.qualifier_len)?;
        let value = self.value_at.checked_add(self.value_len)?;
        Some(self.row_len.max(family).max(qualifier).max(value))
    }
}

impl Cell {
    /// A cell of any type (sequence id 0, no TTL: see [`Cell::with_seq`], [`Cell::with_ttl_ms`]).
    /// Its parts are copied into one buffer of their own.
    pub fn new(
        row: impl AsRef<[u8]>,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        timestamp: i64,
        cell_type: CellType,
        value: impl AsRef<[u8]>,
    ) -> Self {
        let parts = [
            row.as_ref(),
            family.as_ref(),
            qualifier.as_ref(),
            value.as_ref(),
        ];
        let mut buf = Vec::with_capacity(parts.iter().map(|p| p.len()).sum());
        for part in parts {
            buf.extend_from_slice(part);
        }
        let [r, f, q, v] = parts.map(<[u8]>::len);
        Self::in_buffer(
            Bytes::from(buf),
            CellLayout::packed(r, f, q, v),
            timestamp,
            cell_type,
        )
        .expect("the layout of the bytes just written")
    }

    /// A cell whose parts lie in `buf` where `layout` says (sequence id 0, no TTL); `None`
    /// when a part runs past the buffer's end.
    #[inline]
    pub fn in_buffer(
        buf: Bytes,
        layout: CellLayout,
        timestamp: i64,
        cell_type: CellType,
    ) -> Option<Self> {
        if layout.end()? > buf.len() || buf.len() > u32::MAX as usize {
            return None;
        }
        // Every offset and length is at most the buffer's length, itself below 4 GiB.
        let narrow = |n: usize| n as u32;
        Some(Self {
            buf,
            timestamp,
            seq_id: 0,
            ttl_ms: None,
            row_len: narrow(layout.row_len),
            family_at: narrow(layout.family_at),
            family_len: narrow(layout.family_len),
            qualifier_at: narrow(layout.qualifier_at),
            qualifier_len: narrow(layout.qualifier_len),
            value_at: narrow(layout.value_at),
            value_len: narrow(layout.value_len),
            cell_type,
        })
    }

    /// A put cell.
    pub fn put(
        row: impl AsRef<[u8]>,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        timestamp: i64,
        value: impl AsRef<[u8]>,
    ) -> Self {
        Self::new(row, family, qualifier, timestamp, CellType::Put, value)
    }

    /// A delete marker of `cell_type` (empty value).
    pub fn marker(
        row: impl AsRef<[u8]>,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        timestamp: i64,
        cell_type: CellType,
    ) -> Self {
        Self::new(row, family, qualifier, timestamp, cell_type, [])
    }

    /// A seek key sorting before every cell of `row`.
    pub fn first_on_row(row: impl AsRef<[u8]>) -> Self {
        Self::marker(row, [], [], i64::MAX, CellType::Maximum).with_seq(u64::MAX)
    }

    /// A seek key sorting before every cell of `row / family:qualifier`.
    pub fn first_on_column(
        row: impl AsRef<[u8]>,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
    ) -> Self {
        Self::marker(row, family, qualifier, i64::MAX, CellType::Maximum).with_seq(u64::MAX)
    }

    /// A seek key sorting after every cell of `row / family:qualifier`.
    pub fn last_on_column(
        row: impl AsRef<[u8]>,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
    ) -> Self {
        Self::marker(row, family, qualifier, i64::MIN, CellType::Minimum)
    }

    /// A seek key sorting before the cells of `row / family:qualifier` at `timestamp`.
    pub fn first_at_timestamp(
        row: impl AsRef<[u8]>,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        timestamp: i64,
    ) -> Self {
        Self::marker(row, family, qualifier, timestamp, CellType::Maximum).with_seq(u64::MAX)
    }

    #[inline]
    fn part(&self, at: u32, len: u32) -> &[u8] {
        &self.buf[at as usize..at as usize + len as usize]
    }

    #[inline]
    fn part_bytes(&self, at: u32, len: u32) -> Bytes {
        self.buf.slice(at as usize..at as usize + len as usize)
    }

    #[inline]
    pub fn row(&self) -> &[u8] {
        self.part(0, self.row_len)
    }

    #[inline]
    pub fn family(&self) -> &[u8] {
        self.part(self.family_at, self.family_len)
    }

    #[inline]
    pub fn qualifier(&self) -> &[u8] {
        self.part(self.qualifier_at, self.qualifier_len)
    }

    #[inline]
    pub fn value(&self) -> &[u8] {
        self.part(self.value_at, self.value_len)
    }

    /// The row as a shared buffer (a reference count, no copy).
    pub fn row_bytes(&self) -> Bytes {
        self.part_bytes(0, self.row_len)
    }

    pub fn family_bytes(&self) -> Bytes {
        self.part_bytes(self.family_at, self.family_len)
    }

    pub fn qualifier_bytes(&self) -> Bytes {
        self.part_bytes(self.qualifier_at, self.qualifier_len)
    }

    pub fn value_bytes(&self) -> Bytes {
        self.part_bytes(self.value_at, self.value_len)
    }

    /// The value, giving the cell up.
    pub fn into_value(self) -> Bytes {
        self.value_bytes()
    }

    /// Bytes of the buffer this cell keeps alive (for memory accounting).
    pub fn buffer_len(&self) -> usize {
        self.buf.len()
    }

    /// Milliseconds since the epoch (or any value the client chose).
    #[inline]
    pub fn timestamp(&self) -> i64 {
        self.timestamp
    }

    #[inline]
    pub fn cell_type(&self) -> CellType {
        self.cell_type
    }

    /// The write's sequence id within its region (0 once a major compaction no longer needs it).
    #[inline]
    pub fn seq_id(&self) -> u64 {
        self.seq_id
    }

    /// Cell TTL in milliseconds (HBase's per-mutation `setTTL`, kept as a tag there).
    #[inline]
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

    /// Replaces the value (the key is copied with it into a new buffer).
    pub fn set_value(&mut self, value: impl AsRef<[u8]>) {
        let fresh = Self::new(
            self.row(),
            self.family(),
            self.qualifier(),
            self.timestamp,
            self.cell_type,
            value,
        );
        *self = Self {
            seq_id: self.seq_id,
            ttl_ms: self.ttl_ms,
            ..fresh
        };
    }

    pub fn set_cell_type(&mut self, cell_type: CellType) {
        self.cell_type = cell_type;
    }

    pub fn with_value(mut self, value: impl AsRef<[u8]>) -> Self {
        self.set_value(value);
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
        self.qualifier() == other.qualifier()
            && self.family() == other.family()
            && self.row() == other.row()
    }

    /// Bytes this cell occupies in memory and on the wire, roughly: key, value and overhead.
    pub fn heap_size(&self) -> usize {
        const FIXED_OVERHEAD: usize = 64;
        self.row().len()
            + self.family().len()
            + self.qualifier().len()
            + self.value().len()
            + FIXED_OVERHEAD
    }
}

impl PartialEq for Cell {
    fn eq(&self, other: &Self) -> bool {
        self.timestamp == other.timestamp
            && self.cell_type == other.cell_type
            && self.seq_id == other.seq_id
            && self.ttl_ms == other.ttl_ms
            && self.same_column(other)
            && self.value() == other.value()
    }
}

impl Eq for Cell {}

impl std::hash::Hash for Cell {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.row().hash(state);
        self.family().hash(state);
        self.qualifier().hash(state);
        self.timestamp.hash(state);
        self.cell_type.hash(state);
        self.seq_id.hash(state);
        self.value().hash(state);
        self.ttl_ms.hash(state);
    }
}

impl std::fmt::Debug for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cell")
            .field("row", &self.row_bytes())
            .field("family", &self.family_bytes())
            .field("qualifier", &self.qualifier_bytes())
            .field("timestamp", &self.timestamp)
            .field("cell_type", &self.cell_type)
            .field("seq_id", &self.seq_id)
            .field("value", &self.value_bytes())
            .field("ttl_ms", &self.ttl_ms)
            .finish()
    }
}

/// The cell order; see the module documentation for the table.
pub fn compare_keys(a: &Cell, b: &Cell) -> Ordering {
    a.row()
        .cmp(b.row())
        .then_with(|| a.family().cmp(b.family()))
        .then_with(|| a.qualifier().cmp(b.qualifier()))
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
    fn a_cell_in_a_buffer_with_gaps_equals_the_cell_built_from_its_parts() {
        // | 0 r 1 | 2 | c f | q q q | 9 9 | v a l |: lengths and other bytes between parts.
        let buf = Bytes::from_static(b"r1\x02cfqqq99val");
        let layout = CellLayout {
            row_len: 2,
            family_at: 3,
            family_len: 2,
            qualifier_at: 5,
            qualifier_len: 3,
            value_at: 10,
            value_len: 3,
        };
        let cell = Cell::in_buffer(buf.clone(), layout, 7, CellType::Put).expect("fits");
        let owned = Cell::put("r1", "cf", "qqq", 7, "val");
        assert_eq!(cell, owned);
        assert_eq!(format!("{cell:?}"), format!("{owned:?}"));
        assert_eq!(
            cell.row_bytes().as_ptr(),
            buf.as_ptr(),
            "a slice, not a copy"
        );
        assert_eq!(cell.buffer_len(), buf.len());
        let moved = cell.clone().with_value("other");
        assert_eq!(moved, Cell::put("r1", "cf", "qqq", 7, "other"));
    }

    #[test]
    fn a_layout_past_its_buffer_is_refused_not_sliced() {
        let buf = Bytes::from_static(b"abcdef");
        for layout in [
            CellLayout {
                row_len: 7,
                ..CellLayout::default()
            },
            CellLayout {
                value_at: 4,
                value_len: 3,
                ..CellLayout::default()
            },
            CellLayout {
                family_at: usize::MAX,
                family_len: 2,
                ..CellLayout::default()
            },
            CellLayout {
                qualifier_at: 6,
                qualifier_len: 1,
                ..CellLayout::default()
            },
        ] {
            assert!(
                Cell::in_buffer(buf.clone(), layout, 0, CellType::Put).is_none(),
                "{layout:?}"
            );
        }
        let empty = CellLayout {
            value_at: 6,
            ..CellLayout::default()
        };
        let cell = Cell::in_buffer(buf, empty, 0, CellType::Put).expect("empty parts at the end");
        assert!(cell.row().is_empty() && cell.value().is_empty());
    }

    #[test]
    fn a_cell_is_small_to_move() {
        assert!(
            std::mem::size_of::<Cell>() <= 96,
            "{}",
            std::mem::size_of::<Cell>()
        );
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
