//! The data set: YCSB/HBase-like rows `user000000001234`, one family `f`, columns
//! `q0..q{C-1}`, values of `--value-size` pseudo-random bytes.

use super::options::Options;
use super::xorshift::XorShift;
use basalt_types::{Durability, FamilyDescriptor, Put, RowResult, TableDescriptor, TableName};
use bytes::Bytes;

pub const FAMILY: &[u8] = b"f";

/// Keys, values and the table they go to.
pub struct DataSet {
    pub rows: u64,
    qualifiers: Vec<Bytes>,
    value_size: usize,
    /// Values are slices of this pool at random offsets: no copy per put, and values differ.
    pool: Bytes,
}

impl DataSet {
    pub fn new(options: &Options) -> Self {
        let mut pool = vec![0u8; (1 << 20) + options.value_size_bytes];
        XorShift::new(options.seed ^ 0xDA7A).fill(&mut pool);
        Self {
            rows: options.rows,
            qualifiers: (0..options.columns)
                .map(|c| Bytes::from(format!("q{c}")))
                .collect(),
            value_size: options.value_size_bytes,
            pool: Bytes::from(pool),
        }
    }

    /// The table: one family with the block size and codec asked for, HBase's defaults
    /// otherwise (ROW bloom, 1 version). Flushes are left to the engine's own threshold.
    pub fn table(options: &Options) -> TableDescriptor {
        let mut family =
            FamilyDescriptor::new(Bytes::from_static(FAMILY)).expect("'f' is a valid family name");
        family.block_size_bytes = options.block_size_bytes;
        family.compression = options.compression;
        TableDescriptor::new(
            TableName::parse("usertable").expect("'usertable' is a valid table name"),
            vec![family],
        )
    }

    /// Row `i`'s key: `user` and 12 digits, so keys sort as their numbers do.
    pub fn key(i: u64) -> Bytes {
        Bytes::from(format!("user{i:012}"))
    }

    /// A put of every column of row `i`.
    pub fn put(&self, i: u64, durability: Durability, rng: &mut XorShift) -> Put {
        let mut put = Put::new(Self::key(i)).durability(durability);
        for qualifier in &self.qualifiers {
            let offset = rng.below((self.pool.len() - self.value_size) as u64 + 1) as usize;
            let value = self.pool.slice(offset..offset + self.value_size);
            put = put.add(Bytes::from_static(FAMILY), qualifier.clone(), value);
        }
        put
    }

    /// Logical bytes of one row (row + family + qualifier + value per cell): the unit of
    /// every MB/s figure of the engine's workloads.
    pub fn row_bytes(&self) -> u64 {
        let key_len = Self::key(0).len();
        self.qualifiers
            .iter()
            .map(|q| (key_len + FAMILY.len() + q.len() + self.value_size) as u64)
            .sum()
    }

    pub fn columns(&self) -> usize {
        self.qualifiers.len()
    }
}

/// Logical bytes of a row a read returned (same unit as [`DataSet::row_bytes`]).
pub fn result_bytes(row: &RowResult) -> u64 {
    row.cells
        .iter()
        .map(|c| (c.row().len() + c.family().len() + c.qualifier().len() + c.value().len()) as u64)
        .sum()
}
