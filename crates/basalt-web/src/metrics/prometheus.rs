//! The Prometheus text exposition format (0.0.4): `# HELP`, `# TYPE`, then samples.
//!
//! ```text
//! # HELP basalt_requests_total Requests served by the tables, by kind.
//! # TYPE basalt_requests_total counter
//! basalt_requests_total{op="get"} 12
//! # TYPE basalt_request_duration_seconds histogram
//! basalt_request_duration_seconds_bucket{op="get",le="5e-05"} 3
//! …
//! basalt_request_duration_seconds_bucket{op="get",le="+Inf"} 12
//! basalt_request_duration_seconds_sum{op="get"} 0.0021
//! basalt_request_duration_seconds_count{op="get"} 12
//! ```

use crate::snapshot::Snapshot;
use basalt_db::metrics::histogram::BUCKET_BOUNDS_US;
use std::fmt::Write as _;

/// The content type of the exposition.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

pub fn render(s: &Snapshot, uptime_secs: f64) -> String {
    let mut out = Exposition::default();
    out.family(
        "basalt_uptime_seconds",
        "gauge",
        "Seconds since the server started.",
    );
    out.sample("basalt_uptime_seconds", &[], uptime_secs);

    out.family(
        "basalt_requests_total",
        "counter",
        "Requests served by the tables, by kind.",
    );
    for op in &s.ops {
        out.sample(
            "basalt_requests_total",
            &[("op", op.op.name())],
            op.latency.count as f64,
        );
    }
    out.family(
        "basalt_request_errors_total",
        "counter",
        "Requests that failed, by kind.",
    );
    for op in &s.ops {
        out.sample(
            "basalt_request_errors_total",
            &[("op", op.op.name())],
            op.errors as f64,
        );
    }
    out.family(
        "basalt_request_duration_seconds",
        "histogram",
        "Request latency, by kind.",
    );
    for op in &s.ops {
        let name = op.op.name();
        let mut cumulative = 0;
        for (i, count) in op.latency.counts.iter().enumerate() {
            cumulative += count;
            let le = BUCKET_BOUNDS_US
                .get(i)
                .map_or("+Inf".to_string(), |us| format!("{}", *us as f64 / 1e6));
            out.sample(
                "basalt_request_duration_seconds_bucket",
                &[("op", name), ("le", &le)],
                cumulative as f64,
            );
        }
        let sum = op.latency.sum_us as f64 / 1e6;
        out.sample("basalt_request_duration_seconds_sum", &[("op", name)], sum);
        let count = op.latency.count as f64;
        out.sample(
            "basalt_request_duration_seconds_count",
            &[("op", name)],
            count,
        );
    }

    let counters: [(&str, &str, u64); 8] = [
        (
            "basalt_read_requests_total",
            "Reads counted by the regions.",
            s.read_requests(),
        ),
        (
            "basalt_write_requests_total",
            "Writes counted by the regions.",
            s.write_requests(),
        ),
        (
            "basalt_block_cache_hits_total",
            "Block cache lookups that found the block.",
            s.cache.hits,
        ),
        (
            "basalt_block_cache_misses_total",
            "Block cache lookups that read the file.",
            s.cache.misses,
        ),
        (
            "basalt_block_cache_evictions_total",
            "Blocks evicted from the cache.",
            s.cache.evictions,
        ),
        (
            "basalt_wal_syncs_total",
            "fdatasync calls of the write-ahead log.",
            s.wal_syncs,
        ),
        (
            "basalt_write_stalls_total",
            "Writes that waited for flushes to bring the memstores under their global limit.",
            s.jobs.write_stalls,
        ),
        (
            "basalt_compaction_paced_microseconds_total",
            "Time compactions waited to keep to their throughput limit.",
            s.jobs.compaction_paced_us,
        ),
    ];
    out.family(
        "basalt_write_stall_seconds_total",
        "counter",
        "Time writes waited on the global memstore limit.",
    );
    out.sample(
        "basalt_write_stall_seconds_total",
        &[],
        s.jobs.write_stall_us as f64 / 1e6,
    );
    for (name, help, value) in counters {
        out.family(name, "counter", help);
        out.sample(name, &[], value as f64);
    }

    let gauges: [(&str, &str, u64); 16] = [
        (
            "basalt_regions_failed_open",
            "Regions that failed to open (FAILED_OPEN), hbase:meta included: not served.",
            s.failed_region_count() as u64,
        ),
        (
            "basalt_quarantined_items",
            "Items in the quarantine folder, kept until an operator purges them.",
            s.health.quarantined.len() as u64,
        ),
        (
            "basalt_catalog_inconsistencies",
            "Disagreements between hbase:meta and the data folder (holes, overlaps, unknown or missing folders).",
            s.health.inconsistencies.len() as u64,
        ),
        (
            "basalt_tables",
            "Tables, hbase:meta included.",
            s.tables.len() as u64,
        ),
        ("basalt_regions", "Regions served.", s.region_count() as u64),
        (
            "basalt_store_files",
            "Store files of every region.",
            s.store_files() as u64,
        ),
        (
            "basalt_store_file_size_bytes",
            "Bytes of store files.",
            s.store_file_bytes(),
        ),
        (
            "basalt_memstore_size_bytes",
            "Bytes held in memstores.",
            s.memstore_bytes(),
        ),
        (
            "basalt_memstore_limit_bytes",
            "The global memstore limit.",
            s.memstore_limit_bytes,
        ),
        (
            "basalt_block_cache_size_bytes",
            "Bytes of blocks in the cache.",
            s.cache.size_bytes,
        ),
        (
            "basalt_block_cache_capacity_bytes",
            "The block cache's capacity.",
            s.cache.capacity_bytes,
        ),
        (
            "basalt_block_cache_entries",
            "Blocks in the cache.",
            s.cache.entries,
        ),
        (
            "basalt_compaction_queue_length",
            "Compactions waiting.",
            s.jobs.compaction_queue_length as u64,
        ),
        (
            "basalt_compactions_running",
            "Compactions running.",
            s.jobs.compactions_running,
        ),
        (
            "basalt_flush_queue_length",
            "Flushes waiting.",
            s.jobs.flush_queue_length as u64,
        ),
        (
            "basalt_flushes_running",
            "Flushes running.",
            s.jobs.flushes_running,
        ),
    ];
    for (name, help, value) in gauges {
        out.family(name, "gauge", help);
        out.sample(name, &[], value as f64);
    }

    out.family("basalt_table_regions", "gauge", "Regions per table.");
    for t in &s.tables {
        out.sample(
            "basalt_table_regions",
            &[("table", &t.name.to_string())],
            t.regions as f64,
        );
    }
    out.family(
        "basalt_table_size_bytes",
        "gauge",
        "Store file and memstore bytes per table.",
    );
    for t in &s.tables {
        let size = t.store_file_bytes.saturating_add(t.memstore_bytes);
        out.sample(
            "basalt_table_size_bytes",
            &[("table", &t.name.to_string())],
            size as f64,
        );
    }
    out.text
}

/// Text being written in the exposition format.
#[derive(Default)]
pub(crate) struct Exposition {
    pub(crate) text: String,
}

impl Exposition {
    pub(crate) fn family(&mut self, name: &str, kind: &str, help: &str) {
        let _ = writeln!(self.text, "# HELP {name} {help}");
        let _ = writeln!(self.text, "# TYPE {name} {kind}");
    }

    pub(crate) fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: f64) {
        self.text.push_str(name);
        if !labels.is_empty() {
            self.text.push('{');
            for (i, (key, value)) in labels.iter().enumerate() {
                if i > 0 {
                    self.text.push(',');
                }
                let _ = write!(self.text, "{key}=\"{}\"", escape_label(value));
            }
            self.text.push('}');
        }
        let _ = writeln!(self.text, " {value}");
    }
}

/// Label values escape `\`, `"` and newlines.
fn escape_label(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_and_labels_are_written_as_the_format_says() {
        let mut out = Exposition::default();
        out.family("x_total", "counter", "An x.");
        out.sample("x_total", &[("a", "q\"\\\nz"), ("b", "1")], 2.0);
        out.sample("x_total", &[], 0.5);
        assert_eq!(
            out.text,
            "# HELP x_total An x.\n# TYPE x_total counter\nx_total{a=\"q\\\"\\\\\\nz\",b=\"1\"} 2\nx_total 0.5\n"
        );
    }
}
