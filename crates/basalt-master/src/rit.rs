//! Regions in transition: what each is doing and since when, which are stuck, and the
//! warnings about them.
//!
//! A region is in transition from the moment the master asks a server to open, close or
//! split it until the answer is committed — and from the moment its server dies
//! (`CRASHED`, HBase's `ABNORMALLY_CLOSED`) until it is open again elsewhere, however
//! long it waits for a live server: its age counts from the crash, not from the open that
//! finally places it. A region leaves it when its table is dropped or truncated, or when
//! it is unassigned on purpose. A master taking over counts the regions it finds CRASHED
//! from its own activation (the crash's moment was in the previous master's memory). One still in transition after
//! `rit_stuck_warning_threshold` (HBase's `hbase.metrics.rit.stuck.warning.threshold`,
//! 60 s) is *stuck*: counted in the status (`basalt_cluster_regions_in_transition_over_threshold`)
//! and named in a warning — at most once per threshold for each region, and at most
//! [`WARNINGS_PER_ROUND_MAX`] regions per round, the rest summed up in one line.
//!
//! The decisions are pure ([`stuck`], [`Warnings::due`]); [`Master::warn_stuck`] logs them.
//!
//! | region | age | threshold 60 s | warned last | warns now |
//! |---|---|---|---|---|
//! | a | 10 s | not stuck | - | no |
//! | b | 61 s | stuck | never | yes |
//! | b | 90 s | stuck | 29 s ago | no |
//! | b | 122 s | stuck | 61 s ago | yes |

use crate::master::Master;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Stuck regions named one by one in one round of warnings; the rest are counted.
pub const WARNINGS_PER_ROUND_MAX: usize = 20;

/// One region's transition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    /// OPENING, CLOSING or SPLITTING.
    pub state: String,
    /// The server asked to carry it out.
    pub server: String,
    pub since: Instant,
    /// When it began, in ms since the epoch (for people).
    pub since_ms: i64,
}

impl Transition {
    pub fn new(state: &str, server: &str) -> Self {
        Self {
            state: state.to_string(),
            server: server.to_string(),
            since: Instant::now(),
            since_ms: crate::recoveries::now_ms(),
        }
    }

    /// The transition to `state` on `server` following `current` (the region's transition
    /// now, if any): a region already in transition keeps the moment it began.
    pub fn next(current: Option<&Transition>, state: &str, server: &str) -> Self {
        let mut next = Self::new(state, server);
        if let Some(current) = current {
            next.since = current.since;
            next.since_ms = current.since_ms;
        }
        next
    }

    /// "OPENING on host,port,code", as `status` lists it.
    pub fn describe(&self) -> String {
        format!("{} on {}", self.state, self.server)
    }
}

/// A region in transition for longer than the threshold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stuck {
    pub region: String,
    pub state: String,
    pub server: String,
    pub age: Duration,
}

/// The regions of `transitions` in transition for longer than `threshold` at `now`, oldest
/// first.
pub fn stuck(
    transitions: &BTreeMap<String, Transition>,
    now: Instant,
    threshold: Duration,
) -> Vec<Stuck> {
    let mut out: Vec<Stuck> = transitions
        .iter()
        .map(|(region, t)| Stuck {
            region: region.clone(),
            state: t.state.clone(),
            server: t.server.clone(),
            age: now.saturating_duration_since(t.since),
        })
        .filter(|s| s.age > threshold)
        .collect();
    out.sort_by(|a, b| b.age.cmp(&a.age).then_with(|| a.region.cmp(&b.region)));
    out
}

/// The age of the oldest transition at `now` (zero when none).
pub fn oldest_age(transitions: &BTreeMap<String, Transition>, now: Instant) -> Duration {
    transitions
        .values()
        .map(|t| now.saturating_duration_since(t.since))
        .max()
        .unwrap_or_default()
}

/// When each stuck region was last warned about.
#[derive(Debug, Default)]
pub struct Warnings {
    last: BTreeMap<String, Instant>,
}

/// What one round of warnings says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Round {
    /// Regions to name, oldest first.
    pub named: Vec<Stuck>,
    /// Stuck regions due a warning beyond [`WARNINGS_PER_ROUND_MAX`].
    pub more: usize,
}

impl Warnings {
    /// Which of `stuck` (oldest first) are due a warning at `now`: never warned about, or
    /// not within `every`. Regions no longer stuck are forgotten.
    pub fn due(&mut self, stuck: &[Stuck], now: Instant, every: Duration) -> Round {
        self.last
            .retain(|region, _| stuck.iter().any(|s| &s.region == region));
        let mut round = Round {
            named: Vec::new(),
            more: 0,
        };
        for s in stuck {
            let due = self
                .last
                .get(&s.region)
                .is_none_or(|at| now.saturating_duration_since(*at) >= every);
            if !due {
                continue;
            }
            if round.named.len() < WARNINGS_PER_ROUND_MAX {
                self.last.insert(s.region.clone(), now);
                round.named.push(s.clone());
            } else {
                round.more += 1;
            }
        }
        round
    }
}

impl Master {
    /// Whether region `encoded` serves rows of an enabled table (one a server is to open).
    pub fn table_enabled_of(&self, encoded: &str) -> bool {
        let catalog = self.catalog.read();
        catalog.find(encoded).is_ok_and(|r| {
            r.is_serving() && catalog.tables.get(&r.table).is_some_and(|t| t.enabled)
        })
    }

    /// The stuck regions now.
    pub fn stuck_regions(&self) -> Vec<Stuck> {
        stuck(
            &self.in_transition.lock(),
            Instant::now(),
            self.config.rit_stuck_warning_threshold,
        )
    }

    /// Logs a warning for each stuck region due one (see the module's table).
    pub fn warn_stuck(&self, warnings: &mut Warnings) {
        let threshold = self.config.rit_stuck_warning_threshold;
        let round = warnings.due(&self.stuck_regions(), Instant::now(), threshold);
        for s in &round.named {
            tracing::warn!(
                region = %s.region,
                state = %s.state,
                server = %s.server,
                age_secs = s.age.as_secs(),
                threshold_secs = threshold.as_secs_f64(),
                "region stuck in transition: {} {} on {} for {:.1} s",
                s.region,
                s.state,
                s.server,
                s.age.as_secs_f64()
            );
        }
        if round.more > 0 {
            tracing::warn!(
                more = round.more,
                "more regions stuck in transition than are named here"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(base: Instant, secs: u64) -> Instant {
        base + Duration::from_secs(secs)
    }

    fn transitions(base: Instant, regions: &[(&str, u64)]) -> BTreeMap<String, Transition> {
        regions
            .iter()
            .map(|(name, began)| {
                let mut t = Transition::new("OPENING", "h,1,2");
                t.since = at(base, *began);
                (name.to_string(), t)
            })
            .collect()
    }

    #[test]
    fn only_regions_past_the_threshold_are_stuck_oldest_first() {
        let base = Instant::now();
        let rit = transitions(base, &[("a", 50), ("b", 0), ("c", 10)]);
        let now = at(base, 61);
        let names: Vec<String> = stuck(&rit, now, Duration::from_secs(30))
            .into_iter()
            .map(|s| s.region)
            .collect();
        assert_eq!(names, ["b", "c"]);
        assert_eq!(oldest_age(&rit, now), Duration::from_secs(61));
        assert_eq!(oldest_age(&BTreeMap::new(), now), Duration::ZERO);
    }

    #[test]
    fn a_region_already_in_transition_keeps_the_moment_it_began() {
        let base = Instant::now();
        let mut crashed = Transition::new("CRASHED", "dead,1,1");
        crashed.since = base;
        crashed.since_ms = 1_000;
        let opening = Transition::next(Some(&crashed), "OPENING", "live,1,2");
        assert_eq!(opening.state, "OPENING");
        assert_eq!(opening.server, "live,1,2");
        assert_eq!((opening.since, opening.since_ms), (base, 1_000));
        let fresh = Transition::next(None, "OPENING", "live,1,2");
        assert!(fresh.since >= base && fresh.since_ms > 1_000);
        let rit = BTreeMap::from([("r".to_string(), opening)]);
        assert_eq!(
            stuck(&rit, at(base, 90), Duration::from_secs(60))[0].age,
            Duration::from_secs(90),
            "aged from the crash"
        );
    }

    #[test]
    fn a_stuck_region_is_warned_about_once_per_interval() {
        let base = Instant::now();
        let rit = transitions(base, &[("b", 0)]);
        let every = Duration::from_secs(60);
        let mut warnings = Warnings::default();
        let round = |w: &mut Warnings, secs| {
            let now = at(base, secs);
            w.due(&stuck(&rit, now, every), now, every).named.len()
        };
        assert_eq!(round(&mut warnings, 10), 0, "not stuck yet");
        assert_eq!(round(&mut warnings, 61), 1, "first warning");
        assert_eq!(round(&mut warnings, 90), 0, "warned 29 s ago");
        assert_eq!(round(&mut warnings, 122), 1, "warned 61 s ago");
    }

    #[test]
    fn a_region_that_moved_on_is_forgotten_and_rounds_are_bounded() {
        let base = Instant::now();
        let many: Vec<(String, u64)> = (0..25).map(|i| (format!("r{i:02}"), 0)).collect();
        let refs: Vec<(&str, u64)> = many.iter().map(|(n, s)| (n.as_str(), *s)).collect();
        let rit = transitions(base, &refs);
        let every = Duration::from_secs(1);
        let now = at(base, 5);
        let mut warnings = Warnings::default();
        let round = warnings.due(&stuck(&rit, now, every), now, every);
        assert_eq!(round.named.len(), WARNINGS_PER_ROUND_MAX);
        assert_eq!(round.more, 5);
        let round = warnings.due(&[], now, every);
        assert_eq!(round.named.len() + round.more, 0);
        assert!(
            warnings.last.is_empty(),
            "regions no longer stuck are forgotten"
        );
    }
}
