//! Recent operation nonces, so a retried increment or append is answered, not re-applied.
//!
//! A client tags each increment and append with `(nonce_group, nonce)`: a random group per
//! connection and a counter within it. The first call with a nonce runs and its result is
//! kept; a retry with the same nonce gets the kept result. A retry arriving while the first
//! call still runs gets "busy" and tries again later. A failed call forgets its nonce, so a
//! retry runs afresh. At most `capacity` nonces are kept; the oldest go first.

use basalt_types::ActionResult;
use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};

pub type NonceKey = basalt_types::Nonce;

enum State {
    Running,
    Done(ActionResult),
}

/// What to do with a call carrying a nonce.
pub enum Begin {
    /// First time: run it, then call [`NonceCache::finish`] or [`NonceCache::forget`].
    Run,
    /// Already applied: answer with this.
    Done(ActionResult),
    /// The first call is still running.
    Running,
}

pub struct NonceCache {
    capacity: usize,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    states: HashMap<NonceKey, State>,
    order: VecDeque<NonceKey>,
}

impl NonceCache {
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            inner: Mutex::new(Inner::default()),
        }
    }

    pub fn begin(&self, key: NonceKey) -> Begin {
        let mut inner = self.inner.lock();
        match inner.states.get(&key) {
            Some(State::Running) => return Begin::Running,
            Some(State::Done(result)) => return Begin::Done(result.clone()),
            None => {}
        }
        while inner.order.len() >= self.capacity {
            match inner.order.pop_front() {
                Some(old) => {
                    inner.states.remove(&old);
                }
                None => break,
            }
        }
        inner.states.insert(key, State::Running);
        inner.order.push_back(key);
        Begin::Run
    }

    pub fn finish(&self, key: NonceKey, result: ActionResult) {
        let mut inner = self.inner.lock();
        if let Some(state) = inner.states.get_mut(&key) {
            *state = State::Done(result);
        }
    }

    /// The call failed: a retry may run it again.
    pub fn forget(&self, key: NonceKey) {
        let mut inner = self.inner.lock();
        inner.states.remove(&key);
        inner.order.retain(|k| *k != key);
    }

    pub fn len(&self) -> usize {
        self.inner.lock().states.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(group: u64, nonce: u64) -> NonceKey {
        NonceKey { group, nonce }
    }

    #[test]
    fn a_nonce_runs_once_and_is_answered_after() {
        let cache = NonceCache::new(2);
        assert!(matches!(cache.begin(n(1, 1)), Begin::Run));
        assert!(matches!(cache.begin(n(1, 1)), Begin::Running));
        cache.finish(n(1, 1), ActionResult::Done);
        assert!(matches!(
            cache.begin(n(1, 1)),
            Begin::Done(ActionResult::Done)
        ));
    }

    #[test]
    fn failures_are_forgotten_and_the_oldest_goes_first() {
        let cache = NonceCache::new(2);
        assert!(matches!(cache.begin(n(1, 1)), Begin::Run));
        cache.forget(n(1, 1));
        assert!(matches!(cache.begin(n(1, 1)), Begin::Run));
        cache.finish(n(1, 1), ActionResult::Done);
        assert!(matches!(cache.begin(n(1, 2)), Begin::Run));
        assert!(matches!(cache.begin(n(1, 3)), Begin::Run));
        assert_eq!(cache.len(), 2);
        assert!(matches!(cache.begin(n(1, 1)), Begin::Run));
    }
}
