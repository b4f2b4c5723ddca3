//! Family names as `'static` bytes. Every cell a file hands out carries its family, and a
//! slice of the block costs an atomic reference-count increment when the cell is made and
//! a decrement when it is dropped; a clone of static bytes costs neither. Each distinct
//! name is leaked once, so the set grows only with the families of the files ever opened
//! (names are at most 255 bytes).

use bytes::Bytes;
use parking_lot::Mutex;
use std::collections::HashSet;

static NAMES: Mutex<Option<HashSet<&'static [u8]>>> = Mutex::new(None);

/// `name` as static bytes, the same allocation for every call with equal bytes.
pub(crate) fn interned(name: &[u8]) -> Bytes {
    let mut names = NAMES.lock();
    let names = names.get_or_insert_with(HashSet::new);
    let stored = match names.get(name) {
        Some(stored) => *stored,
        None => {
            let leaked: &'static [u8] = Box::leak(name.to_vec().into_boxed_slice());
            names.insert(leaked);
            leaked
        }
    };
    Bytes::from_static(stored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_names_share_one_allocation() {
        let a = interned(b"cf");
        let b = interned(&b"xcf"[1..]);
        assert_eq!(a, Bytes::from_static(b"cf"));
        assert_eq!(a.as_ptr(), b.as_ptr());
        assert_ne!(interned(b"other").as_ptr(), a.as_ptr());
    }
}
