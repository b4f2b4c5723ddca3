//! `/metrics` parsed line by line as Prometheus text, its counters moving with traffic,
//! and `/jmx` parsed as JSON with HBase's names.

use crate::support;

use basalt_types::{Get, Put, TableName};
use std::collections::BTreeMap;
use support::{Fixture, TABLE};

/// One sample: metric name, labels, value.
#[derive(Debug, Clone)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

/// A strict reader of the text exposition format 0.0.4: every line is a `# HELP`, a
/// `# TYPE` or a sample of a declared family, with valid names, labels and values.
fn parse_exposition(text: &str) -> Vec<Sample> {
    let mut types: BTreeMap<String, String> = BTreeMap::new();
    let mut samples = Vec::new();
    assert!(text.ends_with('\n'), "the exposition ends with a newline");
    for (n, line) in text.lines().enumerate() {
        let at = format!("line {}: {line:?}", n + 1);
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, help) = rest.split_once(' ').expect(&at);
            assert!(valid_name(name), "{at}");
            assert!(!help.is_empty(), "{at}");
        } else if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').expect(&at);
            assert!(valid_name(name), "{at}");
            assert!(
                ["counter", "gauge", "histogram", "summary", "untyped"].contains(&kind),
                "{at}"
            );
            assert!(
                types.insert(name.to_string(), kind.to_string()).is_none(),
                "TYPE twice: {at}"
            );
        } else {
            assert!(!line.starts_with('#') && !line.is_empty(), "{at}");
            let sample = parse_sample(line).unwrap_or_else(|| panic!("bad sample {at}"));
            let family =
                family_of(&sample.name, &types).unwrap_or_else(|| panic!("no TYPE before {at}"));
            if types[&family] == "counter" {
                assert!(sample.value >= 0.0, "a counter is never negative: {at}");
            }
            samples.push(sample);
        }
    }
    check_histograms(&samples, &types);
    samples
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

fn parse_sample(line: &str) -> Option<Sample> {
    let name_end = line.find(['{', ' '])?;
    let name = &line[..name_end];
    if !valid_name(name) {
        return None;
    }
    let bytes = line.as_bytes();
    let mut i = name_end;
    let mut labels = BTreeMap::new();
    if bytes[i] == b'{' {
        i += 1;
        loop {
            if *bytes.get(i)? == b'}' {
                i += 1;
                break;
            }
            let eq = i + line[i..].find('=')?;
            let key = &line[i..eq];
            if !valid_name(key) || key.contains(':') || *bytes.get(eq + 1)? != b'"' {
                return None;
            }
            i = eq + 2;
            let mut value = String::new();
            loop {
                let c = line[i..].chars().next()?;
                i += c.len_utf8();
                match c {
                    '\\' => {
                        let e = line[i..].chars().next()?;
                        i += e.len_utf8();
                        value.push(match e {
                            '\\' => '\\',
                            '"' => '"',
                            'n' => '\n',
                            _ => return None,
                        });
                    }
                    '"' => break,
                    c => value.push(c),
                }
            }
            if labels.insert(key.to_string(), value).is_some() {
                return None;
            }
            match bytes.get(i)? {
                b',' => i += 1,
                b'}' => {}
                _ => return None,
            }
        }
    }
    let value_text = line[i..].strip_prefix(' ')?;
    let value = match value_text {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        "NaN" => f64::NAN,
        v => v.parse().ok()?,
    };
    Some(Sample {
        name: name.to_string(),
        labels,
        value,
    })
}

fn family_of(name: &str, types: &BTreeMap<String, String>) -> Option<String> {
    if types.contains_key(name) {
        return Some(name.to_string());
    }
    for suffix in ["_bucket", "_sum", "_count"] {
        if let Some(base) = name.strip_suffix(suffix) {
            if types
                .get(base)
                .is_some_and(|t| t == "histogram" || t == "summary")
            {
                return Some(base.to_string());
            }
        }
    }
    None
}

/// A series' labels without `le`, sorted.
type Labels = Vec<(String, String)>;

/// Buckets rise in `le` and never fall in count; `+Inf` equals `_count`.
fn check_histograms(samples: &[Sample], types: &BTreeMap<String, String>) {
    for (family, _) in types.iter().filter(|(_, t)| *t == "histogram") {
        let mut series: BTreeMap<Labels, Vec<(f64, f64)>> = BTreeMap::new();
        for s in samples
            .iter()
            .filter(|s| s.name == format!("{family}_bucket"))
        {
            let le: f64 = match s.labels.get("le").expect("a bucket has le").as_str() {
                "+Inf" => f64::INFINITY,
                v => v.parse().expect("le is a number"),
            };
            let mut key: Vec<_> = s
                .labels
                .clone()
                .into_iter()
                .filter(|(k, _)| k != "le")
                .collect();
            key.sort();
            series.entry(key).or_default().push((le, s.value));
        }
        assert!(!series.is_empty(), "{family} has buckets");
        for (labels, buckets) in series {
            for pair in buckets.windows(2) {
                assert!(pair[0].0 < pair[1].0, "{family}{labels:?}: le rises");
                assert!(
                    pair[0].1 <= pair[1].1,
                    "{family}{labels:?}: counts are cumulative"
                );
            }
            let last = buckets.last().expect("buckets");
            assert!(last.0.is_infinite(), "{family}{labels:?} ends with +Inf");
            let count = samples
                .iter()
                .find(|s| {
                    s.name == format!("{family}_count")
                        && labels.iter().all(|(k, v)| s.labels.get(k) == Some(v))
                })
                .expect("a _count per series");
            assert_eq!(
                count.value, last.1,
                "{family}{labels:?}: +Inf equals _count"
            );
            assert!(samples.iter().any(|s| s.name == format!("{family}_sum")
                && labels.iter().all(|(k, v)| s.labels.get(k) == Some(v))));
        }
    }
}

fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> f64 {
    samples
        .iter()
        .find(|s| {
            s.name == name
                && s.labels.len() == labels.len()
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .unwrap_or_else(|| panic!("no sample {name}{labels:?}"))
        .value
}

fn scrape(f: &Fixture, path: &str) -> Vec<Sample> {
    let r = f.get(path);
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    r.assert_security_headers(path);
    parse_exposition(&r.body)
}

#[test]
fn metrics_parse_as_prometheus_text_and_counters_move_with_traffic() {
    let f = Fixture::start();
    let before = scrape(&f, "/metrics");
    let table = f
        .conn
        .table(&TableName::parse(TABLE).expect("name"))
        .expect("table");
    for i in 0..7 {
        table
            .put(&Put::new(format!("k{i}")).add("f", "q", "v"))
            .expect("put");
    }
    for i in 0..5 {
        table.get(&Get::new(format!("k{i}"))).expect("get");
    }
    let after = scrape(&f, "/prometheus");
    let moved = |name: &str, labels: &[(&str, &str)]| {
        value(&after, name, labels) - value(&before, name, labels)
    };
    assert_eq!(moved("basalt_requests_total", &[("op", "put")]), 7.0);
    assert_eq!(moved("basalt_requests_total", &[("op", "get")]), 5.0);
    assert_eq!(
        moved("basalt_request_duration_seconds_count", &[("op", "get")]),
        5.0
    );
    assert_eq!(
        moved(
            "basalt_request_duration_seconds_bucket",
            &[("op", "put"), ("le", "+Inf")]
        ),
        7.0
    );
    assert!(moved("basalt_request_duration_seconds_sum", &[("op", "put")]) > 0.0);
    assert_eq!(moved("basalt_write_requests_total", &[]), 7.0);
    assert_eq!(moved("basalt_read_requests_total", &[]), 5.0);
    assert!(
        moved("basalt_wal_syncs_total", &[]) >= 1.0,
        "synced puts sync the log"
    );
    assert!(moved("basalt_memstore_size_bytes", &[]) > 0.0);
    assert_eq!(value(&after, "basalt_regions", &[]), 5.0);
    assert_eq!(
        value(&after, "basalt_table_regions", &[("table", TABLE)]),
        4.0
    );
    assert_eq!(
        value(&after, "basalt_table_regions", &[("table", "hbase:meta")]),
        1.0
    );
    for gauge in [
        "basalt_block_cache_capacity_bytes",
        "basalt_compaction_queue_length",
        "basalt_flushes_running",
    ] {
        value(&after, gauge, &[]);
    }
}

#[test]
fn the_exposition_parser_rejects_what_is_not_prometheus_text() {
    for bad in [
        "x 1\n",                        // no TYPE
        "# TYPE x counter\nx{a=1} 1\n", // unquoted label
        "# TYPE x counter\nx one\n",    // not a number
        "# TYPE x counter\n9x 1\n",     // bad name
        "# TYPE x counter\nx -1\n",     // negative counter
        "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\nh_sum 1\n",
    ] {
        let text = bad.to_string();
        let failed = std::panic::catch_unwind(move || parse_exposition(&text)).is_err();
        assert!(failed, "accepted: {bad:?}");
    }
    let good = "# HELP x An x.\n# TYPE x counter\nx{a=\"q\\\"\\\\\\n\",b=\"\"} 2\n";
    let samples = parse_exposition(good);
    assert_eq!(samples[0].labels["a"], "q\"\\\n");
    assert_eq!(samples[0].labels["b"], "");
}

#[test]
fn jmx_is_json_with_hbase_names() {
    let f = Fixture::start();
    let table = f
        .conn
        .table(&TableName::parse(TABLE).expect("name"))
        .expect("table");
    for i in 0..3 {
        table.get(&Get::new(format!("k{i}"))).expect("get");
    }
    let r = f.get("/jmx");
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    r.assert_security_headers("/jmx");
    let json: serde_json::Value = serde_json::from_str(&r.body).expect("valid JSON");
    let beans = json["beans"].as_array().expect("beans");
    let server = beans
        .iter()
        .find(|b| b["name"] == "Hadoop:service=HBase,name=RegionServer,sub=Server")
        .expect("the region server bean");
    assert_eq!(server["regionCount"], 5);
    assert_eq!(server["Get_num_ops"], 3);
    for name in [
        "storeFileCount",
        "storeFileSize",
        "memStoreSize",
        "totalRequestCount",
        "readRequestCount",
        "writeRequestCount",
        "blockCacheHitCount",
        "blockCacheMissCount",
        "compactionQueueLength",
        "flushQueueLength",
        "Get_min",
        "Get_max",
        "Get_mean",
        "Get_median",
        "Get_75th_percentile",
        "Get_95th_percentile",
        "Get_99th_percentile",
        "Put_num_ops",
    ] {
        assert!(server[name].is_number(), "{name} is a number");
    }
    assert!(server["Get_max"].as_f64() >= server["Get_min"].as_f64());
    assert_eq!(server["Put_num_ops"], 2, "the fixture's two puts");
    // Region write counts include hbase:meta's, written when the table was created.
    assert!(server["writeRequestCount"].as_u64() >= Some(2));
    let r = f.get("/jmx?qry=Hadoop%3Aservice%3DHBase%2Cname%3DMaster%2Csub%3DServer");
    let json: serde_json::Value = serde_json::from_str(&r.body).expect("valid JSON");
    let beans = json["beans"].as_array().expect("beans");
    assert_eq!(beans.len(), 1);
    assert_eq!(beans[0]["numRegionServers"], 1);
}
