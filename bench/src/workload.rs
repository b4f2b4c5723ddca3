//! YCSB's record shape and request streams: keys `user<fnv64(i)>`, 10 fields of 100
//! bytes, and the mixes of workloads A, B, C, E and F. Keys, the generator and the
//! scrambled zipfian chooser are `basalt pe`'s (`basalt-pe`), so both tools draw alike.

/// Fields per record and bytes per field, as YCSB's CoreWorkload.
pub const FIELDS: usize = 10;
pub const FIELD_BYTES: usize = 100;

pub use basalt_pe::keys::ycsb_key as key;
pub use basalt_pe::rng::Rng;
pub use basalt_pe::zipfian::ScrambledZipfian;

/// The key of record `i` in sorted (bulk-load) order.
pub fn sorted_key(i: u64) -> Vec<u8> {
    format!("user{i:012}").into_bytes()
}

/// A field value: 100 lowercase letters, the same for the same record, field and salt.
pub fn value(record: u64, field: usize, salt: u64) -> Vec<u8> {
    let seed = record.wrapping_mul(31).wrapping_add(field as u64) ^ salt;
    Rng::new(seed).letters(FIELD_BYTES)
}

/// One request of a YCSB mix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Read,
    Update,
    Insert,
    Scan(usize),
    ReadModifyWrite,
}

/// YCSB's core workloads that the bench runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mix {
    /// 50% read, 50% update.
    A,
    /// 95% read, 5% update.
    B,
    /// 100% read.
    C,
    /// 95% scan of 1..=100 rows, 5% insert.
    E,
    /// 50% read, 50% read-modify-write.
    F,
}

impl Mix {
    pub fn name(self) -> &'static str {
        match self {
            Mix::A => "ycsb A (50% read, 50% update)",
            Mix::B => "ycsb B (95% read, 5% update)",
            Mix::C => "ycsb C (100% read)",
            Mix::E => "ycsb E (95% scan 1-100, 5% insert)",
            Mix::F => "ycsb F (50% read, 50% read-modify-write)",
        }
    }

    pub fn next(self, rng: &mut Rng) -> Op {
        let p = rng.below(100);
        match self {
            Mix::A if p < 50 => Op::Read,
            Mix::A => Op::Update,
            Mix::B if p < 95 => Op::Read,
            Mix::B => Op::Update,
            Mix::C => Op::Read,
            Mix::E if p < 95 => Op::Scan(1 + rng.below(100) as usize),
            Mix::E => Op::Insert,
            Mix::F if p < 50 => Op::Read,
            Mix::F => Op::ReadModifyWrite,
        }
    }
}
