//! Operation nonces of increments and appends, so a retried one is answered, not applied
//! twice.
//!
//! A Java client tags each increment and append with `(nonce_group, nonce)`. The first call
//! with a nonce runs and its answer is kept; a retry with the same nonce gets the kept
//! answer (HBase's server answers `OperationConflictException` instead; an answer is what
//! the client wanted). A retry arriving while the first still runs is told to come back
//! (`OperationConflictException`, retryable). A failed call forgets its nonce. At most
//! `capacity` answers are kept; the oldest go first.

use super::Reply;
use crate::RpcError;
use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};

pub type NonceKey = basalt_types::Nonce;

const CONFLICT: &str = "org.apache.hadoop.hbase.exceptions.OperationConflictException";

pub struct Nonces {
    capacity: usize,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// `None` while the first call runs.
    answers: HashMap<NonceKey, Option<Reply>>,
    order: VecDeque<NonceKey>,
}

impl Nonces {
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            inner: Mutex::new(Inner::default()),
        }
    }

    /// Runs `op` once for `key` (every time when there is no key).
    pub fn once(
        &self,
        key: Option<NonceKey>,
        op: impl FnOnce() -> Result<Reply, RpcError>,
    ) -> Result<Reply, RpcError> {
        let Some(key) = key else {
            return op();
        };
        {
            let mut inner = self.inner.lock();
            match inner.answers.get(&key) {
                Some(Some(answer)) => return Ok(answer.clone()),
                Some(None) => {
                    return Err(RpcError::new(
                        CONFLICT,
                        "the same operation (nonce) is still running",
                        false,
                    ))
                }
                None => {}
            }
            while inner.order.len() >= self.capacity {
                match inner.order.pop_front() {
                    Some(old) => {
                        inner.answers.remove(&old);
                    }
                    None => break,
                }
            }
            inner.answers.insert(key, None);
            inner.order.push_back(key);
        }
        let result = op();
        let mut inner = self.inner.lock();
        match &result {
            Ok(answer) => {
                if let Some(slot) = inner.answers.get_mut(&key) {
                    *slot = Some(answer.clone());
                }
            }
            Err(_) => {
                inner.answers.remove(&key);
                inner.order.retain(|k| *k != key);
            }
        }
        result
    }
}

/// The key of a mutation's nonce: none when the client sent none (0).
pub fn key(group: Option<u64>, nonce: Option<u64>) -> Option<NonceKey> {
    match nonce {
        Some(n) if n != 0 => Some(NonceKey {
            group: group.unwrap_or(0),
            nonce: n,
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn n(group: u64, nonce: u64) -> NonceKey {
        NonceKey { group, nonce }
    }

    #[test]
    fn a_repeat_gets_the_first_answer_and_a_failure_is_forgotten() {
        let nonces = Nonces::new(2);
        let runs = Cell::new(0);
        let op = || {
            runs.set(runs.get() + 1);
            Ok(Reply::inline(vec![runs.get() as u8]))
        };
        let answer = |n: u8| Ok(Reply::inline(vec![n]));
        assert_eq!(nonces.once(Some(n(1, 1)), op), answer(1));
        assert_eq!(nonces.once(Some(n(1, 1)), op), answer(1), "not run again");
        assert_eq!(nonces.once(None, op), answer(2));
        let failed = nonces.once(Some(n(1, 2)), || Err(RpcError::do_not_retry("no")));
        assert!(failed.is_err());
        assert_eq!(nonces.once(Some(n(1, 2)), op), answer(3), "runs afresh");
        // Capacity 2: (1, 1) was pushed out by (1, 2) and (1, 3).
        assert_eq!(nonces.once(Some(n(1, 3)), op), answer(4));
        assert_eq!(nonces.once(Some(n(1, 1)), op), answer(5));
        assert_eq!(key(Some(7), Some(0)), None);
        assert_eq!(key(None, Some(9)), Some(n(0, 9)));
    }
}
