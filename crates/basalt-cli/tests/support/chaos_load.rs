//! Client load for chaos tests: each worker drives its own connection with seeded
//! operations and records every one — when it was asked, when it was answered, and what
//! came back, or that the answer is unknown (an error: it may or may not have been
//! applied) — as a `basalt_chaos` history.
//!
//! - `r0`…`r7`: registers, written with unique values by puts and check-and-puts, read
//!   by gets (linearizability of puts, gets and check-and-puts);
//! - `c0`…`c3`: counters, incremented by 1 (linearizability of increments: a lost or
//!   double-applied increment shows);
//! - `u<client>-<n>`: a fresh row per put, read back by the final scan (durability).

use basalt_api::Table;
use basalt_chaos::{OpKind, Operation, Outcome, Ret};
use basalt_types::{
    CheckAndMutate, CompareOp, Condition, Get, Increment, Mutation, Put, RowMutations, TimeRange,
};
use bytes::Bytes;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

pub const REGISTERS: u64 = 8;
pub const COUNTERS: u64 = 4;

/// splitmix64: a seed reproduces a run's choices.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// What one worker saw.
#[derive(Default)]
pub struct Recorded {
    /// Operations on registers and counters.
    pub ops: Vec<Operation>,
    /// Fresh rows whose put was acknowledged, and those whose outcome is unknown.
    pub acked_rows: Vec<(Vec<u8>, Vec<u8>)>,
    pub unknown_rows: Vec<(Vec<u8>, Vec<u8>)>,
    pub errors: usize,
}

const F: &[u8] = b"f";
const Q: &[u8] = b"q";

fn put(row: &[u8], value: &[u8]) -> Put {
    Put::new(Bytes::copy_from_slice(row)).add(F, Q, Bytes::copy_from_slice(value))
}

fn value_of(row: &basalt_types::RowResult) -> Option<Vec<u8>> {
    row.value(F, Q).map(|v| v.to_vec())
}

/// Runs `client`'s load on `table` until `stop`; times are nanoseconds since `start`.
pub fn worker(
    client: u32,
    table: &dyn Table,
    seed: u64,
    start: Instant,
    stop: &AtomicBool,
) -> Recorded {
    let mut rng = Rng::new(seed);
    let mut out = Recorded::default();
    let mut last_read: Vec<Option<Vec<u8>>> = vec![None; REGISTERS as usize];
    let now = || start.elapsed().as_nanos() as u64;
    let mut n = 0u64;
    while !stop.load(Ordering::Relaxed) {
        n += 1;
        let fresh = format!("w{client}-{n}").into_bytes();
        let dice = rng.below(100);
        if dice < 25 {
            let row = format!("u{client}-{n:06}").into_bytes();
            match table.put(&put(&row, &fresh)) {
                Ok(()) => out.acked_rows.push((row, fresh)),
                Err(_) => {
                    out.errors += 1;
                    out.unknown_rows.push((row, fresh))
                }
            }
            continue;
        }
        let register = rng.below(REGISTERS) as usize;
        let key = format!("r{register}").into_bytes();
        let invoked = now();
        let (key, kind, answer) = match dice {
            25..=44 => {
                let answer = table.put(&put(&key, &fresh)).map(|()| Ret::Done);
                (key, OpKind::Put(fresh), answer)
            }
            45..=69 => {
                let answer = table.get(&Get::new(Bytes::from(key.clone()))).map(|row| {
                    let value = value_of(&row);
                    last_read[register] = value.clone();
                    Ret::Read(value)
                });
                (key, OpKind::Get, answer)
            }
            70..=84 => {
                let counter = format!("c{}", rng.below(COUNTERS)).into_bytes();
                let increment = Increment::new(Bytes::from(counter.clone())).add(F, Q, 1);
                let answer = table.increment(&increment).and_then(|row| {
                    let value = value_of(&row).unwrap_or_default();
                    let bytes: [u8; 8] = value.as_slice().try_into().map_err(|_| {
                        basalt_api::ApiError::invalid("an increment answered no 8-byte value")
                    })?;
                    Ok(Ret::Incremented(i64::from_be_bytes(bytes)))
                });
                (counter, OpKind::Increment(1), answer)
            }
            _ => {
                let expected = last_read[register].clone();
                let check = CheckAndMutate {
                    row: Bytes::from(key.clone()),
                    condition: Condition::Column {
                        family: Bytes::from_static(F),
                        qualifier: Bytes::from_static(Q),
                        op: CompareOp::Equal,
                        expected: expected.clone().map(Bytes::from),
                    },
                    time_range: TimeRange::ALL,
                    mutations: RowMutations::new(
                        Bytes::from(key.clone()),
                        vec![Mutation::Put(put(&key, &fresh))],
                    )
                    .expect("one row"),
                };
                let answer = table
                    .check_and_mutate(&check)
                    .map(|r| Ret::Applied(r.succeeded));
                let kind = OpKind::CheckAndPut {
                    expected,
                    new: fresh,
                };
                (key, kind, answer)
            }
        };
        let completed = now();
        let outcome = match answer {
            Ok(ret) => Outcome::Ok(ret),
            Err(_) => {
                out.errors += 1;
                Outcome::Unknown
            }
        };
        out.ops.push(Operation::new(
            client, key, kind, invoked, completed, outcome,
        ));
    }
    out
}
