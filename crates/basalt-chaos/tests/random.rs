//! Histories recorded from a real sequential execution with random overlapping intervals:
//! linearizable by construction, so they must pass; one corrupted read must be caught.

use std::collections::HashMap;
use std::time::Instant;

use basalt_chaos::model::{apply, State};
use basalt_chaos::{check_history, CheckOptions, OpKind, Operation, Outcome, Ret};

/// xorshift64*: deterministic and dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

struct Shape {
    clients: u32,
    ops: usize,
    keys: u64,
    /// Percentages of unknown and failed outcomes.
    unknown: u64,
    failed: u64,
    kind: fn(&mut Rng) -> OpKind,
}

fn value(rng: &mut Rng) -> Vec<u8> {
    // Mostly counters, so increments and puts mix; sometimes text, which increments refuse.
    if rng.chance(85) {
        (rng.below(4) as i64).to_be_bytes().to_vec()
    } else {
        b"text".to_vec()
    }
}

fn kind(rng: &mut Rng) -> OpKind {
    match rng.below(10) {
        0..=2 => OpKind::Put(value(rng)),
        3..=5 => OpKind::Get,
        6 => OpKind::Delete,
        7..=8 => OpKind::Increment(rng.below(3) as i64 - 1),
        _ => OpKind::CheckAndPut {
            expected: rng.chance(70).then(|| value(rng)),
            new: value(rng),
        },
    }
}

/// Each client issues operations one after another; each takes effect at a random moment
/// inside its interval (an unknown one possibly long after its client gave up, or never),
/// and the answers come from executing them in that order.
fn generate(seed: u64, shape: &Shape) -> Vec<Operation> {
    let mut rng = Rng(seed.max(1));
    let mut clock = vec![0u64; shape.clients as usize];
    // (moment of effect, index) for the operations that take effect.
    let mut effects = Vec::new();
    let mut history = Vec::with_capacity(shape.ops);
    for i in 0..shape.ops {
        let client = rng.below(u64::from(shape.clients)) as u32;
        let invoked = clock[client as usize] + rng.below(40);
        let completed = invoked + 1 + rng.below(200);
        clock[client as usize] = completed + 1;
        let key = format!("row-{}", rng.below(shape.keys)).into_bytes();
        let roll = rng.below(100);
        let outcome = if roll < shape.unknown {
            Outcome::Unknown
        } else if roll < shape.unknown + shape.failed {
            Outcome::Failed
        } else {
            Outcome::Ok(Ret::Done) // answered below
        };
        let span = match outcome {
            Outcome::Unknown => 2000,
            _ => completed - invoked,
        };
        if outcome != Outcome::Failed && !(outcome == Outcome::Unknown && rng.chance(40)) {
            // Distinct moments: scaled, with the client as tie-breaker.
            effects.push(((invoked + rng.below(span + 1)) * 64 + u64::from(client), i));
        }
        history.push(Operation::new(
            client,
            key,
            (shape.kind)(&mut rng),
            invoked * 64,
            completed * 64 + 63,
            outcome,
        ));
    }
    effects.sort_unstable();
    let mut registers: HashMap<Vec<u8>, State> = HashMap::new();
    for (_, i) in effects {
        let op = &mut history[i];
        let state = registers.entry(op.key.clone()).or_default();
        match apply(state, &op.kind) {
            Some((after, ret)) => {
                *state = after;
                if let Outcome::Ok(_) = op.outcome {
                    op.outcome = Outcome::Ok(ret);
                }
            }
            // HBase refuses an increment of a value that is not a long.
            None if op.outcome != Outcome::Unknown => op.outcome = Outcome::Failed,
            None => {}
        }
    }
    history
}

fn check_generated(seed: u64, shape: &Shape) {
    let mut history = generate(seed, shape);
    let options = CheckOptions::default();
    let started = Instant::now();
    let report = check_history(&history, &options);
    let took = started.elapsed();
    assert!(report.is_proven(), "seed {seed}: {report:#}");
    assert_eq!(report.ops, shape.ops);
    eprintln!(
        "seed {seed}: {} ops, {} steps, {took:?}",
        report.ops, report.steps
    );

    // A read answered with a value nobody wrote is caught, and blamed.
    let mut rng = Rng(seed ^ 0x9E37_79B9_7F4A_7C15);
    let reads: Vec<usize> = (0..history.len())
        .filter(|&i| history[i].kind == OpKind::Get && matches!(history[i].outcome, Outcome::Ok(_)))
        .collect();
    let i = reads[rng.below(reads.len() as u64) as usize];
    history[i].outcome = Outcome::Ok(Ret::Read(Some(b"never written".to_vec())));
    let report = check_history(&history, &options);
    assert_eq!(report.violations.len(), 1, "seed {seed}: {report}");
    assert!(report.undecided.is_empty(), "seed {seed}: {report}");
    let violation = &report.violations[0];
    assert_eq!(violation.key, history[i].key);
    assert_eq!(
        violation.culprit.as_ref(),
        Some(&history[i]),
        "seed {seed}: {violation:#}"
    );
}

#[test]
fn random_histories_on_a_few_keys() {
    let shape = Shape {
        clients: 8,
        ops: 2000,
        keys: 5,
        unknown: 5,
        failed: 3,
        kind,
    };
    for seed in 1..=5 {
        check_generated(seed, &shape);
    }
}

#[test]
fn random_history_on_one_hot_key() {
    let shape = Shape {
        clients: 8,
        ops: 3000,
        keys: 1,
        unknown: 0,
        failed: 3,
        kind,
    };
    check_generated(42, &shape);
}

#[test]
fn random_histories_with_many_timeouts() {
    let shape = Shape {
        clients: 8,
        ops: 400,
        keys: 2,
        unknown: 10,
        failed: 5,
        kind,
    };
    for seed in 7..=12 {
        check_generated(seed, &shape);
    }
}
