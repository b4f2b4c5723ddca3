//! The online slow log: data calls (get, mutate, multi, scan, ...) that ran longer than
//! `slowlog_threshold_ms` (HBase's `hbase.ipc.warn.response.time`), kept in a ring buffer
//! of `slowlog_ring_buffer_size` records (`hbase.regionserver.slowlog.ringbuffer.size`)
//! when `slowlog_enabled` (`hbase.regionserver.slowlog.buffer.enabled`). The oldest record
//! makes room for a new one. Each slow call is also logged (`responseTooSlow`).
//!
//! A call is described before it runs ([`Call`]: a few small copies, only while the log
//! is on) and turned into a record only when it was slow.
//!
//! Queue time: calls past `calls_max` are refused, not queued, so it is the wait for a
//! blocking thread only, and reported as 0.

use crate::config::ServerConfig;
use basalt_api::{SlowLogQuery, SlowLogRecord};
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// The `param` summary is cut past this many bytes.
const PARAM_MAX_BYTES: usize = 512;

pub struct SlowLog {
    enabled: bool,
    threshold: Duration,
    capacity: usize,
    records: Mutex<VecDeque<SlowLogRecord>>,
}

/// One data call, as the slow log would record it.
#[derive(Debug, Clone)]
pub struct Call {
    pub started: Instant,
    pub start_time_ms: i64,
    /// `Get`, `Mutate`, `Multi`, `Scan`.
    pub method: &'static str,
    /// The request's type, for `call_details`.
    pub request: &'static str,
    pub table: String,
    /// The region the client named; empty when it named none.
    pub region: String,
    /// A row of the call, to locate its region when the client named none.
    pub row: Option<bytes::Bytes>,
    pub param: String,
    pub client: Option<SocketAddr>,
    pub user: String,
}

impl SlowLog {
    pub fn new(config: &ServerConfig) -> Self {
        Self {
            enabled: config.slowlog_enabled && config.slowlog_ring_buffer_size > 0,
            threshold: Duration::from_millis(config.slowlog_threshold_ms),
            capacity: config.slowlog_ring_buffer_size,
            records: Mutex::new(VecDeque::new()),
        }
    }

    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Whether a call that took `took` is slow.
    pub fn is_slow(&self, took: Duration) -> bool {
        self.enabled && took > self.threshold
    }

    /// Records `record`, dropping the oldest past the capacity.
    pub fn push(&self, record: SlowLogRecord) {
        tracing::warn!(
            method = %record.method_name,
            processing_time_ms = record.processing_time_ms,
            client = %record.client_address,
            region = %record.region_name,
            param = %record.param,
            "(responseTooSlow)"
        );
        let mut records = self.records.lock();
        while records.len() >= self.capacity {
            records.pop_front();
        }
        records.push_back(record);
    }

    /// The records `query` selects, newest first.
    pub fn select(&self, query: &SlowLogQuery) -> Vec<SlowLogRecord> {
        let records: Vec<SlowLogRecord> = self.records.lock().iter().cloned().collect();
        query.select(records)
    }

    /// Empties the log; answers how many records it held.
    pub fn clear(&self) -> usize {
        let mut records = self.records.lock();
        let held = records.len();
        records.clear();
        held
    }
}

impl Call {
    /// The record of this call, which took `took` and answered `response_size` bytes in
    /// `region` (the client's, or the one located).
    pub fn record(self, took: Duration, response_size: u64, region: String) -> SlowLogRecord {
        let mut param = self.param;
        if param.len() > PARAM_MAX_BYTES {
            let mut cut = PARAM_MAX_BYTES;
            while !param.is_char_boundary(cut) {
                cut -= 1;
            }
            param.truncate(cut);
            param.push_str("<TRUNCATED>");
        }
        SlowLogRecord {
            start_time_ms: self.start_time_ms,
            processing_time_ms: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
            queue_time_ms: 0,
            response_size,
            method_name: self.method.to_string(),
            call_details: format!("{}({})", self.method, self.request),
            param,
            region_name: region,
            table_name: self.table,
            client_address: self.client.map(|a| a.to_string()).unwrap_or_default(),
            user_name: self.user,
            server_name: String::new(),
            server_class: "HRegionServer".to_string(),
        }
    }
}

/// Milliseconds since the epoch now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// The user a client says it runs as: `user=NAME` in its `user-agent` (Basalt's client
/// sends it; there is no authentication yet, as HBase's SIMPLE).
pub fn user_of(user_agent: Option<&str>) -> String {
    user_agent
        .into_iter()
        .flat_map(str::split_whitespace)
        .find_map(|word| word.strip_prefix("user="))
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(size: usize, threshold_ms: u64) -> SlowLog {
        SlowLog::new(&ServerConfig {
            slowlog_enabled: true,
            slowlog_ring_buffer_size: size,
            slowlog_threshold_ms: threshold_ms,
            ..ServerConfig::default()
        })
    }

    fn call(param: &str) -> Call {
        Call {
            started: Instant::now(),
            start_time_ms: 7,
            method: "Get",
            request: "GetRequest",
            table: "t".into(),
            region: String::new(),
            row: None,
            param: param.into(),
            client: "10.0.0.1:5000".parse().ok(),
            user: "bob".into(),
        }
    }

    #[test]
    fn the_ring_keeps_the_newest_records() {
        let log = log(2, 0);
        for i in 0..3 {
            let mut record = call("p").record(Duration::from_millis(5), 10, "r".into());
            record.start_time_ms = i;
            log.push(record);
        }
        let kept: Vec<i64> = log
            .select(&SlowLogQuery::default())
            .iter()
            .map(|r| r.start_time_ms)
            .collect();
        assert_eq!(kept, [2, 1]);
        assert_eq!(log.clear(), 2);
        assert!(log.select(&SlowLogQuery::default()).is_empty());
    }

    #[test]
    fn only_calls_past_the_threshold_are_slow_and_only_when_enabled() {
        let log = log(4, 10);
        assert!(!log.is_slow(Duration::from_millis(10)));
        assert!(log.is_slow(Duration::from_millis(11)));
        let off = SlowLog::new(&ServerConfig::default());
        assert!(!off.is_slow(Duration::from_secs(3600)));
    }

    #[test]
    fn a_record_holds_the_call_and_cuts_a_long_param() {
        let record = call(&"x".repeat(600)).record(Duration::from_millis(12), 99, "r1".into());
        assert_eq!(record.call_details, "Get(GetRequest)");
        assert_eq!(record.processing_time_ms, 12);
        assert_eq!(record.client_address, "10.0.0.1:5000");
        assert_eq!(record.region_name, "r1");
        assert!(record.param.ends_with("<TRUNCATED>"));
        assert_eq!(record.param.len(), PARAM_MAX_BYTES + "<TRUNCATED>".len());
    }

    #[test]
    fn the_user_comes_from_the_user_agent() {
        assert_eq!(user_of(Some("basalt/0.1 user=alice tonic/0.12")), "alice");
        assert_eq!(user_of(Some("grpc-go/1.0")), "");
        assert_eq!(user_of(None), "");
    }
}
