//! Mutations: Put, Delete, Increment, Append, and row mutations (reference §1.3–1.7).

use super::Durability;
use crate::{Cell, CellType, TimeRange, LATEST_TIMESTAMP};
use bytes::Bytes;

/// Writes cells to one row. Cells left at [`LATEST_TIMESTAMP`] get the server's time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Put {
    pub row: Bytes,
    /// Put cells of this row; `cell_type` is `Put` and `seq_id` is assigned on write.
    pub cells: Vec<Cell>,
    pub durability: Durability,
    /// Cell TTL in milliseconds for every cell of the put.
    pub ttl_ms: Option<u64>,
}

impl Put {
    pub fn new(row: impl Into<Bytes>) -> Self {
        Self {
            row: row.into(),
            cells: Vec::new(),
            durability: Durability::UseDefault,
            ttl_ms: None,
        }
    }

    /// Adds `family:qualifier = value` at the server's time.
    pub fn add(
        self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
    ) -> Self {
        self.add_at(family, qualifier, LATEST_TIMESTAMP, value)
    }

    /// Adds `family:qualifier = value` at `timestamp`.
    pub fn add_at(
        mut self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        timestamp: i64,
        value: impl AsRef<[u8]>,
    ) -> Self {
        let cell = Cell::put(&self.row, family, qualifier, timestamp, value);
        self.cells.push(cell);
        self
    }

    pub fn durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }
}

/// One part of a delete. Timestamps at [`LATEST_TIMESTAMP`] mean "the server's now" for
/// ranges (every version up to now) and "the newest version" for [`DeleteSpec::Version`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeleteSpec {
    /// Every column of the family with timestamp ≤ `timestamp` (DeleteFamily).
    Family { family: Bytes, timestamp: i64 },
    /// Every column of the family at exactly `timestamp` (DeleteFamilyVersion).
    FamilyVersion { family: Bytes, timestamp: i64 },
    /// Every version of the column with timestamp ≤ `timestamp` (DeleteColumn).
    Columns {
        family: Bytes,
        qualifier: Bytes,
        timestamp: i64,
    },
    /// One version of the column: exactly `timestamp`, or the newest (Delete).
    Version {
        family: Bytes,
        qualifier: Bytes,
        timestamp: i64,
    },
}

impl DeleteSpec {
    pub fn family(&self) -> &Bytes {
        match self {
            Self::Family { family, .. }
            | Self::FamilyVersion { family, .. }
            | Self::Columns { family, .. }
            | Self::Version { family, .. } => family,
        }
    }

    /// The marker this spec writes (before timestamps are resolved).
    pub fn marker(&self, row: &Bytes) -> Cell {
        let (family, qualifier, timestamp, cell_type) = match self {
            Self::Family { family, timestamp } => {
                (family, Bytes::new(), *timestamp, CellType::DeleteFamily)
            }
            Self::FamilyVersion { family, timestamp } => (
                family,
                Bytes::new(),
                *timestamp,
                CellType::DeleteFamilyVersion,
            ),
            Self::Columns {
                family,
                qualifier,
                timestamp,
            } => (
                family,
                qualifier.clone(),
                *timestamp,
                CellType::DeleteColumn,
            ),
            Self::Version {
                family,
                qualifier,
                timestamp,
            } => (family, qualifier.clone(), *timestamp, CellType::Delete),
        };
        Cell::marker(row.clone(), family.clone(), qualifier, timestamp, cell_type)
    }
}

/// Deletes from one row. With no specs it deletes the whole row: a DeleteFamily marker at
/// `timestamp` for every family of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delete {
    pub row: Bytes,
    /// The whole-row timestamp, and the default for specs added without one.
    pub timestamp: i64,
    pub specs: Vec<DeleteSpec>,
    pub durability: Durability,
}

impl Delete {
    pub fn new(row: impl Into<Bytes>) -> Self {
        Self {
            row: row.into(),
            timestamp: LATEST_TIMESTAMP,
            specs: Vec::new(),
            durability: Durability::UseDefault,
        }
    }

    pub fn at(mut self, timestamp: i64) -> Self {
        self.timestamp = timestamp;
        self
    }

    pub fn spec(mut self, spec: DeleteSpec) -> Self {
        self.specs.push(spec);
        self
    }

    /// `deleteall t, r, 'f'`: every column of the family up to the delete's timestamp.
    pub fn family(self, family: impl Into<Bytes>) -> Self {
        let timestamp = self.timestamp;
        self.spec(DeleteSpec::Family {
            family: family.into(),
            timestamp,
        })
    }

    /// `deleteall t, r, 'f:q'`: every version of the column up to the delete's timestamp.
    pub fn columns(self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Self {
        let timestamp = self.timestamp;
        self.spec(DeleteSpec::Columns {
            family: family.into(),
            qualifier: qualifier.into(),
            timestamp,
        })
    }

    /// `delete t, r, 'f:q'`: the newest version of the column (or the one at the delete's
    /// timestamp when one was set).
    pub fn version(self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Self {
        let timestamp = self.timestamp;
        self.spec(DeleteSpec::Version {
            family: family.into(),
            qualifier: qualifier.into(),
            timestamp,
        })
    }

    pub fn is_whole_row(&self) -> bool {
        self.specs.is_empty()
    }
}

/// Atomically adds deltas to 8-byte big-endian counters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Increment {
    pub row: Bytes,
    /// `(family, qualifier, delta)`.
    pub columns: Vec<(Bytes, Bytes, i64)>,
    /// Which existing version counts as the current value.
    pub time_range: TimeRange,
    pub return_results: bool,
    pub durability: Durability,
    pub ttl_ms: Option<u64>,
}

impl Increment {
    pub fn new(row: impl Into<Bytes>) -> Self {
        Self {
            row: row.into(),
            columns: Vec::new(),
            time_range: TimeRange::ALL,
            return_results: true,
            durability: Durability::UseDefault,
            ttl_ms: None,
        }
    }

    pub fn add(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        delta: i64,
    ) -> Self {
        self.columns.push((family.into(), qualifier.into(), delta));
        self
    }
}

/// Atomically appends bytes to cell values (a missing cell starts empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Append {
    pub row: Bytes,
    /// `(family, qualifier, suffix)`.
    pub columns: Vec<(Bytes, Bytes, Bytes)>,
    pub time_range: TimeRange,
    pub return_results: bool,
    pub durability: Durability,
    pub ttl_ms: Option<u64>,
}

impl Append {
    pub fn new(row: impl Into<Bytes>) -> Self {
        Self {
            row: row.into(),
            columns: Vec::new(),
            time_range: TimeRange::ALL,
            return_results: true,
            durability: Durability::UseDefault,
            ttl_ms: None,
        }
    }

    pub fn add(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        suffix: impl Into<Bytes>,
    ) -> Self {
        self.columns
            .push((family.into(), qualifier.into(), suffix.into()));
        self
    }
}

/// Any single-row mutation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mutation {
    Put(Put),
    Delete(Delete),
    Increment(Increment),
    Append(Append),
}

impl Mutation {
    pub fn row(&self) -> &Bytes {
        match self {
            Self::Put(m) => &m.row,
            Self::Delete(m) => &m.row,
            Self::Increment(m) => &m.row,
            Self::Append(m) => &m.row,
        }
    }

    pub fn durability(&self) -> Durability {
        match self {
            Self::Put(m) => m.durability,
            Self::Delete(m) => m.durability,
            Self::Increment(m) => m.durability,
            Self::Append(m) => m.durability,
        }
    }
}

/// Mutations of one row applied atomically, in order (HBase's `RowMutations`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowMutations {
    pub row: Bytes,
    pub mutations: Vec<Mutation>,
}

impl RowMutations {
    /// Fails when a mutation names another row.
    pub fn new(row: impl Into<Bytes>, mutations: Vec<Mutation>) -> crate::Result<Self> {
        let row = row.into();
        if let Some(other) = mutations.iter().find(|m| *m.row() != row) {
            return Err(crate::error::invalid(format!(
                "The row in {:?} doesn't match the original one {:?}",
                String::from_utf8_lossy(other.row()),
                String::from_utf8_lossy(&row)
            )));
        }
        Ok(Self { row, mutations })
    }
}
