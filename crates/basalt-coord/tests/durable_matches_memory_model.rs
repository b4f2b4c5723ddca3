//! Model test: random transactions against a durable coordinator, reopened at random
//! points and folding its journal often, leave it in exactly the state of an in-memory
//! coordinator given the same transactions (every key with its create/mod revision and
//! version, and the revision).

use crate::durable;

use basalt_coord::{Compare, Coordinator, DurableOptions, LocalCoordinator, Op, Txn};
use durable::state;
use proptest::prelude::*;

const KEYS: [&str; 5] = ["a", "a/1", "a/2", "b", "b/1"];
const PREFIXES: [&str; 4] = ["a", "a/", "b/", ""];

#[derive(Debug, Clone)]
enum Step {
    Put(usize, u8),
    Delete(usize),
    DeletePrefix(usize),
    /// Puts `key` if its mod revision is what the model holds (`true`) or one off;
    /// the failure branch puts `failed`.
    Guarded(usize, bool),
    Reopen,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..KEYS.len(), any::<u8>()).prop_map(|(k, v)| Step::Put(k, v)),
        2 => (0..KEYS.len()).prop_map(Step::Delete),
        1 => (0..PREFIXES.len()).prop_map(Step::DeletePrefix),
        2 => (0..KEYS.len(), any::<bool>()).prop_map(|(k, hit)| Step::Guarded(k, hit)),
        1 => Just(Step::Reopen),
    ]
}

fn options() -> DurableOptions {
    DurableOptions {
        journal_records_max: 7,
        ..DurableOptions::default()
    }
}

async fn txn_for(step: &Step, model: &LocalCoordinator) -> Option<Txn> {
    let txn = match step {
        Step::Put(k, v) => Txn {
            success: vec![Op::put(KEYS[*k], vec![*v])],
            ..Txn::default()
        },
        Step::Delete(k) => Txn {
            success: vec![Op::delete(KEYS[*k])],
            ..Txn::default()
        },
        Step::DeletePrefix(p) => Txn {
            success: vec![Op::DeletePrefix {
                prefix: PREFIXES[*p].as_bytes().to_vec(),
            }],
            ..Txn::default()
        },
        Step::Guarded(k, hit) => {
            let current = model.get(KEYS[*k].as_bytes()).await.expect("get");
            let revision = current.map_or(0, |kv| kv.mod_revision) + i64::from(!hit);
            Txn {
                compares: vec![Compare::mod_revision(KEYS[*k], revision)],
                success: vec![Op::put(KEYS[*k], "guarded")],
                failure: vec![Op::put("failed", revision.to_string())],
            }
        }
        Step::Reopen => return None,
    };
    Some(txn)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn a_reopened_durable_coordinator_equals_the_in_memory_model(
        steps in prop::collection::vec(step(), 1..40)
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
        let dir = tempfile::tempdir().expect("temp dir");
        runtime.block_on(async {
            let model = LocalCoordinator::new();
            let mut durable = LocalCoordinator::open_with(dir.path(), options()).expect("opens");
            for step in &steps {
                match txn_for(step, &model).await {
                    Some(txn) => {
                        let expected = model.txn(txn.clone()).await.expect("model txn");
                        let got = durable.txn(txn).await.expect("durable txn");
                        assert_eq!(got, expected, "{step:?}");
                    }
                    None => {
                        drop(durable);
                        durable = durable::open_with(dir.path(), options());
                    }
                }
                assert_eq!(state(&durable).await, state(&model).await, "after {step:?}");
            }
        });
    }
}
