//! Damage in the log, and which regions it costs: a pure core, no I/O.
//!
//! Replay reads every record that passes its checks and reports the bytes that do not as
//! [`DamagedSpan`]s of a [`DamagedSegment`]. Whether a region can open without those bytes
//! depends on its flushed sequence id, known only when the region opens; [`judge`] decides
//! it from the readable records around the damage.
//!
//! # The rule
//!
//! Sequence ids are per region. They do **not** strictly increase in log order: a writer
//! takes its id before it appends, outside any lock shared with the other writers of the
//! region, so two writes on different rows can reach the log as 6 then 5. What does hold is
//! the flush point: a flush takes the region's update lock, which every write holds from
//! taking its id until its record is queued, and records `flushed` = the highest id handed
//! out. So every edit with an id at or below `flushed` is in the log *before* every edit
//! above it.
//!
//! Hence: **a region does not need a damaged span if it has a readable edit after the span
//! (in this or any later segment) whose id is at or below its flushed id.** Any edit of
//! the region inside the span was logged before that edit, so it is flushed too. Otherwise
//! the region needs the span: nothing readable shows that the span holds no unflushed edit
//! of it, and what it may lose is every id above `flushed` that no readable record carries.
//!
//! Readable edits include the barriers regions log: an edit with no cells carrying the
//! highest id handed out, logged while no write is under way: after a committed flush
//! when no write came since (under that same lock), and at every open (before the region
//! serves). So a region that flushed after the damage is cleared even if it wrote nothing
//! more; and so is one that opened after the damage with nothing unflushed (a new region,
//! or any region after a clean restart).
//!
//! Where nothing readable decides, the region is needed: conservative, because the cost of
//! a wrong "clear" is a silently lost edit. In particular:
//! - "An edit right after the span with id `flushed + 1`" would be enough only if ids
//!   rose in log order; here the span could still hold `flushed + 2`.
//! - A region that logged nothing after the span (not even a barrier) is needed,
//!   even if all its readable edits are flushed: it may have logged its last edit into the
//!   span and not flushed since. Nothing on disk tells it from a region that was idle.
//! - A damaged record whose header held tells its length, and its payload may still name
//!   its region ([`RecordHint`]); but the damage may be in that name. The hint clears the
//!   *other* regions only when it is proof: the span is exactly that one record (a
//!   readable record starts where it ends), the name is a region on disk, and no other
//!   region's name is within [`OWNER_DISTANCE_BITS`] bits of it ([`proven_owner`]). One
//!   record belongs to one region, so every other region is clear; the owner is judged
//!   by the rule above. Otherwise the hint is only shown to operators.
//!
//! What keeps it from being absurd: a span costs only the regions it may hold unflushed
//! edits of, never the whole log; a region that does not exist needs nothing; and an
//! operator can always trade the possible loss for availability (`--skip-corrupt-wal`),
//! which names, per region, the ids that may be gone.
//!
//! Worked example: one segment, `a` flushed to 4, `b` flushed to 0 (never), `c` flushed
//! to 9. Log: `a1 b1 c8 [damage] a3 c9 a5 b2`.
//!
//! | region | last before | first after | flushed | verdict                                 |
//! |--------|-------------|-------------|---------|-----------------------------------------|
//! | a      | 1           | 3           | 4       | clear: a3 is flushed and comes after    |
//! | b      | 1           | 2           | 0       | needed: ids above 0 may be in the span  |
//! | c      | 8           | 9           | 9       | clear: c9 is flushed and comes after    |
//! | d      | none        | none        | 7       | needed: d may have logged 8 in the span |
//!
//! A damaged segment that no region on disk needs (every span clear for every region, and
//! every readable edit flushed) holds nothing: the engine moves it to `wal/corrupt/`.
//! `tests/golden/wal_damage/cases.txt` holds more cases.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// What a damaged record's header and payload still suggest: a hint, never proof (the
/// damage may be in these very bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordHint {
    pub region: String,
    pub seq_id: u64,
}

/// A stretch of a segment that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DamagedSpan {
    pub offset: u64,
    pub len: u64,
    /// Why the first record of the stretch failed.
    pub reason: String,
    pub hint: Option<RecordHint>,
    /// The span is exactly one record whose header held (see `scan::Stretch`).
    pub single_record: bool,
    /// The region that one record is proven to belong to: set by the engine when the
    /// hint names a region on disk and no other region's name is within
    /// [`OWNER_DISTANCE_BITS`] of it. Every other region is then clear of the span.
    pub owner: Option<String>,
    /// Per region, the highest id among its readable edits before the span, in log order.
    pub last_before: BTreeMap<String, u64>,
    /// Per region, the lowest id among its readable edits after the span, in log order
    /// (this and every later segment).
    pub first_after: BTreeMap<String, u64>,
}

/// A segment with at least one damaged span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DamagedSegment {
    pub id: u64,
    /// Where it was read.
    pub file: PathBuf,
    /// Highest id per region among its readable edits.
    pub regions: HashMap<String, u64>,
    pub spans: Vec<DamagedSpan>,
    /// Where the damaged original now is, once moved aside (`--skip-corrupt-wal`).
    pub set_aside: Option<PathBuf>,
}

/// A hinted region name is trusted as a span's owner only if every other region's name
/// differs from it in more than this many bits: damage that turned one region's name
/// into another's would have to flip more bits than that, all inside the name.
pub const OWNER_DISTANCE_BITS: u32 = 16;

/// The region a span's one record belongs to, if its hint proves it among `regions` (the
/// names of every region on disk).
pub fn proven_owner<'a>(
    span: &DamagedSpan,
    regions: impl Iterator<Item = &'a str> + Clone,
) -> Option<String> {
    let hint = span.hint.as_ref().filter(|_| span.single_record)?;
    let named = hint.region.as_str();
    let mut others = regions.clone().filter(|r| *r != named);
    let exists = regions.into_iter().any(|r| r == named);
    let near = others.any(|r| {
        r.len() == named.len()
            && r.bytes()
                .zip(named.bytes())
                .map(|(a, b)| (a ^ b).count_ones())
                .sum::<u32>()
                <= OWNER_DISTANCE_BITS
    });
    (exists && !near).then(|| named.to_string())
}

/// Whether a region needs a damaged span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The span is one record, proven to be another region's.
    AnotherRegionsRecord,
    /// A readable edit after the span, `seq_id`, is flushed: so is all the span may hold.
    Clear { flushed_edit_after: u64 },
    /// Edits with ids above `flushed_seq` may be in the span.
    Needed {
        flushed_seq: u64,
        last_before: Option<u64>,
        first_after: Option<u64>,
    },
}

impl Verdict {
    pub fn is_needed(&self) -> bool {
        matches!(self, Self::Needed { .. })
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let seq = |s: Option<u64>| s.map_or_else(|| "none".to_string(), |s| s.to_string());
        match self {
            Self::AnotherRegionsRecord => write!(
                f,
                "the damaged bytes are one record, whose header held, of another region"
            ),
            Self::Clear { flushed_edit_after } => write!(
                f,
                "nothing unflushed can be there: edit {flushed_edit_after}, after it, is flushed"
            ),
            Self::Needed {
                flushed_seq,
                last_before,
                first_after,
            } => write!(
                f,
                "edits with sequence ids above {flushed_seq} (its flushed id) may be there \
                 (its readable edits around the damage: last before {}, first after {})",
                seq(*last_before),
                seq(*first_after)
            ),
        }
    }
}

/// Does `region`, flushed up to `flushed_seq`, need `span`? See the module doc.
pub fn judge(span: &DamagedSpan, region: &str, flushed_seq: u64) -> Verdict {
    if span.owner.as_deref().is_some_and(|owner| owner != region) {
        return Verdict::AnotherRegionsRecord;
    }
    let first_after = span.first_after.get(region).copied();
    match first_after {
        Some(seq) if seq <= flushed_seq => Verdict::Clear {
            flushed_edit_after: seq,
        },
        _ => Verdict::Needed {
            flushed_seq,
            last_before: span.last_before.get(region).copied(),
            first_after,
        },
    }
}

/// The first span of `segment` that `region` needs, with the verdict.
pub fn first_needed<'a>(
    segment: &'a DamagedSegment,
    region: &str,
    flushed_seq: u64,
) -> Option<(&'a DamagedSpan, Verdict)> {
    segment
        .spans
        .iter()
        .map(|span| (span, judge(span, region, flushed_seq)))
        .find(|(_, verdict)| verdict.is_needed())
}

/// Whether any of `regions` (name and flushed id: every region that exists) needs
/// `segment`, for a damaged span or for a readable edit not yet flushed. A region that
/// does not exist never opens, so it needs nothing.
pub fn needed_by_any(segment: &DamagedSegment, regions: &[(String, u64)]) -> bool {
    regions.iter().any(|(region, flushed)| {
        let unflushed = segment.regions.get(region).is_some_and(|max| max > flushed);
        unflushed || first_needed(segment, region, *flushed).is_some()
    })
}

/// Fills each span's `last_before` and `first_after` from `edits`, every readable edit of
/// the log in log order as `(region, seq_id)`. `at[i]` is how many of them precede
/// `spans[i]`; spans are in log order.
pub fn attach_evidence(spans: &mut [&mut DamagedSpan], at: &[usize], edits: &[(&str, u64)]) {
    let mut before: BTreeMap<String, u64> = BTreeMap::new();
    let mut done = 0;
    for (span, &at) in spans.iter_mut().zip(at) {
        let at = at.clamp(done, edits.len());
        for &(region, seq) in &edits[done..at] {
            let max = before.entry(region.to_string()).or_insert(seq);
            *max = (*max).max(seq);
        }
        done = at;
        span.last_before = before.clone();
    }
    let mut after: BTreeMap<String, u64> = BTreeMap::new();
    let mut done = edits.len();
    for (span, &at) in spans.iter_mut().zip(at).rev() {
        let at = at.min(done);
        for &(region, seq) in &edits[at..done] {
            let min = after.entry(region.to_string()).or_insert(seq);
            *min = (*min).min(seq);
        }
        done = at;
        span.first_after = after.clone();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span() -> DamagedSpan {
        DamagedSpan {
            offset: 24,
            len: 10,
            reason: "test".into(),
            hint: None,
            single_record: false,
            owner: None,
            last_before: BTreeMap::new(),
            first_after: BTreeMap::new(),
        }
    }

    #[test]
    fn a_proven_owner_clears_every_other_region_and_only_when_no_name_is_near() {
        let mut one = span();
        one.single_record = true;
        one.hint = Some(RecordHint {
            region: "aaaa0000".into(),
            seq_id: 7,
        });
        let far = ["aaaa0000", "zzzz9999", "1588230740"];
        assert_eq!(
            proven_owner(&one, far.iter().copied()),
            Some("aaaa0000".into())
        );
        // A name one bit away could have been damaged into the hinted one.
        let near = ["aaaa0000", "aaaa0001"];
        assert_eq!(proven_owner(&one, near.iter().copied()), None);
        // A name on no region proves nothing; nor does a stretch of unknown extent.
        assert_eq!(proven_owner(&one, ["zzzz9999"].iter().copied()), None);
        let mut wide = one.clone();
        wide.single_record = false;
        assert_eq!(proven_owner(&wide, far.iter().copied()), None);

        one.owner = proven_owner(&one, far.iter().copied());
        assert_eq!(judge(&one, "zzzz9999", 0), Verdict::AnotherRegionsRecord);
        assert!(
            judge(&one, "aaaa0000", 0).is_needed(),
            "its own record is lost"
        );
    }

    /// The module doc's worked example.
    #[test]
    fn the_documented_example_holds() {
        let log = [
            ("a", 1),
            ("b", 1),
            ("c", 8),
            ("a", 3),
            ("c", 9),
            ("a", 5),
            ("b", 2),
        ];
        let mut s = span();
        attach_evidence(&mut [&mut s], &[3], &log);
        assert_eq!(
            judge(&s, "a", 4),
            Verdict::Clear {
                flushed_edit_after: 3
            }
        );
        assert_eq!(
            judge(&s, "b", 0),
            Verdict::Needed {
                flushed_seq: 0,
                last_before: Some(1),
                first_after: Some(2)
            }
        );
        assert_eq!(
            judge(&s, "c", 9),
            Verdict::Clear {
                flushed_edit_after: 9
            }
        );
        assert!(judge(&s, "d", 7).is_needed());
    }

    #[test]
    fn evidence_is_split_at_each_span() {
        let log = [("a", 1), ("a", 2), ("b", 7), ("a", 3)];
        let (mut s1, mut s2, mut s3) = (span(), span(), span());
        attach_evidence(&mut [&mut s1, &mut s2, &mut s3], &[0, 2, 4], &log);
        let map = |pairs: &[(&str, u64)]| -> BTreeMap<String, u64> {
            pairs.iter().map(|(r, s)| (r.to_string(), *s)).collect()
        };
        assert_eq!(s1.last_before, map(&[]));
        assert_eq!(s1.first_after, map(&[("a", 1), ("b", 7)]));
        assert_eq!(s2.last_before, map(&[("a", 2)]));
        assert_eq!(s2.first_after, map(&[("a", 3), ("b", 7)]));
        assert_eq!(s3.last_before, map(&[("a", 3), ("b", 7)]));
        assert_eq!(s3.first_after, map(&[]));
    }

    #[test]
    fn a_segment_is_needed_for_its_readable_edits_too() {
        let mut s = span();
        attach_evidence(&mut [&mut s], &[1], &[("a", 1), ("a", 2)]);
        let segment = DamagedSegment {
            id: 1,
            file: PathBuf::from("/wal/x"),
            regions: HashMap::from([("a".to_string(), 2)]),
            spans: vec![s],
            set_aside: None,
        };
        // `a` logged 2 after the span and flushed it: nothing of `a` is lost.
        assert!(!needed_by_any(&segment, &[("a".into(), 2)]));
        // `z` wrote nothing after the span: it may have written into it.
        assert!(needed_by_any(&segment, &[("a".into(), 2), ("z".into(), 0)]));
        // `a` flushed only 1: the span is clear only if 2 were flushed, and the readable
        // edit 2 still needs replaying anyway.
        assert!(needed_by_any(&segment, &[("a".into(), 1)]));
        // No region exists: nobody needs it.
        assert!(!needed_by_any(&segment, &[]));
    }
}
