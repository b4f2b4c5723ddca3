//! The report of a run: a text table for people, `--json` for machines.
//!
//! One line per command that ran (a YCSB workload on an empty table runs `ycsbLoad` first),
//! YCSB's operation types indented under their workload, then the peak resident memory:
//!
//! ```text
//! basalt pe ycsbA: table usertable, 2 clients x 500 rows, seed 7
//! command                 ops     secs      ops/s     MB/s   p50 us   p95 us   p99 us p99.9 us   max us   misses
//! ycsbLoad               1000     0.05    20000.0    19.07       40       80      120      300      400        0
//! ycsbA                  1000     0.04    25000.0    11.20       30       70      110      200      250        0
//!   read                  498 ...
//!   update                502 ...
//! peak RSS: 42.1 MiB
//! ```
//!
//! MB/s counts value bytes in MiB (2^20), as HBase's PE does.
//!
//! Against a server whose CPU time could be read (`basalt pe --connect`), two columns follow
//! ops/s: the server's CPU seconds during the command, and ops per server CPU-second (the
//! client's CPU excluded), with a line saying where the CPU time was read:
//!
//! ```text
//! command                 ops     secs      ops/s  srv CPU s  ops/CPU-s     MB/s ...
//! ycsbE                  4000     0.50     8000.0       0.40    10000.0     4.10 ...
//! server CPU: process_cpu_seconds_total of http://127.0.0.1:16010/metrics
//! ```

use crate::histogram::Histogram;
use crate::options::PeOptions;
use crate::stats::{OpStats, PhaseStats};
use serde::Serialize;

const MIB: f64 = 1024.0 * 1024.0;

/// Latency percentiles in microseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Latency {
    pub p50: u64,
    pub p95: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
    pub mean: f64,
}

impl Latency {
    pub fn of(histogram: &Histogram) -> Self {
        Self {
            p50: histogram.percentile_us(0.50),
            p95: histogram.percentile_us(0.95),
            p99: histogram.percentile_us(0.99),
            p999: histogram.percentile_us(0.999),
            max: histogram.max_us(),
            mean: histogram.mean_us(),
        }
    }
}

/// One operation type of a YCSB workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OperationReport {
    pub name: String,
    pub ops: u64,
    pub misses: u64,
    pub latency_us: Latency,
}

/// One command's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PhaseReport {
    pub command: String,
    pub ops: u64,
    /// Value bytes written or read.
    pub bytes: u64,
    /// Reads that found no row.
    pub misses: u64,
    pub elapsed_secs: f64,
    pub ops_per_sec: f64,
    pub mb_per_sec: f64,
    pub latency_us: Latency,
    /// CPU seconds the server used during the command, when they could be read.
    pub server_cpu_secs: Option<f64>,
    /// Operations per server CPU-second (None without the server's CPU time, or when the
    /// server used less than its clock's tick).
    pub ops_per_server_cpu_sec: Option<f64>,
    /// YCSB's operation types; empty for PE commands.
    pub operations: Vec<OperationReport>,
}

impl PhaseReport {
    pub fn of(phase: &PhaseStats) -> Self {
        let total: &OpStats = &phase.stats.total;
        let secs = phase.elapsed.as_secs_f64().max(1e-9);
        Self {
            command: phase.command.to_string(),
            ops: total.ops(),
            bytes: total.bytes,
            misses: total.misses,
            elapsed_secs: phase.elapsed.as_secs_f64(),
            ops_per_sec: total.ops() as f64 / secs,
            mb_per_sec: total.bytes as f64 / MIB / secs,
            latency_us: Latency::of(&total.latency),
            server_cpu_secs: phase.server_cpu_secs,
            ops_per_server_cpu_sec: phase
                .server_cpu_secs
                .filter(|cpu| *cpu > 0.0)
                .map(|cpu| total.ops() as f64 / cpu),
            operations: phase
                .stats
                .kinds
                .iter()
                .map(|(name, stats)| OperationReport {
                    name: (*name).to_string(),
                    ops: stats.ops(),
                    misses: stats.misses,
                    latency_us: Latency::of(&stats.latency),
                })
                .collect(),
        }
    }
}

/// A whole run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub command: String,
    pub table: String,
    pub clients: u32,
    pub rows_per_client: u64,
    pub seed: u64,
    pub phases: Vec<PhaseReport>,
    /// Peak resident memory of this process (`VmHWM`); in `--connect` mode the client only.
    pub peak_rss_bytes: Option<u64>,
    /// Where the server's CPU time was read, or why it was not; None when not asked.
    pub server_cpu_source: Option<String>,
}

impl Report {
    pub fn new(options: &PeOptions, phases: &[PhaseStats], peak_rss_bytes: Option<u64>) -> Self {
        Self {
            command: options.command.name().to_string(),
            table: options.table.to_string(),
            clients: options.clients,
            rows_per_client: options.rows_per_client,
            seed: options.seed,
            phases: phases.iter().map(PhaseReport::of).collect(),
            peak_rss_bytes,
            server_cpu_source: None,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report holds only numbers and strings")
    }

    pub fn to_text(&self) -> String {
        let mut out = format!(
            "basalt pe {}: table {}, {} clients x {} rows, seed {}\n",
            self.command, self.table, self.clients, self.rows_per_client, self.seed
        );
        let cpu = self.phases.iter().any(|p| p.server_cpu_secs.is_some());
        out.push_str(&format!(
            "{:<16}{:>10}{:>9}{:>11}{}{:>9}{:>9}{:>9}{:>9}{:>9}{:>9}{:>9}\n",
            "command",
            "ops",
            "secs",
            "ops/s",
            if cpu {
                format!("{:>11}{:>11}", "srv CPU s", "ops/CPU-s")
            } else {
                String::new()
            },
            "MB/s",
            "p50 us",
            "p95 us",
            "p99 us",
            "p99.9 us",
            "max us",
            "misses"
        ));
        for phase in &self.phases {
            out.push_str(&format!(
                "{:<16}{:>10}{:>9.2}{:>11.1}{}{:>9.2}{}{:>9}\n",
                phase.command,
                phase.ops,
                phase.elapsed_secs,
                phase.ops_per_sec,
                if cpu {
                    cpu_columns(phase)
                } else {
                    String::new()
                },
                phase.mb_per_sec,
                latency_columns(&phase.latency_us),
                phase.misses
            ));
            for op in &phase.operations {
                out.push_str(&format!(
                    "  {:<14}{:>10}{:>9}{:>11}{}{:>9}{}{:>9}\n",
                    op.name,
                    op.ops,
                    "",
                    "",
                    if cpu { " ".repeat(22) } else { String::new() },
                    "",
                    latency_columns(&op.latency_us),
                    op.misses
                ));
            }
        }
        if let Some(source) = &self.server_cpu_source {
            out.push_str(&format!("server CPU: {source}\n"));
        }
        match self.peak_rss_bytes {
            Some(bytes) => out.push_str(&format!("peak RSS: {:.1} MiB\n", bytes as f64 / MIB)),
            None => out.push_str("peak RSS: unknown (no /proc/self/status)\n"),
        }
        out
    }
}

/// The server CPU seconds and ops per server CPU-second, or dashes where unknown.
fn cpu_columns(phase: &PhaseReport) -> String {
    let cpu = phase
        .server_cpu_secs
        .map_or("-".to_string(), |secs| format!("{secs:.2}"));
    let per_cpu = phase
        .ops_per_server_cpu_sec
        .map_or("-".to_string(), |ops| format!("{ops:.1}"));
    format!("{cpu:>11}{per_cpu:>11}")
}

fn latency_columns(latency: &Latency) -> String {
    format!(
        "{:>9}{:>9}{:>9}{:>9}{:>9}",
        latency.p50, latency.p95, latency.p99, latency.p999, latency.max
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{ClientStats, Outcome};
    use crate::{Command, PeArgs};
    use clap::Parser;
    use std::time::Duration;

    fn sample() -> Report {
        Report::new(&options(), &[sample_phase()], Some(3 * 1024 * 1024))
    }

    fn options() -> PeOptions {
        PeArgs::parse_from([
            "pe",
            "--rows",
            "2",
            "--clients",
            "2",
            "--seed",
            "9",
            "ycsbB",
        ])
        .validate()
        .expect("valid")
    }

    /// ycsbB: 4 operations in 2 s.
    fn sample_phase() -> PhaseStats {
        let mut stats = ClientStats::default();
        for (kind, us, misses) in [
            ("read", 10, 0),
            ("read", 30, 1),
            ("update", 20, 0),
            ("read", 40, 0),
        ] {
            let outcome = Outcome {
                latency: Duration::from_micros(us),
                bytes: 1000,
                misses,
            };
            stats.record(Some(kind), outcome);
        }
        PhaseStats {
            command: Command::YcsbB.name(),
            elapsed: Duration::from_secs(2),
            stats,
            server_cpu_secs: None,
        }
    }

    /// Latencies below 128 µs are exact, so every figure is known.
    #[test]
    fn json_has_every_figure() {
        let json: serde_json::Value =
            serde_json::from_str(&sample().to_json()).expect("valid JSON");
        assert_eq!(json["command"], "ycsbB");
        assert_eq!(json["table"], "usertable");
        assert_eq!(json["clients"], 2);
        assert_eq!(json["rows_per_client"], 2);
        assert_eq!(json["seed"], 9);
        assert_eq!(json["peak_rss_bytes"], 3 * 1024 * 1024);
        let phase = &json["phases"][0];
        assert_eq!(phase["command"], "ycsbB");
        assert_eq!(phase["ops"], 4);
        assert_eq!(phase["bytes"], 4000);
        assert_eq!(phase["misses"], 1);
        assert_eq!(phase["ops_per_sec"], 2.0);
        assert!((phase["mb_per_sec"].as_f64().expect("number") - 4000.0 / MIB / 2.0).abs() < 1e-12);
        let latency = &phase["latency_us"];
        assert_eq!(
            (latency["p50"].as_u64(), latency["max"].as_u64()),
            (Some(20), Some(40))
        );
        for key in ["p95", "p99", "p999"] {
            assert_eq!(latency[key], 40, "{key}");
        }
        assert_eq!(latency["mean"], 25.0);
        let operations = phase["operations"].as_array().expect("array");
        assert_eq!(operations.len(), 2);
        assert_eq!(
            (
                operations[0]["name"].as_str(),
                operations[0]["ops"].as_u64()
            ),
            (Some("read"), Some(3))
        );
        assert_eq!(operations[0]["misses"], 1);
        assert_eq!(
            (
                operations[1]["name"].as_str(),
                operations[1]["ops"].as_u64()
            ),
            (Some("update"), Some(1))
        );
    }

    #[test]
    fn text_is_a_table_with_one_line_per_command_and_operation() {
        let text = sample().to_text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "basalt pe ycsbB: table usertable, 2 clients x 2 rows, seed 9"
        );
        let header: Vec<&str> = lines[1].split_whitespace().collect();
        assert_eq!(
            header,
            [
                "command", "ops", "secs", "ops/s", "MB/s", "p50", "us", "p95", "us", "p99", "us",
                "p99.9", "us", "max", "us", "misses"
            ]
        );
        let phase: Vec<&str> = lines[2].split_whitespace().collect();
        assert_eq!(
            phase,
            ["ycsbB", "4", "2.00", "2.0", "0.00", "20", "40", "40", "40", "40", "1"]
        );
        let read: Vec<&str> = lines[3].split_whitespace().collect();
        assert_eq!(read, ["read", "3", "30", "40", "40", "40", "40", "1"]);
        assert!(lines[3].starts_with("  read"));
        assert!(lines[4].starts_with("  update"));
        assert_eq!(lines[5], "peak RSS: 3.0 MiB");
        assert_eq!(lines.len(), 6);
    }

    #[test]
    fn the_server_cpu_columns_follow_ops_per_second_when_measured() {
        let mut report = sample();
        report.phases[0].server_cpu_secs = Some(0.5);
        report.phases[0].ops_per_server_cpu_sec = Some(8.0);
        report.server_cpu_source = Some("process_cpu_seconds_total of http://h/metrics".into());
        let text = report.to_text();
        let lines: Vec<&str> = text.lines().collect();
        let header: Vec<&str> = lines[1].split_whitespace().collect();
        assert_eq!(
            header[..8],
            [
                "command",
                "ops",
                "secs",
                "ops/s",
                "srv",
                "CPU",
                "s",
                "ops/CPU-s"
            ]
        );
        let phase: Vec<&str> = lines[2].split_whitespace().collect();
        assert_eq!(phase[..6], ["ycsbB", "4", "2.00", "2.0", "0.50", "8.0"]);
        let read: Vec<&str> = lines[3].split_whitespace().collect();
        assert_eq!(
            read[..3],
            ["read", "3", "30"],
            "operation lines stay aligned"
        );
        assert_eq!(
            lines[5],
            "server CPU: process_cpu_seconds_total of http://h/metrics"
        );
        let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("JSON");
        assert_eq!(json["phases"][0]["ops_per_server_cpu_sec"], 8.0);
        assert_eq!(json["phases"][0]["server_cpu_secs"], 0.5);
    }

    #[test]
    fn ops_per_server_cpu_second_divide_the_phase_s_ops_by_its_server_cpu() {
        let mut phase = sample_phase();
        phase.server_cpu_secs = Some(0.25);
        assert_eq!(PhaseReport::of(&phase).ops_per_server_cpu_sec, Some(16.0));
        phase.server_cpu_secs = Some(0.0);
        assert_eq!(
            PhaseReport::of(&phase).ops_per_server_cpu_sec,
            None,
            "below a tick"
        );
        phase.server_cpu_secs = None;
        assert_eq!(PhaseReport::of(&phase).ops_per_server_cpu_sec, None);
    }
}
