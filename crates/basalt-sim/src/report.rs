//! A [`Report`] as text: per phase, how long it took to converge (simulated time), what
//! the coordinator stores, and each count it saw, by who asked, as a total, a mean and a
//! peak per simulated second, per region and per server.

use crate::counting::{Metric, METRICS, ROLES};
use crate::scenario::{Phase, Report};
use std::fmt;

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.scenario;
        writeln!(
            f,
            "seed {} | {} masters, {} region servers, {} regions | trace: {} events, digest {:016x}",
            s.seed, s.masters, s.servers, s.regions, self.events, self.digest
        )?;
        for phase in &self.phases {
            write_phase(f, phase, s.regions.max(1), s.servers.max(1))?;
        }
        match &self.failure {
            Some(why) => writeln!(f, "FAILED: {why}")?,
            None => writeln!(f, "every phase converged")?,
        }
        for broken in &self.violations {
            writeln!(f, "VIOLATION: {broken}")?;
        }
        Ok(())
    }
}

fn write_phase(f: &mut fmt::Formatter<'_>, p: &Phase, regions: u32, servers: usize) -> fmt::Result {
    let secs = p.took.as_secs_f64().max(1.0);
    writeln!(
        f,
        "\nphase {:<8} from t={:.1}s, took {:.2}s simulated | coordinator: {} keys, {:.1} MiB, revision {}",
        p.name,
        p.start.as_secs_f64(),
        p.took.as_secs_f64(),
        p.stored_keys,
        p.stored_bytes as f64 / (1 << 20) as f64,
        p.revision
    )?;
    writeln!(
        f,
        "  {:<8} {:<13} {:>12} {:>11} {:>11} {:>10} {:>12}",
        "who", "count", "total", "mean/s", "peak/s", "/region", "/server/s"
    )?;
    for (r, role) in ROLES.iter().enumerate() {
        for (m, metric) in METRICS.iter().enumerate() {
            let total = p.load[r].0[m];
            if total == 0 {
                continue;
            }
            writeln!(
                f,
                "  {:<8} {:<13} {:>12} {:>11.1} {:>11} {:>10.3} {:>12.4}",
                role.name(),
                metric,
                total,
                total as f64 / secs,
                p.peak[r].0[m],
                total as f64 / f64::from(regions),
                total as f64 / secs / servers as f64,
            )?;
        }
    }
    Ok(())
}

impl Report {
    /// Per simulated second: transactions, puts, put bytes, watch events and keep-alives,
    /// both roles together (the coordinator's load second by second).
    pub fn timeline(&self) -> String {
        let mut out =
            String::from("second  txns  puts  put_bytes  gets  lists  watch_events  keep_alives\n");
        for (i, second) in self.seconds.iter().enumerate() {
            let all = second[0].plus(&second[1]);
            out.push_str(&format!(
                "{:>6} {:>5} {:>5} {:>10} {:>5} {:>6} {:>13} {:>12}\n",
                i + 1,
                all.get(Metric::Txns),
                all.get(Metric::Puts),
                all.get(Metric::PutBytes),
                all.get(Metric::Gets),
                all.get(Metric::Lists),
                all.get(Metric::WatchEvents),
                all.get(Metric::KeepAlives),
            ));
        }
        out
    }
}
