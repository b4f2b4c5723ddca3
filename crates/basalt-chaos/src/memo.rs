//! The search's memory: configurations already explored, and register values by number.
//!
//! A configuration is the set of acknowledged operations placed, the register's value, the
//! set of unknown operations placed, and whether the next placement must observe the
//! register. One configuration dominates another when they agree on the first two, its
//! unknown set is a subset of the other's and it is no more restricted: whatever the
//! dominated one can still reach, the dominating one can too (it may simply never place
//! the extra unknown operations). So a configuration is explored only when no explored one
//! dominates it; per (acknowledged set, value) the unknown sets kept form an antichain.

use std::collections::HashMap;

use crate::model::State;

pub(crate) struct Memo {
    /// Register values by number, so configurations hold a number.
    pub(crate) states: Vec<State>,
    state_ids: HashMap<State, usize>,
    /// (acknowledged set, value, restricted) → the unknown sets explored with it.
    seen: HashMap<Vec<u64>, Vec<Vec<u64>>>,
}

fn subset(small: &[u64], big: &[u64]) -> bool {
    small.iter().zip(big).all(|(s, b)| s & !b == 0)
}

impl Memo {
    pub(crate) fn new() -> Self {
        Memo {
            states: vec![None],
            state_ids: HashMap::from([(None, 0)]),
            seen: HashMap::new(),
        }
    }

    /// The number of a register value.
    pub(crate) fn intern(&mut self, state: State) -> usize {
        if let Some(&id) = self.state_ids.get(&state) {
            return id;
        }
        let id = self.states.len();
        self.states.push(state.clone());
        self.state_ids.insert(state, id);
        id
    }

    /// Records a configuration; false when it, or one that dominates it, was explored
    /// before. One dominates another when it has the same acknowledged operations placed
    /// and the same state, a subset of its unknown operations placed, and no more
    /// restriction on what comes next.
    pub(crate) fn visit(
        &mut self,
        acked: &[u64],
        state: usize,
        unknown: &[u64],
        observe: bool,
    ) -> bool {
        let mut key = Vec::with_capacity(acked.len() + 1);
        key.extend_from_slice(acked);
        key.push(state as u64 * 2);
        if observe {
            let free = self.seen.get(&key);
            if free.is_some_and(|seen| seen.iter().any(|s| subset(s, unknown))) {
                return false;
            }
            key.last_mut().into_iter().for_each(|k| *k += 1);
        }
        let seen = self.seen.entry(key).or_default();
        if seen.iter().any(|s| subset(s, unknown)) {
            return false;
        }
        seen.retain(|s| !subset(unknown, s));
        seen.push(unknown.to_vec());
        true
    }
}
