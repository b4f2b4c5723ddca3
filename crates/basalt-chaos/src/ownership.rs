//! No region served by two servers at once.
//!
//! While faults run, the harness sends reads for a few rows straight to every live region
//! server (not through the routing client) and keeps each one a server answered: which
//! region, which server, when it was asked and when the answer came. A read is served at
//! some instant between the two, so two answers for one region from two different servers
//! whose windows overlap may have been served at the same instant: two owners at once.
//!
//! A correct move leaves a gap between the old owner's last answer and the new owner's
//! first: the old one stops at its lease's local deadline, a margin before the
//! coordinator expires the lease, and only then is the region reopened elsewhere. The
//! harness keeps the windows shorter than that margin (a short call timeout; a call
//! waiting on a paused server fails rather than answers late), so an overlap is a
//! violation, not a near miss.

use std::collections::BTreeMap;
use std::fmt;

/// A read a region server answered, sent to it directly. Times are nanoseconds since the
/// run began, as in [`crate::Operation`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServedRead {
    /// The region the read addressed (any label that names one region).
    pub region: String,
    /// The server that answered (`host,port,startcode`).
    pub server: String,
    pub invoked: u64,
    pub completed: u64,
}

impl ServedRead {
    pub fn new(region: &str, server: &str, invoked: u64, completed: u64) -> Self {
        Self {
            region: region.to_string(),
            server: server.to_string(),
            invoked,
            completed,
        }
    }

    /// Whether the two windows share an instant (their ends included).
    fn overlaps(&self, other: &ServedRead) -> bool {
        self.invoked <= other.completed && other.invoked <= self.completed
    }
}

/// Two servers answering for one region in overlapping windows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DoubleOwner {
    pub region: String,
    /// The earlier-invoked answer, and the later one from another server.
    pub first: ServedRead,
    pub second: ServedRead,
}

/// The single-owner check's findings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnershipReport {
    pub answers: usize,
    pub regions: usize,
    /// Regions answered by more than one server over the run (moves: fine by itself).
    pub moved_regions: usize,
    /// Each overlap, by region then time; at most one per pair of answers.
    pub double_owners: Vec<DoubleOwner>,
}

impl OwnershipReport {
    /// No region had two owners at once.
    pub fn is_clean(&self) -> bool {
        self.double_owners.is_empty()
    }
}

/// Finds every region for which two different servers answered in overlapping windows.
/// Answers with `completed < invoked` are taken as the empty window at `invoked`.
pub fn check_single_owner(answers: &[ServedRead]) -> OwnershipReport {
    let mut by_region: BTreeMap<&str, Vec<ServedRead>> = BTreeMap::new();
    for answer in answers {
        let mut read = answer.clone();
        read.completed = read.completed.max(read.invoked);
        by_region.entry(&answer.region).or_default().push(read);
    }
    let mut report = OwnershipReport {
        answers: answers.len(),
        regions: by_region.len(),
        ..OwnershipReport::default()
    };
    for (region, mut reads) in by_region {
        reads.sort_by_key(|r| (r.invoked, r.completed));
        // Per server, its answer that ends last so far: any earlier-invoked answer that
        // overlaps a later one overlaps it from there, so one per server suffices.
        let mut latest: BTreeMap<&str, &ServedRead> = BTreeMap::new();
        for read in &reads {
            for (server, earlier) in &latest {
                if *server != read.server && earlier.overlaps(read) {
                    report.double_owners.push(DoubleOwner {
                        region: region.to_string(),
                        first: (*earlier).clone(),
                        second: read.clone(),
                    });
                }
            }
            let kept = latest.entry(read.server.as_str()).or_insert(read);
            if read.completed > kept.completed {
                *kept = read;
            }
        }
        if latest.len() > 1 {
            report.moved_regions += 1;
        }
    }
    report
}

fn secs(nanos: u64) -> f64 {
    nanos as f64 / 1e9
}

/// A summary line, then one line per overlap.
impl fmt::Display for OwnershipReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "single owner: {} answers for {} regions ({} served by more than one server over the run): {} overlaps",
            self.answers,
            self.regions,
            self.moved_regions,
            self.double_owners.len()
        )?;
        for d in &self.double_owners {
            write!(
                f,
                "\nregion {} served by two servers at once: {} answered in [{:.3}s, {:.3}s], {} in [{:.3}s, {:.3}s]",
                d.region,
                d.first.server,
                secs(d.first.invoked),
                secs(d.first.completed),
                d.second.server,
                secs(d.second.invoked),
                secs(d.second.completed),
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn read(region: &str, server: &str, from_ms: u64, to_ms: u64) -> ServedRead {
        ServedRead::new(region, server, from_ms * MS, to_ms * MS)
    }

    #[test]
    fn a_move_with_a_gap_between_owners_is_clean() {
        let answers = [
            read("a", "s1", 0, 5),
            read("a", "s1", 100, 104),
            read("a", "s2", 2_000, 2_003),
            read("a", "s2", 2_300, 2_301),
        ];
        let report = check_single_owner(&answers);
        assert!(report.is_clean(), "{report}");
        assert_eq!((report.regions, report.moved_regions), (1, 1));
    }

    #[test]
    fn overlapping_answers_from_two_servers_are_a_double_owner() {
        let answers = [
            read("a", "s2", 2_000, 2_010),
            read("a", "s1", 1_990, 2_001),
            read("b", "s3", 0, 1),
        ];
        let report = check_single_owner(&answers);
        assert_eq!(report.double_owners.len(), 1, "{report}");
        let d = &report.double_owners[0];
        assert_eq!((d.region.as_str(), d.first.server.as_str()), ("a", "s1"));
        assert_eq!(d.second.server, "s2");
        assert!(report
            .to_string()
            .contains("region a served by two servers at once"));
    }

    #[test]
    fn windows_touching_at_one_instant_overlap() {
        let report = check_single_owner(&[read("a", "s1", 0, 10), read("a", "s2", 10, 20)]);
        assert_eq!(report.double_owners.len(), 1);
    }

    #[test]
    fn one_server_overlapping_itself_is_fine() {
        let report = check_single_owner(&[read("a", "s1", 0, 10), read("a", "s1", 5, 20)]);
        assert!(report.is_clean());
        assert_eq!(report.moved_regions, 0);
    }

    #[test]
    fn two_servers_on_different_regions_at_once_are_fine() {
        let report = check_single_owner(&[read("a", "s1", 0, 10), read("b", "s2", 0, 10)]);
        assert!(report.is_clean());
    }

    #[test]
    fn a_long_old_answer_overlapping_a_later_owner_is_found_past_short_ones() {
        // s1's long answer spans s2's taking over, hidden behind a short s1 answer.
        let answers = [
            read("a", "s1", 0, 1_000),
            read("a", "s1", 10, 11),
            read("a", "s2", 900, 901),
        ];
        let report = check_single_owner(&answers);
        assert_eq!(report.double_owners.len(), 1, "{report}");
        assert_eq!(report.double_owners[0].first.completed, 1_000 * MS);
    }

    #[test]
    fn a_region_moving_back_to_its_first_server_is_clean() {
        let answers = [
            read("a", "s1", 0, 1),
            read("a", "s2", 3_000, 3_001),
            read("a", "s1", 6_000, 6_001),
        ];
        assert!(check_single_owner(&answers).is_clean());
    }

    #[test]
    fn a_backwards_window_counts_as_its_invocation_instant() {
        let report = check_single_owner(&[read("a", "s1", 10, 5), read("a", "s2", 10, 12)]);
        assert_eq!(report.double_owners.len(), 1);
        assert!(check_single_owner(&[]).is_clean());
    }
}
