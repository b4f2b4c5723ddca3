//! [`SeqId`]: a region's sequence id, the number MVCC orders its writes by.
//!
//! Every write to a region takes the next sequence id and its cells carry it, in the
//! memstore and in store files. A region's *read point* is a sequence id too: a reader at
//! read point `p` sees the cells whose sequence id is at most `p`. The ids belong to one
//! region (and its daughters, which continue their parent's ids), so a read point means
//! nothing in another region.
//!
//! | write | sequence id | seen at read point 6 |
//! |-------|-------------|----------------------|
//! | put a | 5           | yes                  |
//! | put b | 6           | yes                  |
//! | put c | 7           | no                   |

use std::fmt;

/// A sequence id (or a read point) of one region. HBase's wire form is a `uint64` in which
/// 0 means "none"; [`SeqId::from_wire`] reads it so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SeqId(pub u64);

impl SeqId {
    /// A read point from the wire, where 0 (or absence) means "none given".
    pub fn from_wire(value: Option<u64>) -> Option<SeqId> {
        value.filter(|v| *v > 0).map(SeqId)
    }

    pub fn get(self) -> u64 {
        self.0
    }
}

impl fmt::Display for SeqId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_on_the_wire_means_no_read_point() {
        assert_eq!(SeqId::from_wire(None), None);
        assert_eq!(SeqId::from_wire(Some(0)), None);
        assert_eq!(SeqId::from_wire(Some(7)), Some(SeqId(7)));
    }
}
