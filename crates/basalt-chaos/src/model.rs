//! The sequential specification: one HBase cell seen as a register of `Option<bytes>`.
//!
//! Counters live in the same register, as HBase keeps them: an increment reads the value
//! as a big-endian `i64` (absent = 0), adds with Java's wrap-around, and writes the 8 bytes
//! back. An increment of a value that is not 8 bytes wide is refused by HBase ("Field is
//! not a long"), so here it has no transition at all.

use crate::history::{OpKind, Ret, Value};

/// The register's state: the cell's value, `None` when the row is absent.
pub type State = Option<Value>;

/// Applies `kind` to `state` sequentially: the state after it and the answer it gives, or
/// `None` when the operation cannot succeed from this state (an increment of a non-long).
pub fn apply(state: &State, kind: &OpKind) -> Option<(State, Ret)> {
    match kind {
        OpKind::Put(value) => Some((Some(value.clone()), Ret::Done)),
        OpKind::Get => Some((state.clone(), Ret::Read(state.clone()))),
        OpKind::Delete => Some((None, Ret::Done)),
        OpKind::Increment(delta) => {
            let now = counter(state)?.wrapping_add(*delta);
            Some((Some(now.to_be_bytes().to_vec()), Ret::Incremented(now)))
        }
        OpKind::CheckAndPut { expected, new } => {
            if state == expected {
                Some((Some(new.clone()), Ret::Applied(true)))
            } else {
                Some((state.clone(), Ret::Applied(false)))
            }
        }
    }
}

/// The register read as a counter: absent is 0, 8 bytes are a big-endian `i64`, anything
/// else is not a counter.
pub fn counter(state: &State) -> Option<i64> {
    match state {
        None => Some(0),
        Some(bytes) => <[u8; 8]>::try_from(bytes.as_slice())
            .ok()
            .map(i64::from_be_bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long(n: i64) -> State {
        Some(n.to_be_bytes().to_vec())
    }

    #[test]
    fn register_operations() {
        let a = Some(b"a".to_vec());
        assert_eq!(
            apply(&None, &OpKind::Put(b"a".to_vec())),
            Some((a.clone(), Ret::Done))
        );
        assert_eq!(
            apply(&a, &OpKind::Get),
            Some((a.clone(), Ret::Read(a.clone())))
        );
        assert_eq!(apply(&a, &OpKind::Delete), Some((None, Ret::Done)));
        let cas = |expected: Option<&[u8]>| OpKind::CheckAndPut {
            expected: expected.map(<[u8]>::to_vec),
            new: b"n".to_vec(),
        };
        assert_eq!(
            apply(&None, &cas(None)),
            Some((Some(b"n".to_vec()), Ret::Applied(true)))
        );
        assert_eq!(
            apply(&a, &cas(None)),
            Some((a.clone(), Ret::Applied(false)))
        );
        assert_eq!(
            apply(&a, &cas(Some(b"a"))).map(|(_, r)| r),
            Some(Ret::Applied(true))
        );
    }

    #[test]
    fn increments_are_big_endian_longs() {
        assert_eq!(
            apply(&None, &OpKind::Increment(3)),
            Some((long(3), Ret::Incremented(3)))
        );
        assert_eq!(
            apply(&long(3), &OpKind::Increment(-5)),
            Some((long(-2), Ret::Incremented(-2)))
        );
        assert_eq!(
            apply(&long(i64::MAX), &OpKind::Increment(1)),
            Some((long(i64::MIN), Ret::Incremented(i64::MIN)))
        );
        assert_eq!(apply(&Some(b"abc".to_vec()), &OpKind::Increment(1)), None);
    }
}
