//! Measuring one workload (wall time, process CPU time, per-op latency) and printing it as
//! one line of the results table.

use std::time::{Duration, Instant};

/// Per-operation latencies in nanoseconds.
#[derive(Debug, Default)]
pub struct Latencies {
    nanos: Vec<u64>,
}

impl Latencies {
    pub fn with_capacity(ops: usize) -> Self {
        Self {
            nanos: Vec::with_capacity(ops),
        }
    }

    /// Runs `op`, recording how long it took.
    #[inline]
    pub fn time<T>(&mut self, op: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = op();
        self.record(start.elapsed());
        out
    }

    #[inline]
    pub fn record(&mut self, took: Duration) {
        self.nanos
            .push(u64::try_from(took.as_nanos()).unwrap_or(u64::MAX));
    }

    pub fn len(&self) -> usize {
        self.nanos.len()
    }

    pub fn merge(&mut self, other: Latencies) {
        self.nanos.extend(other.nanos);
    }

    /// The median in microseconds, `None` when nothing was recorded.
    pub fn p50_us(&mut self) -> Option<f64> {
        self.percentiles_us().map(|p| p[0])
    }

    /// The 99th percentile in microseconds, `None` when nothing was recorded.
    pub fn p99_us(&mut self) -> Option<f64> {
        self.percentiles_us().map(|p| p[1])
    }

    /// The given quantiles (in thousandths: 990 is p99) in microseconds, `None` when
    /// nothing was recorded.
    pub fn quantiles_us(&mut self, permille: &[usize]) -> Option<Vec<f64>> {
        if self.nanos.is_empty() {
            return None;
        }
        self.nanos.sort_unstable();
        let n = self.nanos.len();
        Some(
            permille
                .iter()
                .map(|q| self.nanos[(n * q / 1000).min(n - 1)] as f64 / 1e3)
                .collect(),
        )
    }

    /// p50, p99 and max in microseconds, `None` when nothing was recorded.
    fn percentiles_us(&mut self) -> Option<[f64; 3]> {
        if self.nanos.is_empty() {
            return None;
        }
        self.nanos.sort_unstable();
        let at = |q: usize| {
            self.nanos[(self.nanos.len() * q / 100).min(self.nanos.len() - 1)] as f64 / 1e3
        };
        let max = *self.nanos.last().expect("checked non-empty above") as f64 / 1e3;
        Some([at(50), at(99), max])
    }
}

/// Wall and process CPU time of a workload.
pub struct Timer {
    wall: Instant,
    cpu: Option<Duration>,
}

impl Timer {
    pub fn start() -> Self {
        Self {
            wall: Instant::now(),
            cpu: process_cpu(),
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.wall.elapsed()
    }

    /// Wall time and CPU time (of every thread of the process, background workers included).
    pub fn stop(&self) -> (Duration, Option<Duration>) {
        let wall = self.wall.elapsed();
        let cpu = match (self.cpu, process_cpu()) {
            (Some(before), Some(after)) => Some(after.saturating_sub(before)),
            _ => None,
        };
        (wall, cpu)
    }
}

/// User + system CPU time of this process, from `/proc/self/stat` (Linux, 100 ticks/s).
fn process_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may hold spaces; fields after it are plain numbers.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state); utime and stime are fields 14 and 15.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// One finished workload, ready to print.
pub struct Outcome {
    pub name: String,
    /// What one op is ("put", "get", "scan", "row", "MiB", "sync").
    pub unit: &'static str,
    pub ops: u64,
    pub wall: Duration,
    pub cpu: Option<Duration>,
    /// Bytes moved, for the workloads where MB/s means something.
    pub bytes: Option<u64>,
    pub latencies: Latencies,
    /// The figure divided by its physical limit, and which limit.
    pub ratio: Option<(f64, &'static str)>,
    pub note: Option<String>,
}

impl Outcome {
    pub fn ops_per_sec(&self) -> f64 {
        self.ops as f64 / self.wall.as_secs_f64().max(1e-9)
    }

    /// Adds another slice of the same workload (ops, time, bytes and latencies add up).
    pub fn merge(&mut self, other: Outcome) {
        self.ops += other.ops;
        self.wall += other.wall;
        self.cpu = self.cpu.zip(other.cpu).map(|(a, b)| a + b);
        self.bytes = self.bytes.zip(other.bytes).map(|(a, b)| a + b);
        self.latencies.merge(other.latencies);
    }

    /// Adds a remark shown under the line.
    pub fn add_note(&mut self, text: impl Into<String>) {
        let text = text.into();
        self.note = Some(match self.note.take() {
            Some(note) => format!("{note}; {text}"),
            None => text,
        });
    }

    pub fn mb_per_sec(&self) -> Option<f64> {
        self.bytes
            .map(|b| b as f64 / 1e6 / self.wall.as_secs_f64().max(1e-9))
    }
}

/// Puts `next` in `slot`, or merges it into what is there.
pub fn absorb(slot: &mut Option<Outcome>, next: Outcome) {
    match slot {
        Some(outcome) => outcome.merge(next),
        None => *slot = Some(next),
    }
}

pub const TABLE_HEADER: &str = "workload            ops        op/s    MB/s   p50 µs   p99 µs   max µs  cpu%  cpu µs/op  vs limit";

/// Prints `outcome` as one table line, then its note (if any) indented below.
pub fn print_line(mut outcome: Outcome) {
    let pct = outcome.latencies.percentiles_us();
    let lat = |i: usize| pct.map_or("-".to_string(), |p| short(p[i]));
    let mbs = outcome.mb_per_sec().map_or("-".to_string(), short);
    let (cpu_pct, cpu_per_op) = match outcome.cpu {
        Some(cpu) => (
            format!(
                "{:.0}",
                100.0 * cpu.as_secs_f64() / outcome.wall.as_secs_f64().max(1e-9)
            ),
            short(cpu.as_secs_f64() * 1e6 / (outcome.ops.max(1) as f64)),
        ),
        None => ("-".to_string(), "-".to_string()),
    };
    let ratio = outcome
        .ratio
        .map_or("-".to_string(), |(r, of)| format!("{} of {of}", ratio(r)));
    println!(
        "{:<16} {:>9} {:>9} {:>7} {:>8} {:>8} {:>8} {:>5} {:>10}  {}",
        outcome.name,
        format!("{} {}", count(outcome.ops), outcome.unit),
        count_f(outcome.ops_per_sec()),
        mbs,
        lat(0),
        lat(1),
        lat(2),
        cpu_pct,
        cpu_per_op,
        ratio,
    );
    if let Some(note) = outcome.note.take() {
        println!("{:>18}{note}", "↳ ");
    }
}

/// A ratio as `0.034×` with about three significant digits.
pub fn ratio(r: f64) -> String {
    format!("{}×", short(r))
}

/// About three significant digits, no exponent.
pub fn short(x: f64) -> String {
    match x.abs() {
        a if a >= 100.0 => format!("{x:.0}"),
        a if a >= 10.0 => format!("{x:.1}"),
        a if a >= 1.0 => format!("{x:.2}"),
        _ => format!("{x:.3}"),
    }
}

/// An op count as `12.3K` / `4.56M`.
pub fn count(n: u64) -> String {
    count_f(n as f64)
}

pub fn count_f(x: f64) -> String {
    match x {
        x if x >= 1e6 => format!("{:.2}M", x / 1e6),
        x if x >= 1e4 => format!("{:.1}K", x / 1e3),
        x if x >= 1e3 => format!("{:.2}K", x / 1e3),
        x => format!("{x:.0}"),
    }
}

/// Progress of a long workload on stderr, at most once a second.
pub struct Progress {
    name: &'static str,
    started: Instant,
    last: Instant,
}

impl Progress {
    pub fn new(name: &'static str) -> Self {
        let now = Instant::now();
        Self {
            name,
            started: now,
            last: now,
        }
    }

    /// Call often (it looks at the clock once every 1024 ops); prints when a second has
    /// passed since the last line.
    #[inline]
    pub fn tick(&mut self, done: u64, total: Option<u64>) {
        if done & 1023 == 0 {
            self.tick_now(done, total);
        }
    }

    /// As `tick`, looking at the clock every time: for slow ops.
    pub fn tick_now(&mut self, done: u64, total: Option<u64>) {
        if self.last.elapsed() < Duration::from_secs(1) {
            return;
        }
        self.last = Instant::now();
        let of = total.map_or(String::new(), |t| format!("/{t}"));
        eprintln!(
            "  [{}] {done}{of} after {:.1} s",
            self.name,
            self.started.elapsed().as_secs_f64()
        );
    }
}
