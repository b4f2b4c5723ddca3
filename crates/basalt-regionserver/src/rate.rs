//! Requests per second, as HBase's region server computes its `requestsPerSecond`: the
//! requests of the last whole window (HBase's `hbase.regionserver.metrics.period`, 5 s)
//! divided by its length. Whoever asks (the master's poll, the web UI) reads the last
//! whole window, so asking more often does not shorten it.

use parking_lot::Mutex;
use std::time::{Duration, Instant};

/// How long one window lasts.
pub const WINDOW: Duration = Duration::from_secs(5);

#[derive(Debug, Default)]
pub struct RequestRate {
    window: Mutex<Option<Window>>,
}

#[derive(Debug, Clone, Copy)]
struct Window {
    started: Instant,
    total: u64,
    rate: u64,
}

impl RequestRate {
    /// The rate of the last whole window, given the server's request total at `now`
    /// (0 until one window has passed).
    pub fn observe(&self, total: u64, now: Instant) -> u64 {
        let mut window = self.window.lock();
        let Some(w) = window.as_mut() else {
            *window = Some(Window {
                started: now,
                total,
                rate: 0,
            });
            return 0;
        };
        let elapsed = now.saturating_duration_since(w.started);
        if elapsed >= WINDOW {
            let requests = total.saturating_sub(w.total) as f64;
            w.rate = (requests / elapsed.as_secs_f64()).round() as u64;
            w.started = now;
            w.total = total;
        }
        w.rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_is_the_last_whole_windows() {
        let rate = RequestRate::default();
        let t0 = Instant::now();
        assert_eq!(rate.observe(100, t0), 0, "no window has passed");
        assert_eq!(rate.observe(400, t0 + Duration::from_secs(2)), 0);
        // 900 requests over the first 5 s.
        assert_eq!(rate.observe(1000, t0 + WINDOW), 180);
        // Asked again within the next window: the same figure.
        assert_eq!(
            rate.observe(1200, t0 + WINDOW + Duration::from_secs(1)),
            180
        );
        // A window of 10 s with no request at all.
        assert_eq!(rate.observe(1000, t0 + WINDOW * 3), 0);
    }
}
