//! [`LeaseKeeper`]: a lease kept alive from a tokio task, with a local deadline.
//!
//! The coordinator's expiry of a lease is a lower bound: etcd refreshes every lease when
//! it elects a new leader, so a lease can outlive its TTL by seconds. What a holder may
//! rely on is its own clock. The keeper sends a keep-alive every `ttl / 3` and, each time
//! one succeeds, moves its deadline to
//!
//! ```text
//! deadline = (when that keep-alive was sent) + ttl - margin
//! ```
//!
//! on the boot clock ([`BootInstant`]: it counts time the machine spent suspended, which
//! the monotonic clock does not, and the coordinator's clock did). The lease cannot have
//! expired at the coordinator before then: the coordinator counted its TTL from a moment
//! after the send. Until the deadline the holder may act as the lease's owner (serve, ack
//! writes); past it, it must stop. The keeper looks at the boot clock at least every
//! [`CHECK_EVERY`], so a holder resumed after a suspend past its deadline lapses within
//! that, before its timers (monotonic) would have fired.
//!
//! | time (ttl 10 s, margin 2 s) | event                    | deadline | state  |
//! |-----------------------------|--------------------------|----------|--------|
//! | 0.0 s                       | lease granted            | 8.0 s    | live   |
//! | 3.3 s                       | keep-alive sent, ok      | 11.3 s   | live   |
//! | 6.6 s                       | keep-alive: etcd is down | 11.3 s   | live   |
//! | 11.3 s                      | (deadline passes)        | 11.3 s   | lapsed |
//! | 12.0 s                      | keep-alive sent, ok      | 20.0 s   | live   |
//! | 15.3 s                      | keep-alive: lease gone   | —        | gone   |
//!
//! Errors never end the loop (it retries sooner, against whichever endpoint answers):
//! only the deadline decides. A lapsed lease that etcd renews again is live again (it
//! survived the outage, so nobody took over); a lease etcd reports gone is gone for good.

use crate::boot_clock::BootInstant;
use crate::local::whole_seconds;
use crate::{CoordError, Coordinator, Result};
use parking_lot::Mutex;
use std::sync::Arc;
use std::time::Duration;
// tokio's clock for the sends (the monotonic clock, or a paused runtime's in a simulation).
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// The TTL of the leases masters and region servers of a cluster hold (`--lease-ttl`).
///
/// A region server killed outright is dead once its lease expires, so this bounds how
/// long its regions stay dark: 6 s, plus about 1.5 s to reopen them elsewhere (reading
/// the dead log included) — under 10 s. It is safe against false alarms on a busy machine:
/// keep-alives go every 2 s (a third) and are retried every half second on failure, so a
/// server loses its lease only after its keep-alives fail for 4.8 s (TTL minus the
/// 1.2 s margin); an etcd leader election stalls writes for about 1.75 s (measured,
/// cluster-design §4) and etcd renews every lease when its leader changes; a Rust
/// process has no collector pauses; and a machine too loaded to send one small RPC in
/// 4.8 s is better treated as gone.
pub const DEFAULT_TTL: Duration = Duration::from_secs(6);

/// The margin when the TTL is long enough (a fifth of the TTL when it is shorter).
pub const DEFAULT_MARGIN: Duration = Duration::from_secs(2);
/// The shortest pause before trying again after a failed keep-alive.
const RETRY_PAUSE_MIN: Duration = Duration::from_millis(100);
/// How often, at the longest, the keeper compares the boot clock with the deadline.
pub const CHECK_EVERY: Duration = Duration::from_millis(100);

/// Where the keeper reads the time (the boot clock; tests move one by hand).
pub type Clock = Arc<dyn Fn() -> BootInstant + Send + Sync>;

/// Where a kept lease stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaseState {
    /// Its owner may act until `deadline`.
    Live { deadline: BootInstant },
    /// The deadline passed without a successful keep-alive; the keeper goes on trying.
    Lapsed { deadline: BootInstant },
    /// The coordinator said the lease is gone (expired or revoked), or it was revoked
    /// here. Final.
    Gone,
}

impl LeaseState {
    pub fn is_live(&self) -> bool {
        self.is_live_at(BootInstant::now())
    }

    /// Whether it is live at `now` (on the clock the deadline was set on).
    pub fn is_live_at(&self, now: BootInstant) -> bool {
        matches!(self, LeaseState::Live { deadline } if now < *deadline)
    }
}

/// A lease and the task keeping it alive. Dropping it stops the task (the lease then
/// expires at the coordinator); [`LeaseKeeper::revoke`] ends it at once.
pub struct LeaseKeeper {
    id: i64,
    coord: Arc<dyn Coordinator>,
    state: watch::Receiver<LeaseState>,
    shared: Arc<Shared>,
    task: Mutex<Option<JoinHandle<()>>>,
    clock: Clock,
}

impl std::fmt::Debug for LeaseKeeper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LeaseKeeper")
            .field("id", &self.id)
            .field("state", &*self.state.borrow())
            .finish()
    }
}

#[derive(Debug)]
struct Shared {
    state: watch::Sender<LeaseState>,
    /// The latest deadline, kept after the state turns `Gone`.
    deadline: Mutex<BootInstant>,
}

/// The default margin for `ttl`: 2 s, or a fifth of the TTL when that is less.
pub fn default_margin(ttl: Duration) -> Duration {
    DEFAULT_MARGIN.min(ttl / 5)
}

impl LeaseKeeper {
    /// Grants a lease of `ttl` and keeps it alive, with the default margin.
    pub async fn start(coord: Arc<dyn Coordinator>, ttl: Duration) -> Result<Self> {
        let ttl = whole_seconds(ttl);
        Self::start_with_margin(coord, ttl, default_margin(ttl)).await
    }

    /// Grants a lease of `ttl` (whole seconds, rounded up) and keeps it alive; the local
    /// deadline stops `margin` short of the TTL.
    pub async fn start_with_margin(
        coord: Arc<dyn Coordinator>,
        ttl: Duration,
        margin: Duration,
    ) -> Result<Self> {
        Self::start_on_clock(coord, ttl, margin, Arc::new(BootInstant::now)).await
    }

    /// As [`LeaseKeeper::start_with_margin`], reading the time from `clock`.
    pub async fn start_on_clock(
        coord: Arc<dyn Coordinator>,
        ttl: Duration,
        margin: Duration,
        clock: Clock,
    ) -> Result<Self> {
        let ttl = whole_seconds(ttl);
        let sent = clock();
        let id = coord.grant_lease(ttl).await?;
        let deadline = sent + ttl.saturating_sub(margin);
        let (sender, state) = watch::channel(LeaseState::Live { deadline });
        let shared = Arc::new(Shared {
            state: sender,
            deadline: Mutex::new(deadline),
        });
        let keep = Keep {
            coord: coord.clone(),
            id,
            ttl,
            margin,
            shared: shared.clone(),
            clock: clock.clone(),
        };
        let task = tokio::spawn(keep.run());
        tracing::info!(lease = format_args!("{id:x}"), ?ttl, ?margin, coordinator = %coord.describe(), "lease granted");
        Ok(Self {
            id,
            coord,
            state,
            shared,
            task: Mutex::new(Some(task)),
            clock,
        })
    }

    pub fn id(&self) -> i64 {
        self.id
    }

    /// Whether the owner may still act: the deadline has not passed and the lease is not
    /// known to be gone.
    pub fn is_live(&self) -> bool {
        self.state.borrow().is_live_at((self.clock)())
    }

    /// [`LeaseKeeper::is_live`] as a function that outlives this borrow: the gate a
    /// server or master checks before each answer.
    pub fn gate(&self) -> Arc<dyn Fn() -> bool + Send + Sync> {
        let (state, clock) = (self.state.clone(), self.clock.clone());
        Arc::new(move || state.borrow().is_live_at(clock()))
    }

    /// The latest local deadline.
    pub fn deadline(&self) -> BootInstant {
        *self.shared.deadline.lock()
    }

    /// The lease's state as it changes (`Live` → `Lapsed` at the deadline, → `Gone`).
    pub fn subscribe(&self) -> watch::Receiver<LeaseState> {
        self.state.clone()
    }

    /// Stops keeping the lease alive and revokes it (its keys go now). A lease already
    /// gone is not an error.
    pub async fn revoke(&self) -> Result<()> {
        if let Some(task) = self.task.lock().take() {
            task.abort();
        }
        self.shared.state.send_replace(LeaseState::Gone);
        match self.coord.revoke_lease(self.id).await {
            Ok(()) | Err(CoordError::LeaseGone(_)) => {
                tracing::info!(lease = format_args!("{:x}", self.id), "lease revoked");
                Ok(())
            }
            Err(error) => Err(error),
        }
    }
}

impl Drop for LeaseKeeper {
    fn drop(&mut self) {
        if let Some(task) = self.task.lock().take() {
            task.abort();
        }
    }
}

/// The keeping task.
struct Keep {
    coord: Arc<dyn Coordinator>,
    id: i64,
    ttl: Duration,
    margin: Duration,
    shared: Arc<Shared>,
    clock: Clock,
}

impl Keep {
    async fn run(self) {
        let interval = self.ttl / 3;
        let retry_pause = (interval / 4).max(RETRY_PAUSE_MIN);
        let mut next_send = Instant::now() + interval;
        loop {
            self.wait_until(next_send).await;
            let (sent, sent_at) = ((self.clock)(), Instant::now());
            let call = self.coord.keep_alive(self.id);
            tokio::pin!(call);
            let outcome = loop {
                // Biased (the deadline first), so that a seeded simulation replays it.
                tokio::select! {
                    biased;
                    _ = self.deadline_passes(), if self.live() => self.lapse(),
                    outcome = &mut call => break outcome,
                }
            };
            match outcome {
                Ok(granted) => {
                    let counted = self.ttl.min(granted);
                    self.renewed(sent + counted.saturating_sub(self.margin));
                    next_send = sent_at + interval;
                }
                Err(CoordError::LeaseGone(_)) => {
                    tracing::warn!(
                        lease = format_args!("{:x}", self.id),
                        "lease is gone at the coordinator"
                    );
                    self.shared.state.send_replace(LeaseState::Gone);
                    return;
                }
                Err(error) => {
                    tracing::warn!(lease = format_args!("{:x}", self.id), %error, "keep-alive failed; retrying");
                    next_send = Instant::now() + retry_pause;
                }
            }
        }
    }

    /// Sleeps until `until`, turning the state to `Lapsed` if the deadline comes first.
    async fn wait_until(&self, until: Instant) {
        loop {
            tokio::select! {
                biased;
                _ = self.deadline_passes(), if self.live() => self.lapse(),
                _ = tokio::time::sleep_until(until) => return,
            }
        }
    }

    /// Completes once the boot clock reaches the deadline, looking at least every
    /// [`CHECK_EVERY`] (a suspend stops the sleeps, not the boot clock).
    async fn deadline_passes(&self) {
        loop {
            let left = self.deadline().saturating_duration_since((self.clock)());
            if left.is_zero() {
                return;
            }
            tokio::time::sleep(left.min(CHECK_EVERY)).await;
        }
    }

    fn deadline(&self) -> BootInstant {
        *self.shared.deadline.lock()
    }

    fn live(&self) -> bool {
        matches!(*self.shared.state.borrow(), LeaseState::Live { .. })
    }

    fn lapse(&self) {
        let deadline = self.deadline();
        tracing::warn!(
            lease = format_args!("{:x}", self.id),
            "lease deadline passed without a keep-alive"
        );
        self.shared
            .state
            .send_replace(LeaseState::Lapsed { deadline });
    }

    fn renewed(&self, candidate: BootInstant) {
        let deadline = {
            let mut deadline = self.shared.deadline.lock();
            *deadline = (*deadline).max(candidate);
            *deadline
        };
        let was_lapsed = matches!(*self.shared.state.borrow(), LeaseState::Lapsed { .. });
        if was_lapsed {
            if (self.clock)() >= deadline {
                return;
            }
            tracing::info!(
                lease = format_args!("{:x}", self.id),
                "lease renewed after its deadline passed"
            );
        }
        self.shared
            .state
            .send_replace(LeaseState::Live { deadline });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_suspend_past_the_deadline_lapses_the_lease_on_resume() {
        let coord: Arc<dyn Coordinator> = Arc::new(crate::LocalCoordinator::new());
        let suspended = Arc::new(Mutex::new(Duration::ZERO));
        let clock: Clock = {
            let suspended = suspended.clone();
            Arc::new(move || BootInstant::now() + *suspended.lock())
        };
        let ttl = Duration::from_secs(60);
        let keeper = LeaseKeeper::start_on_clock(coord, ttl, DEFAULT_MARGIN, clock)
            .await
            .expect("granted");
        let mut state = keeper.subscribe();
        assert!(matches!(*state.borrow(), LeaseState::Live { .. }));
        // The keeper settles into its sleeps.
        tokio::time::sleep(CHECK_EVERY * 3).await;
        assert!(matches!(*state.borrow(), LeaseState::Live { .. }));
        // Five minutes suspended: the boot clock moved, the monotonic one (tokio's timers,
        // the next keep-alive 20 s away) did not.
        *suspended.lock() = Duration::from_secs(300);
        let lapsed = tokio::time::timeout(
            CHECK_EVERY * 10,
            state.wait_for(|s| matches!(s, LeaseState::Lapsed { .. })),
        )
        .await
        .is_ok();
        assert!(lapsed, "still live after the resume: {:?}", *state.borrow());
    }
}
