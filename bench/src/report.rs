//! The report: each figure per engine and its ratio to RocksDB's in the same run.

use std::collections::BTreeMap;
use std::fmt::Write;

pub struct Report {
    engines: Vec<String>,
    /// Phase name → (unit, engine display name → figure), in run order.
    rows: Vec<(String, String, BTreeMap<String, f64>)>,
    limits: Vec<(String, f64)>,
    shares: BTreeMap<String, f64>,
    /// Each engine's settings as it was opened, printed above the figures.
    configurations: Vec<(String, String)>,
    pub rss_mib: Option<f64>,
    /// Which allocator the Rust engines ran on.
    pub allocator: &'static str,
}

fn display(engine: &str) -> &str {
    match engine {
        "basalt" => "Basalt",
        "rocksdb" => "RocksDB",
        "fjall" => "fjall",
        other => other,
    }
}

impl Report {
    pub fn new(engines: Vec<String>) -> Self {
        Self {
            engines,
            rows: Vec::new(),
            limits: Vec::new(),
            shares: BTreeMap::new(),
            configurations: Vec::new(),
            rss_mib: None,
            allocator: "",
        }
    }

    pub fn configuration(&mut self, engine: &str, settings: String) {
        self.configurations.push((engine.to_string(), settings));
    }

    pub fn limit(&mut self, name: &str, value: f64) {
        self.limits.push((name.to_string(), value));
    }

    pub fn figure(&mut self, phase: &str, unit: &str, engine: &str, value: f64) {
        if let Some(row) = self.rows.iter_mut().find(|r| r.0 == phase) {
            row.2.insert(engine.to_string(), value);
        } else {
            let mut figures = BTreeMap::new();
            figures.insert(engine.to_string(), value);
            self.rows.push((phase.to_string(), unit.to_string(), figures));
        }
    }

    /// Notes each engine's figure for `phase` as a share of `limit`.
    pub fn share_of_limit(&mut self, phase: &str, limit: f64) {
        if let Some(row) = self.rows.iter().find(|r| r.0 == phase) {
            for (engine, value) in &row.2 {
                self.shares.insert(format!("{phase}: {engine}"), value / limit);
            }
        }
    }

    pub fn render(&self, records: &u64, ops: &u64) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "\n{records} records x 10 fields x 100 B, {ops} ops per workload, 1 client thread unless noted\n");
        for (engine, settings) in &self.configurations {
            let _ = writeln!(out, "  {engine:<8} {settings}");
        }
        let _ = writeln!(out);
        let _ = write!(out, "| {:<44} | {:<6} |", "workload", "unit");
        for e in &self.engines {
            let _ = write!(out, " {:>10} |", display(e));
        }
        for e in self.engines.iter().filter(|e| *e != "rocksdb") {
            let _ = write!(out, " {:>11} |", format!("{}/RocksDB", display(e)));
        }
        let _ = writeln!(out);
        let columns = 2 + self.engines.len() * 2 - usize::from(self.engines.iter().any(|e| e == "rocksdb"));
        let _ = writeln!(out, "|{}", "---|".repeat(columns));
        for (phase, unit, figures) in &self.rows {
            let _ = write!(out, "| {phase:<44} | {unit:<6} |");
            for e in &self.engines {
                match figures.get(display(e)) {
                    Some(v) => {
                        let _ = write!(out, " {v:>10.0} |");
                    }
                    None => {
                        let _ = write!(out, " {:>10} |", "-");
                    }
                }
            }
            let rocks = figures.get("RocksDB").copied();
            for e in self.engines.iter().filter(|e| *e != "rocksdb") {
                match (figures.get(display(e)), rocks) {
                    (Some(v), Some(r)) if r > 0.0 => {
                        let _ = write!(out, " {:>10.2}x |", v / r);
                    }
                    _ => {
                        let _ = write!(out, " {:>11} |", "-");
                    }
                }
            }
            let _ = writeln!(out);
        }
        let _ = writeln!(out, "\nmachine limits measured in this run:");
        for (name, value) in &self.limits {
            let _ = writeln!(out, "  {name:<36} {value:>10.0}");
        }
        for (what, share) in &self.shares {
            let _ = writeln!(out, "  {what:<36} {:>9.0}% of sequential write", share * 100.0);
        }
        if let Some(rss) = self.rss_mib {
            let _ = writeln!(out, "  peak RSS of the bench process         {rss:>9.0} MiB");
        }
        let _ = writeln!(out, "allocator: {}", self.allocator);
        out
    }
}
