//! How long a group-commit leader waits for the rest of its group before it syncs.
//!
//! Without waiting, concurrent synced writers split into two half-groups that take turns:
//! while one half's batch is being synced, the other half queues; when the sync ends, the
//! next leader takes only that half, because the writers just acknowledged are still on
//! their way back. Eight writers then share each sync four by four.
//!
//! So a leader gathers: it waits until as many synced appenders are queued as took part in
//! the previous round (the batch just synced plus those that queued while it ran), but no
//! longer than the previous sync took (capped at [`GATHER_MAX`]). The wait is
//! PostgreSQL's `commit_delay` made adaptive: a lone writer never waits (its round had one
//! appender), a writer that went away costs one bounded wait, and a bigger crowd is
//! followed after one round.
//!
//! On a machine short of CPU the acknowledged writers come back late, and a gather that
//! times out only adds its wait to the round. So after a timeout the next rounds do not
//! gather: one round after the first, then twice as many after each further timeout in a
//! row (up to [`SKIP_MAX`]), until a gather succeeds again. (Measured with 8 writers: a
//! quiet machine syncs 8 puts at a time instead of 4; with two busy loops beside them,
//! gathering on every round cost a quarter of the throughput.)
//!
//! | round | batch synced | queued meanwhile | next leader waits for |
//! |-------|--------------|------------------|-----------------------|
//! | 1     | 1            | 7                | 8 appenders           |
//! | 2     | 8            | 0                | 8                     |
//! | 3     | 5 (timed out)| 3                | 8                     |
//! | 4     | 1 (alone)    | 0                | 1: no wait            |

use std::time::Duration;

/// The longest a leader waits for its group, whatever the last sync took.
pub const GATHER_MAX: Duration = Duration::from_millis(1);

/// The most rounds in a row that skip gathering after gathers timed out.
pub const SKIP_MAX: u32 = 64;

/// The gathering policy's memory of the last rounds.
#[derive(Debug, Clone, Copy)]
pub struct Gather {
    appenders: usize,
    sync_took: Duration,
    /// Rounds still to skip, and how many the next timeout makes skip.
    skip: u32,
    backoff: u32,
}

impl Default for Gather {
    fn default() -> Self {
        Self {
            appenders: 1,
            sync_took: Duration::ZERO,
            skip: 0,
            backoff: 1,
        }
    }
}

impl Gather {
    /// Records a finished sync: `batch` synced appenders were in it, `queued` more queued
    /// while it ran, and it took `took`.
    pub fn after_sync(&mut self, batch: usize, queued: usize, took: Duration) {
        self.appenders = (batch + queued).max(1);
        self.sync_took = took;
    }

    /// How many queued synced appenders a new leader should wait for, and for how long at
    /// most; `None` when `queued` already suffices or this round skips gathering.
    pub fn wait_for(&mut self, queued: usize) -> Option<(usize, Duration)> {
        if queued >= self.appenders {
            return None;
        }
        if self.skip > 0 {
            self.skip -= 1;
            return None;
        }
        Some((self.appenders, self.sync_took.min(GATHER_MAX)))
    }

    /// Records how a gather ended.
    pub fn gathered(&mut self, timed_out: bool) {
        if timed_out {
            self.skip = self.backoff;
            self.backoff = (self.backoff * 2).min(SKIP_MAX);
        } else {
            self.backoff = 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SYNC: Duration = Duration::from_micros(200);

    #[test]
    fn a_lone_writer_never_waits() {
        let mut gather = Gather::default();
        assert_eq!(gather.wait_for(1), None);
        gather.after_sync(1, 0, SYNC);
        assert_eq!(gather.wait_for(1), None);
    }

    #[test]
    fn a_leader_waits_for_everyone_of_the_last_round() {
        let mut gather = Gather::default();
        gather.after_sync(1, 7, SYNC);
        assert_eq!(gather.wait_for(4), Some((8, SYNC)));
        assert_eq!(gather.wait_for(8), None);
        gather.after_sync(8, 0, SYNC);
        assert_eq!(gather.wait_for(1), Some((8, SYNC)));
    }

    #[test]
    fn timeouts_skip_twice_as_many_rounds_each_time_until_a_gather_succeeds() {
        let mut gather = Gather::default();
        gather.after_sync(8, 0, SYNC);
        let skipped_after = |gather: &mut Gather| {
            gather.gathered(true);
            let mut skipped = 0;
            while gather.wait_for(1).is_none() {
                skipped += 1;
            }
            skipped
        };
        assert_eq!(skipped_after(&mut gather), 1);
        assert_eq!(skipped_after(&mut gather), 2);
        assert_eq!(skipped_after(&mut gather), 4);
        for _ in 0..10 {
            skipped_after(&mut gather);
        }
        assert_eq!(skipped_after(&mut gather), SKIP_MAX);
        gather.gathered(false);
        assert_eq!(skipped_after(&mut gather), 1);
    }

    #[test]
    fn the_wait_follows_the_crowd_down_and_is_bounded() {
        let mut gather = Gather::default();
        gather.after_sync(5, 3, Duration::from_secs(2));
        assert_eq!(gather.wait_for(2), Some((8, GATHER_MAX)));
        gather.after_sync(2, 0, SYNC);
        assert_eq!(gather.wait_for(1), Some((2, SYNC)));
        gather.after_sync(1, 0, SYNC);
        assert_eq!(gather.wait_for(1), None);
    }
}
