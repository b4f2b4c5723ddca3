//! How `FilterList` merges its filters' return codes (HBase's `mergeReturnCode` tables).

use crate::ReturnCode::{self, *};

pub fn is_include(code: ReturnCode) -> bool {
    matches!(code, Include | IncludeAndNextCol | IncludeAndSeekNextRow)
}

/// AND: `so_far` is always an include code (the list stops at the first other answer).
pub fn merge_and(so_far: ReturnCode, next: ReturnCode) -> ReturnCode {
    match (so_far, next) {
        (Include, n) => n,
        (_, SeekNextUsingHint) => SeekNextUsingHint,
        (IncludeAndNextCol, Include | IncludeAndNextCol) => IncludeAndNextCol,
        (IncludeAndNextCol, IncludeAndSeekNextRow) => IncludeAndSeekNextRow,
        (IncludeAndNextCol, Skip | NextCol) => NextCol,
        (IncludeAndSeekNextRow, Include | IncludeAndNextCol | IncludeAndSeekNextRow) => {
            IncludeAndSeekNextRow
        }
        (_, NextRow) | (IncludeAndSeekNextRow, Skip | NextCol) => NextRow,
        (Skip, Include | Skip) => Skip,
        (Skip, IncludeAndNextCol | NextCol) => NextCol,
        (Skip, IncludeAndSeekNextRow) => NextRow,
        // so_far is never one of these: the list has already returned it.
        (NextCol | NextRow | SeekNextUsingHint, _) => so_far,
    }
}

/// OR: the weakest skip; the cell is included when any filter includes it.
pub fn merge_or(so_far: ReturnCode, next: ReturnCode) -> ReturnCode {
    match (so_far, next) {
        (Include, _) => Include,
        (IncludeAndNextCol, Include | Skip | SeekNextUsingHint) => Include,
        (IncludeAndNextCol, _) => IncludeAndNextCol,
        (IncludeAndSeekNextRow, Include | Skip | SeekNextUsingHint) => Include,
        (IncludeAndSeekNextRow, IncludeAndNextCol | NextCol) => IncludeAndNextCol,
        (IncludeAndSeekNextRow, IncludeAndSeekNextRow | NextRow) => IncludeAndSeekNextRow,
        (Skip, Include | IncludeAndNextCol | IncludeAndSeekNextRow) => Include,
        (Skip, _) => Skip,
        (NextCol, Include) => Include,
        (NextCol, NextCol | NextRow) => NextCol,
        (NextCol, IncludeAndNextCol | IncludeAndSeekNextRow) => IncludeAndNextCol,
        (NextCol, Skip | SeekNextUsingHint) => Skip,
        (NextRow, Skip | SeekNextUsingHint) => Skip,
        (NextRow, n) => n,
        (SeekNextUsingHint, Include | IncludeAndNextCol | IncludeAndSeekNextRow) => Include,
        (SeekNextUsingHint, Skip | NextCol | NextRow) => Skip,
        (SeekNextUsingHint, SeekNextUsingHint) => SeekNextUsingHint,
    }
}
