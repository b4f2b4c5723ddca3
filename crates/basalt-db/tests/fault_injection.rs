//! The fault-injection suite: the designed outcome of damage to every kind of file.
//!
//! For each file kind (a store file's data block, index, trailer and bloom; a manifest;
//! `hbase:meta`'s store file; the newest log segment's header, first, middle and last
//! record) and each kind of damage (a bit flip, a truncation, a zeroed tail, appended
//! garbage) a copy of a pristine data folder is damaged, reopened and read back row by
//! row. The outcome must be the designed one, and in every case: the database opens, no
//! read returns a wrong value, a failed read fails within a second with an error naming
//! the damaged file, a region is either served whole or failed whole (except reads of a
//! damaged data block), and no store file is deleted (moved aside is fine).
//!
//! This suite is a standing gate for every change to recovery: a change that alters an
//! outcome must change the table below, and say why.

use crate::faults;

use faults::damage::{apply, locate, Damage, Target};
use faults::outcome::{check, Expect};
use faults::world::{build, copy_dir, RegionId::*};
use Damage::*;

/// Every case and its designed outcome.
fn cases() -> Vec<(Target, Damage, Expect)> {
    use Target::*;
    let mut cases = Vec::new();
    // A damaged data block is found when read: the region opens, that block's reads fail.
    cases.push((StoreData, Flip, Expect::BlockError(T1)));
    // Anything else damaged in a store file is found at open: its region fails alone.
    for damage in [Truncate, ZeroTail, Garbage] {
        cases.push((StoreData, damage, Expect::Failed(vec![T1])));
    }
    for target in [StoreIndex, StoreTrailer, StoreBloom] {
        for damage in [Flip, Truncate, ZeroTail, Garbage] {
            cases.push((target, damage, Expect::Failed(vec![T1])));
        }
    }
    // A manifest is written twice: either copy alone brings the region up.
    for damage in [Flip, Truncate, ZeroTail, Garbage] {
        cases.push((Manifest, damage, Expect::Served));
    }
    // Without the catalog no table can be served; nothing is cleaned up or deleted.
    for damage in [Flip, Truncate, ZeroTail, Garbage] {
        cases.push((MetaStore, damage, Expect::CatalogFailed));
    }
    // The newest log segment. Damage with no valid record after it is a torn tail: cut
    // off with a warning. Damage followed by valid records fails only the regions that
    // may have had edits in it: a flip inside one record whose header held costs only
    // that record's region (its name, read from the payload, is proof when no other
    // region's name is near it). Garbage after the last record is a torn tail too.
    // A damaged version field leaves the records' format unknown: the whole segment is
    // unreadable, and every region that logged nothing readable after it (hbase:meta
    // among them) may have lost edits there. A damaged id costs only the header.
    cases.push((WalHeader, Flip, Expect::CatalogFailed));
    cases.push((WalHeaderId, Flip, Expect::Served));
    cases.push((WalHeader, Truncate, Expect::TornTail(0)));
    cases.push((WalHeader, ZeroTail, Expect::TornTail(0)));
    cases.push((WalFirst, Flip, Expect::Failed(vec![T0])));
    cases.push((WalMiddle, Flip, Expect::Failed(vec![T0])));
    cases.push((WalLast, Flip, Expect::TornTail(19)));
    for (target, record) in [(WalFirst, 0), (WalMiddle, 10), (WalLast, 19)] {
        cases.push((target, Truncate, Expect::TornTail(record)));
        cases.push((target, ZeroTail, Expect::TornTail(record)));
    }
    for target in [WalHeader, WalFirst, WalMiddle, WalLast] {
        cases.push((target, Garbage, Expect::Served));
    }
    cases
}

#[test]
fn every_damage_has_its_designed_outcome() {
    let worlds = build();
    let scratch = tempfile::tempdir().expect("temp dir");
    let mut failures = Vec::new();
    for (index, (target, damage, expect)) in cases().into_iter().enumerate() {
        let root = scratch.path().join(format!("case-{index}"));
        let crashed = target.is_wal();
        copy_dir(
            if crashed {
                &worlds.crashed
            } else {
                &worlds.clean
            },
            &root,
        );
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let (file, offset) = locate(&worlds, &root, target);
            apply(&file, offset, damage);
            let name = file
                .file_name()
                .expect("a file")
                .to_string_lossy()
                .into_owned();
            check(&worlds, &root, crashed, &name, &expect)
        }));
        if let Err(panic) = outcome {
            let why = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(format!(
                "{target:?} × {damage:?} (designed {expect:?}): {why}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases missed their design:\n{}",
        failures.len(),
        cases().len(),
        failures.join("\n")
    );
}
