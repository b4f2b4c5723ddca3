//! Which regions' edits a roll-forward reads, and in what order: the snapshot's regions
//! and every region descending from them by splits and merges (their lineage records,
//! [`crate::snapshot::lineage`]), each with a generation that orders their edits.
//!
//! A region's generation is 0 for a snapshot's region, else one more than its newest
//! parent's. A parent's edits were all logged before its daughters took any (it closed
//! first), so replaying by generation, then sequence id, keeps every row's history in
//! order. A region counts only if *every* parent counts. Worked example, snapshot {A, B}:
//!
//! | region | made by                | parents | generation      |
//! |--------|------------------------|---------|-----------------|
//! | A, B   | the snapshot holds them| —       | 0               |
//! | A1, A2 | split of A             | A       | 1               |
//! | M      | merge of A2 and B      | A2, B   | 2               |
//! | R      | a restore since        | none    | — another history |
//! | R1, R2 | split of R             | R       | — (R does not count) |
//!
//! A region of another history created after the snapshot and by the restore's time
//! ([`other_history`]) means the table was restored, truncated or re-created in between:
//! its edits belong to that history, so the restore is refused rather than mixed.

use crate::snapshot::lineage::Lineage;
use std::collections::{HashMap, HashSet};

/// Region (encoded name) → generation.
pub type Generations = HashMap<String, u32>;

/// The snapshot's regions and their descendants by `lineage`, with generations.
pub fn generations<'a>(
    snapshot: impl IntoIterator<Item = &'a str>,
    lineage: &[Lineage],
) -> Generations {
    let mut out: Generations = snapshot.into_iter().map(|r| (r.to_string(), 0)).collect();
    // Each pass adds at least one region or stops; a chain is at most `lineage.len()` long.
    loop {
        let before = out.len();
        for l in lineage {
            if out.contains_key(&l.region) || l.parents.is_empty() {
                continue;
            }
            let parents: Option<Vec<u32>> =
                l.parents.iter().map(|(p, _)| out.get(p).copied()).collect();
            if let Some(gens) = parents {
                let newest = gens.into_iter().max().unwrap_or(0);
                out.insert(l.region.clone(), newest + 1);
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

/// The regions the snapshot's regions came from (before the snapshot: not another history).
fn ancestors(snapshot: &[&str], lineage: &[Lineage]) -> HashSet<String> {
    let by_region: HashMap<&str, &Lineage> =
        lineage.iter().map(|l| (l.region.as_str(), l)).collect();
    let mut out = HashSet::new();
    let mut todo: Vec<&str> = snapshot.to_vec();
    while let Some(r) = todo.pop() {
        for (p, _) in by_region
            .get(r)
            .map(|l| l.parents.as_slice())
            .unwrap_or_default()
        {
            if out.insert(p.clone()) {
                todo.push(p);
            }
        }
    }
    out
}

/// A region of the table (now in the catalog, `current`, or known from `lineage`) that is
/// neither the snapshot's, nor descends from it, nor came before it, and was created after
/// the snapshot (`creation_ms`) and by `to_ms`: the oldest such (encoded name, region id).
/// A region still in the catalog counts from any time (it cannot predate the snapshot
/// unless the snapshot holds it).
pub fn other_history(
    snapshot: &[&str],
    creation_ms: i64,
    generations: &Generations,
    current: &[(String, u64)],
    lineage: &[Lineage],
    to_ms: i64,
) -> Option<(String, u64)> {
    let before = ancestors(snapshot, lineage);
    let as_ms = |id: u64| i64::try_from(id).unwrap_or(i64::MAX);
    let now = current.iter().map(|(r, id)| (r, *id, true));
    let known = lineage.iter().flat_map(|l| {
        std::iter::once((&l.region, l.region_id, false))
            .chain(l.parents.iter().map(|(p, id)| (p, *id, false)))
    });
    now.chain(known)
        .filter(|(r, id, in_catalog)| {
            !generations.contains_key(r.as_str())
                && !before.contains(r.as_str())
                && as_ms(*id) <= to_ms
                && (*in_catalog || as_ms(*id) >= creation_ms)
        })
        .map(|(r, id, _)| (r.clone(), id))
        .min_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)))
}
