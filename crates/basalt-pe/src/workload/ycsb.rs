//! YCSB's core workloads over records of 10 fields × 100 bytes under `user<fnv64>` keys.
//!
//! | workload | read | update | insert | scan | read-modify-write | keys chosen |
//! |----------|------|--------|--------|------|-------------------|-------------|
//! | A | 50 % | 50 % | | | | scrambled zipfian |
//! | B | 95 % | 5 % | | | | scrambled zipfian |
//! | C | 100 % | | | | | scrambled zipfian |
//! | D | 95 % | | 5 % | | | latest |
//! | E | | | 5 % | 95 % (1..=100 rows, uniform) | | scrambled zipfian |
//! | F | 50 % | | | | 50 % | scrambled zipfian |
//!
//! As YCSB's defaults: reads fetch every field, updates and read-modify-writes write one
//! random field, transaction writes are sent one by one (`clientbuffering=false`; only
//! `ycsbLoad` honours `--auto-flush`). The table holds `--rows × --clients` records numbered
//! from 0; inserts take the next numbers from a counter the clients share, and reads choose
//! among the records inserted so far (a read racing an insert still in flight counts a
//! miss). Like YCSB without `insertstart`, every run starts that counter at
//! `--rows × --clients` again, so a second inserting run rewrites the first one's records.

use super::writer::Writer;
use super::{value_bytes, Client};
use crate::command::Command;
use crate::keys::{ycsb_field, ycsb_key, YCSB_FAMILY, YCSB_FIELD_BYTES, YCSB_FIELD_COUNT};
use crate::zipfian::{Latest, ScrambledZipfian};
use basalt_api::Result;
use basalt_types::{Get, Put, Scan};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// YCSB's `maxscanlength`.
pub const SCAN_ROWS_MAX: u64 = 100;

/// One operation of a workload's mix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Read,
    Update,
    Insert,
    Scan,
    ReadModifyWrite,
}

impl Op {
    pub fn name(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Update => "update",
            Self::Insert => "insert",
            Self::Scan => "scan",
            Self::ReadModifyWrite => "read-modify-write",
        }
    }
}

/// A workload: its operation mix (shares summing to 1) and whether recent keys are hot.
#[derive(Debug, Clone, PartialEq)]
pub struct Mix {
    pub shares: Vec<(Op, f64)>,
    pub latest: bool,
}

impl Mix {
    /// The mix of workload `command` (A–F).
    pub fn of(command: Command) -> Self {
        let (shares, latest) = match command {
            Command::YcsbA => (vec![(Op::Read, 0.5), (Op::Update, 0.5)], false),
            Command::YcsbB => (vec![(Op::Read, 0.95), (Op::Update, 0.05)], false),
            Command::YcsbD => (vec![(Op::Read, 0.95), (Op::Insert, 0.05)], true),
            Command::YcsbE => (vec![(Op::Scan, 0.95), (Op::Insert, 0.05)], false),
            Command::YcsbF => (vec![(Op::Read, 0.5), (Op::ReadModifyWrite, 0.5)], false),
            _ => (vec![(Op::Read, 1.0)], false),
        };
        Self { shares, latest }
    }

    /// The operation for a uniform draw `u` in `[0, 1)`.
    pub fn pick(&self, u: f64) -> Op {
        let mut below = 0.0;
        for &(op, share) in &self.shares {
            below += share;
            if u < below {
                return op;
            }
        }
        self.shares.last().map_or(Op::Read, |&(op, _)| op)
    }

    fn insert_share(&self) -> f64 {
        self.shares
            .iter()
            .filter(|(op, _)| *op == Op::Insert)
            .map(|(_, share)| share)
            .sum()
    }
}

/// A full record: every field, 100 random bytes each.
fn record(client: &mut Client<'_>, n: u64) -> Put {
    let mut put = Put::new(ycsb_key(n)).durability(client.options.durability);
    for field in 0..YCSB_FIELD_COUNT {
        put = put.add(
            YCSB_FAMILY,
            ycsb_field(field),
            client.rng.letters(YCSB_FIELD_BYTES),
        );
    }
    put
}

const RECORD_BYTES: u64 = (YCSB_FIELD_COUNT * YCSB_FIELD_BYTES) as u64;

/// `ycsbLoad`: the client inserts its records in order.
pub fn load(client: &mut Client<'_>) -> Result<()> {
    let mut writer = Writer::new(&client.table, client.options.auto_flush);
    for n in client.own_rows() {
        if client.stopped() {
            break;
        }
        let put = record(client, n);
        let started = Instant::now();
        writer.put(put)?;
        client.record(None, started, RECORD_BYTES, 0);
    }
    writer.close()
}

/// Chooses record numbers for reads, updates and scans.
enum KeyChooser {
    Zipfian(ScrambledZipfian),
    Latest(Latest),
}

impl KeyChooser {
    fn new(mix: &Mix, client: &Client<'_>) -> Self {
        let records = client.options.total_rows();
        if mix.latest {
            return Self::Latest(Latest::new(records));
        }
        // YCSB sizes the key space for the inserts it expects: twice the insert share.
        let ops = client.options.total_rows() as f64;
        let expected_new = (ops * mix.insert_share() * 2.0) as u64;
        Self::Zipfian(ScrambledZipfian::new(records + expected_new))
    }

    /// A record already inserted.
    fn next(&mut self, client: &mut Client<'_>) -> u64 {
        let inserted = client.shared.inserted.load(Ordering::Acquire).max(1);
        match self {
            Self::Latest(latest) => latest.next(&mut client.rng, inserted - 1),
            Self::Zipfian(zipfian) => loop {
                let n = zipfian.next(&mut client.rng);
                if n < inserted {
                    return n;
                }
            },
        }
    }
}

/// Workloads A–F: `--rows` operations of the workload's mix.
pub fn transactions(command: Command, client: &mut Client<'_>) -> Result<()> {
    let mix = Mix::of(command);
    let mut keys = KeyChooser::new(&mix, client);
    for _ in 0..client.options.rows_per_client {
        if client.stopped() {
            break;
        }
        let op = mix.pick(client.rng.next_f64());
        // Inserts take their record number from the shared counter.
        let n = if op == Op::Insert {
            0
        } else {
            keys.next(client)
        };
        let started = Instant::now();
        let (bytes, misses) = match op {
            Op::Read => read(client, n)?,
            Op::Update => (update(client, n)?, 0),
            Op::Insert => (insert(client)?, 0),
            Op::Scan => scan(client, n)?,
            Op::ReadModifyWrite => {
                let (read_bytes, misses) = read(client, n)?;
                (read_bytes + update(client, n)?, misses)
            }
        };
        client.record(Some(op.name()), started, bytes, misses);
    }
    Ok(())
}

fn read(client: &mut Client<'_>, n: u64) -> Result<(u64, u64)> {
    let row = client
        .table
        .get(&Get::new(ycsb_key(n)).family(YCSB_FAMILY))?;
    Ok((value_bytes(&row), u64::from(row.is_empty())))
}

fn update(client: &mut Client<'_>, n: u64) -> Result<u64> {
    let field = client.rng.below(YCSB_FIELD_COUNT as u64) as usize;
    let put = Put::new(ycsb_key(n))
        .add(
            YCSB_FAMILY,
            ycsb_field(field),
            client.rng.letters(YCSB_FIELD_BYTES),
        )
        .durability(client.options.durability);
    client.table.put(&put)?;
    Ok(YCSB_FIELD_BYTES as u64)
}

fn insert(client: &mut Client<'_>) -> Result<u64> {
    let n = client.shared.next_insert.fetch_add(1, Ordering::AcqRel);
    let put = record(client, n);
    client.table.put(&put)?;
    client.shared.inserted.fetch_max(n + 1, Ordering::AcqRel);
    Ok(RECORD_BYTES)
}

fn scan(client: &mut Client<'_>, n: u64) -> Result<(u64, u64)> {
    let rows = 1 + client.rng.below(SCAN_ROWS_MAX);
    let scan = Scan::new()
        .start(ycsb_key(n))
        .family(YCSB_FAMILY)
        .limit(rows);
    let mut bytes = 0;
    let mut found = 0;
    for row in client.table.scan(&scan)? {
        bytes += value_bytes(&row?);
        found += 1;
    }
    Ok((bytes, u64::from(found == 0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn mixes_have_ycsbs_proportions() {
        for command in [
            Command::YcsbA,
            Command::YcsbB,
            Command::YcsbC,
            Command::YcsbD,
            Command::YcsbE,
            Command::YcsbF,
        ] {
            let total: f64 = Mix::of(command).shares.iter().map(|(_, s)| s).sum();
            assert!((total - 1.0).abs() < 1e-9, "{command} sums to {total}");
        }
        let mut rng = Rng::new(4);
        let b = Mix::of(Command::YcsbB);
        let updates = (0..100_000)
            .filter(|_| b.pick(rng.next_f64()) == Op::Update)
            .count();
        assert!(
            (4_500..5_500).contains(&updates),
            "B updates {updates} of 100000"
        );
        assert!(Mix::of(Command::YcsbD).latest);
        assert!(!Mix::of(Command::YcsbE).latest);
        assert_eq!(Mix::of(Command::YcsbC).pick(0.999), Op::Read);
        assert_eq!(Mix::of(Command::YcsbE).pick(0.96), Op::Insert);
        assert_eq!(Mix::of(Command::YcsbF).pick(0.7), Op::ReadModifyWrite);
    }
}
