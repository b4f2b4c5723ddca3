//! `/jmx`: the JSON HBase's servers give, `{"beans": [{"name": ..., metric: value}]}`,
//! with HBase's bean and metric names where Basalt has the same figure.
//!
//! `?qry=<bean name>` keeps only that bean, as HBase's servlet does; a final `*` matches
//! any ending (HBase's servlet takes JMX patterns; only this one is understood).

use crate::snapshot::Snapshot;
use crate::ServerInfo;
use std::fmt::Write as _;

pub const CONTENT_TYPE: &str = "application/json; charset=utf-8";

pub const SERVER_BEAN: &str = "Hadoop:service=HBase,name=RegionServer,sub=Server";
pub const WAL_BEAN: &str = "Hadoop:service=HBase,name=RegionServer,sub=WAL";
pub const MASTER_BEAN: &str = "Hadoop:service=HBase,name=Master,sub=Server";

/// A metric value: a count or a string.
enum Value {
    Int(u64),
    Ratio(f64),
    Text(String),
}

pub fn render(s: &Snapshot, info: &ServerInfo, query: Option<&str>) -> String {
    let beans = [
        (SERVER_BEAN, server_bean(s, info)),
        (
            WAL_BEAN,
            vec![("SyncTime_num_ops".to_string(), Value::Int(s.wal_syncs))],
        ),
        (MASTER_BEAN, master_bean(s, info)),
    ];
    let mut out = String::from("{\n  \"beans\": [");
    let mut first = true;
    for (name, metrics) in beans
        .iter()
        .filter(|(name, _)| query.is_none_or(|q| matches(q, name)))
    {
        if !first {
            out.push(',');
        }
        first = false;
        out.push_str("\n    {\n      \"name\": ");
        string(&mut out, name);
        for (key, value) in metrics {
            out.push_str(",\n      ");
            string(&mut out, key);
            out.push_str(": ");
            match value {
                Value::Int(n) => {
                    let _ = write!(out, "{n}");
                }
                Value::Ratio(x) if x.is_finite() => {
                    let _ = write!(out, "{x}");
                }
                Value::Ratio(_) => out.push('0'),
                Value::Text(t) => string(&mut out, t),
            }
        }
        out.push_str("\n    }");
    }
    out.push_str("\n  ]\n}\n");
    out
}

fn server_bean(s: &Snapshot, info: &ServerInfo) -> Vec<(String, Value)> {
    let lookups = s.cache.hits.saturating_add(s.cache.misses);
    let hit_percent = if lookups == 0 {
        0.0
    } else {
        s.cache.hits as f64 * 100.0 / lookups as f64
    };
    let mut m = vec![
        (
            "serverName".to_string(),
            Value::Text(info.server_name.clone()),
        ),
        (
            "regionCount".to_string(),
            Value::Int(s.region_count() as u64),
        ),
        (
            "storeFileCount".to_string(),
            Value::Int(s.store_files() as u64),
        ),
        (
            "storeFileSize".to_string(),
            Value::Int(s.store_file_bytes()),
        ),
        ("memStoreSize".to_string(), Value::Int(s.memstore_bytes())),
        (
            "totalRequestCount".to_string(),
            Value::Int(s.total_requests()),
        ),
        (
            "readRequestCount".to_string(),
            Value::Int(s.read_requests()),
        ),
        (
            "writeRequestCount".to_string(),
            Value::Int(s.write_requests()),
        ),
        ("blockCacheHitCount".to_string(), Value::Int(s.cache.hits)),
        (
            "blockCacheMissCount".to_string(),
            Value::Int(s.cache.misses),
        ),
        (
            "blockCacheEvictionCount".to_string(),
            Value::Int(s.cache.evictions),
        ),
        ("blockCacheSize".to_string(), Value::Int(s.cache.size_bytes)),
        ("blockCacheCount".to_string(), Value::Int(s.cache.entries)),
        (
            "blockCountHitPercent".to_string(),
            Value::Ratio(hit_percent),
        ),
        (
            "compactionQueueLength".to_string(),
            Value::Int(s.jobs.compaction_queue_length as u64),
        ),
        (
            "flushQueueLength".to_string(),
            Value::Int(s.jobs.flush_queue_length as u64),
        ),
    ];
    for op in &s.ops {
        let l = &op.latency;
        let prefix = op.op.jmx_name();
        m.push((format!("{prefix}_num_ops"), Value::Int(l.count)));
        // In milliseconds, as HBase's latency histograms; fractions keep what is below.
        let figures = [
            ("min", l.min_us),
            ("max", l.max_us),
            ("mean", l.mean_us()),
            ("median", l.percentile_us(0.5)),
            ("75th_percentile", l.percentile_us(0.75)),
            ("95th_percentile", l.percentile_us(0.95)),
            ("99th_percentile", l.percentile_us(0.99)),
        ];
        for (suffix, us) in figures {
            m.push((
                format!("{prefix}_{suffix}"),
                Value::Ratio(us as f64 / 1000.0),
            ));
        }
    }
    m
}

/// `ritCount` counts the regions in transition, as HBase's assignment manager does: here
/// the FAILED_OPEN ones, which stay so until they are opened again.
fn master_bean(s: &Snapshot, info: &ServerInfo) -> Vec<(String, Value)> {
    let failed = s.failed_region_count() as u64;
    vec![
        (
            "serverName".to_string(),
            Value::Text(info.server_name.clone()),
        ),
        ("numRegionServers".to_string(), Value::Int(1)),
        ("numDeadRegionServers".to_string(), Value::Int(0)),
        ("ritCount".to_string(), Value::Int(failed)),
        ("failedOpenRegionCount".to_string(), Value::Int(failed)),
        (
            "quarantinedItemCount".to_string(),
            Value::Int(s.health.quarantined.len() as u64),
        ),
        ("version".to_string(), Value::Text(info.version.clone())),
    ]
}

/// Whether bean `name` answers `query`: equal, or starting with what precedes a final `*`
/// (`Hadoop:service=HBase,name=RegionServer,*`).
fn matches(query: &str, name: &str) -> bool {
    match query.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => query == name,
    }
}

/// A JSON string literal.
fn string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // `<` too, so the JSON can never close a surrounding script element.
            c if c < ' ' || c == '<' => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_match_whole_names_or_prefixes() {
        assert!(matches(SERVER_BEAN, SERVER_BEAN));
        assert!(!matches("Hadoop:service=HBase", SERVER_BEAN));
        assert!(matches(
            "Hadoop:service=HBase,name=RegionServer,*",
            WAL_BEAN
        ));
        assert!(!matches(
            "Hadoop:service=HBase,name=RegionServer,*",
            MASTER_BEAN
        ));
    }

    #[test]
    fn strings_are_escaped() {
        let mut out = String::new();
        string(&mut out, "a\"b\\c\n\u{1}<");
        assert_eq!(out, "\"a\\\"b\\\\c\\n\\u0001\\u003c\"");
    }
}
