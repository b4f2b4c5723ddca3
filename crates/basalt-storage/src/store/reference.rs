//! A reference: a store file that is part of another region's HFile, as splits and merges
//! leave them.
//!
//! A split of parent `P = [s, e)` at row `k` gives daughters `[s, k)` and `[k, e)` whose
//! stores list references to P's files instead of copies: the bottom daughter reads the
//! rows `< k` of each file, the top daughter the rows `>= k`. A merge of two adjacent
//! regions lists references to both regions' files whole. The first compaction of a store
//! holding references rewrites them into files of its own, after which the source region's
//! folder can be deleted (see [`crate::region::janitor::references_into`]).
//!
//! | range       | rows it shows | from a file holding rows a, b, k, m (split key k) |
//! |-------------|---------------|----------------------------------------------------|
//! | `Bottom(k)` | `row < k`     | a, b                                               |
//! | `Top(k)`    | `row >= k`    | k, m                                               |
//! | `Whole`     | every row     | a, b, k, m                                         |
//!
//! A reference names its source region by its folder name, a sibling in the same table
//! folder (`<table>/<source region>/<family>/<file id>.hfile`), so a table folder can be
//! moved whole.

use super::family_dir_name;
use super::file::file_name;
use bytes::Bytes;
use std::path::{Path, PathBuf};

/// Which part of the source file a reference shows.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RefRange {
    /// Rows strictly below the split row.
    Bottom(Bytes),
    /// Rows at or above the split row.
    Top(Bytes),
    /// Every row.
    Whole,
}

impl RefRange {
    pub fn contains_row(&self, row: &[u8]) -> bool {
        match self {
            Self::Bottom(split) => row < split.as_ref(),
            Self::Top(split) => row >= split.as_ref(),
            Self::Whole => true,
        }
    }

    /// The part of the rows `[first, last]` this range shows, `None` when it shows none.
    /// The bound at the split row is inclusive (a superset, good enough to skip files).
    pub fn clamp_rows<'a>(
        &'a self,
        first: &'a [u8],
        last: &'a [u8],
    ) -> Option<(&'a [u8], &'a [u8])> {
        match self {
            Self::Whole => Some((first, last)),
            Self::Bottom(split) if first >= split.as_ref() => None,
            Self::Bottom(split) => Some((first, last.min(split.as_ref()))),
            Self::Top(split) if last < split.as_ref() => None,
            Self::Top(split) => Some((first.max(split.as_ref()), last)),
        }
    }
}

/// A store file that is (part of) another region's file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reference {
    /// The source region's folder name, a sibling of the referencing region's folder.
    pub region: String,
    /// The source file's id in the source region's manifest.
    pub file_id: u64,
    pub range: RefRange,
}

impl Reference {
    /// The source file's path, for a store of family `family` in the region at `region_dir`.
    pub fn source_path(&self, region_dir: &Path, family: &[u8]) -> PathBuf {
        table_dir(region_dir)
            .join(&self.region)
            .join(family_dir_name(family))
            .join(file_name(self.file_id))
    }
}

/// The table folder holding `region_dir` (its parent).
pub fn table_dir(region_dir: &Path) -> &Path {
    region_dir.parent().unwrap_or(Path::new(""))
}

/// Longest region folder name a reference records.
pub const REGION_FOLDER_MAX_BYTES: usize = 1024;

/// Whether `name` can name a sibling region folder: one plain path component.
pub fn valid_region_folder(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= REGION_FOLDER_MAX_BYTES
        && name != "."
        && name != ".."
        && !name.contains('/')
        && !name.contains('\\')
        && !name.contains('\0')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_split_rows_at_the_key() {
        let k = Bytes::from_static(b"k");
        let bottom = RefRange::Bottom(k.clone());
        let top = RefRange::Top(k);
        for (row, low) in [
            (&b"a"[..], true),
            (b"j\xff", true),
            (b"k", false),
            (b"k\0", false),
        ] {
            assert_eq!(bottom.contains_row(row), low);
            assert_eq!(top.contains_row(row), !low);
        }
        assert_eq!(bottom.clamp_rows(b"a", b"z"), Some((&b"a"[..], &b"k"[..])));
        assert_eq!(bottom.clamp_rows(b"k", b"z"), None);
        assert_eq!(top.clamp_rows(b"a", b"j"), None);
        assert_eq!(top.clamp_rows(b"a", b"k"), Some((&b"k"[..], &b"k"[..])));
    }

    #[test]
    fn source_is_a_sibling_folder() {
        let r = Reference {
            region: "parent".into(),
            file_id: 7,
            range: RefRange::Whole,
        };
        assert_eq!(
            r.source_path(Path::new("/d/ns/t/daughter"), b"cf"),
            Path::new("/d/ns/t/parent/cf/00000000000000000007.hfile")
        );
        assert!(
            !valid_region_folder("../x") && !valid_region_folder("") && valid_region_folder("r1")
        );
    }
}
