//! Which families and columns a read selects.

use bytes::Bytes;
use std::collections::{BTreeMap, BTreeSet};

/// Families and qualifiers to read. Empty means every family of the table; a family mapped
/// to `None` means every column of that family.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnSelection {
    families: BTreeMap<Bytes, Option<BTreeSet<Bytes>>>,
}

impl ColumnSelection {
    /// Selects a whole family (overrides any single columns of it chosen before).
    pub fn add_family(&mut self, family: impl Into<Bytes>) {
        self.families.insert(family.into(), None);
    }

    /// Selects one column, unless its whole family is already selected.
    pub fn add_column(&mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) {
        let entry = self
            .families
            .entry(family.into())
            .or_insert_with(|| Some(BTreeSet::new()));
        if let Some(qualifiers) = entry {
            qualifiers.insert(qualifier.into());
        }
    }

    pub fn is_all(&self) -> bool {
        self.families.is_empty()
    }

    /// Whether the read wants cells of `family` at all.
    pub fn wants_family(&self, family: &[u8]) -> bool {
        self.is_all() || self.families.contains_key(family)
    }

    /// The explicit qualifiers selected in `family`, `None` for "all of them".
    pub fn qualifiers(&self, family: &[u8]) -> Option<&BTreeSet<Bytes>> {
        self.families.get(family).and_then(|q| q.as_ref())
    }

    /// Whether the read wants `family:qualifier`.
    pub fn wants(&self, family: &[u8], qualifier: &[u8]) -> bool {
        if self.is_all() {
            return true;
        }
        match self.families.get(family) {
            None => false,
            Some(None) => true,
            Some(Some(qualifiers)) => qualifiers.contains(qualifier),
        }
    }

    /// The families named, in order (empty when all are wanted).
    pub fn families(&self) -> impl Iterator<Item = &Bytes> {
        self.families.keys()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn family_overrides_columns() {
        let mut s = ColumnSelection::default();
        assert!(s.wants(b"a", b"x"));
        s.add_column("a", "x");
        assert!(s.wants(b"a", b"x"));
        assert!(!s.wants(b"a", b"y"));
        assert!(!s.wants_family(b"b"));
        s.add_family("a");
        assert!(s.wants(b"a", b"y"));
        s.add_column("a", "z");
        assert_eq!(s.qualifiers(b"a"), None);
    }
}
