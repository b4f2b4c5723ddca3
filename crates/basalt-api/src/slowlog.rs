//! The slow log: calls a region server took longer than its threshold to answer, kept in
//! a ring buffer on each server (HBase's online slow log, `get_slowlog_responses`).
//!
//! A [`SlowLogQuery`] selects records as HBase's shell does: each filter given (region,
//! table, client, user) is a test; a record passes when any test holds (`OR`, the default)
//! or every one does (`AND`); with no filter every record passes. Then the newest `limit`.
//!
//! | filters | record (table t1, client 10.0.0.1:5000, user bob) | OR | AND |
//! |---|---|---|---|
//! | none | | yes | yes |
//! | TABLE_NAME t1 | | yes | yes |
//! | TABLE_NAME t1, USER alice | | yes | no |
//! | CLIENT_IP 10.0.0.1 (no port) | | yes | yes |
//! | CLIENT_IP 10.0.0.1:6000 | | no | no |

/// One slow call, with the fields of HBase's `SlowLogPayload`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SlowLogRecord {
    /// When the call began, in ms since the epoch.
    pub start_time_ms: i64,
    /// How long it ran, in ms.
    pub processing_time_ms: u64,
    /// How long it waited before running (for a blocking thread), in ms.
    pub queue_time_ms: u64,
    /// The answer's size in bytes (encoded), when known.
    pub response_size: u64,
    /// The call: `Get`, `Mutate`, `Multi`, `Scan`, ...
    pub method_name: String,
    /// The call's type and request, as HBase names them: `Get(GetRequest)`.
    pub call_details: String,
    /// What was asked, in short: rows, counts, the operation.
    pub param: String,
    /// The region (its name as the client gave it, or located from the row); empty when
    /// the call spans regions.
    pub region_name: String,
    pub table_name: String,
    /// `ip:port` of the client.
    pub client_address: String,
    /// The user the client says it runs as (no authentication yet).
    pub user_name: String,
    /// The server that answered, `host,port,startcode` (filled in by the master).
    pub server_name: String,
    /// The server's kind, as HBase names it.
    pub server_class: String,
}

/// Which records `get_slowlog_responses` answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlowLogQuery {
    pub region_name: Option<String>,
    pub table_name: Option<String>,
    /// `ip` or `ip:port`.
    pub client_address: Option<String>,
    pub user_name: Option<String>,
    /// Every filter given must hold, instead of any.
    pub and: bool,
    /// The newest this many (HBase's shell: 10).
    pub limit: usize,
}

/// The shell's LIMIT when none is given.
pub const LIMIT_DEFAULT: usize = 10;

impl Default for SlowLogQuery {
    fn default() -> Self {
        Self {
            region_name: None,
            table_name: None,
            client_address: None,
            user_name: None,
            and: false,
            limit: LIMIT_DEFAULT,
        }
    }
}

impl SlowLogQuery {
    /// Whether `record` passes the filters (see the module's table).
    pub fn matches(&self, record: &SlowLogRecord) -> bool {
        let tests = [
            self.region_name.as_ref().map(|r| {
                record.region_name == *r
                    || record
                        .region_name
                        .trim_end_matches('.')
                        .rsplit('.')
                        .next()
                        .is_some_and(|encoded| encoded == r)
            }),
            self.table_name.as_ref().map(|t| {
                record.table_name == *t || record.region_name.starts_with(&format!("{t},"))
            }),
            self.client_address.as_ref().map(|c| {
                record.client_address == *c
                    || record
                        .client_address
                        .rsplit_once(':')
                        .is_some_and(|(ip, _)| ip == c || ip.trim_matches(['[', ']']) == c)
            }),
            self.user_name.as_ref().map(|u| record.user_name == *u),
        ];
        let mut given = tests.iter().flatten().peekable();
        if given.peek().is_none() {
            return true;
        }
        match self.and {
            true => given.all(|held| *held),
            false => given.any(|held| *held),
        }
    }

    /// The records that pass, newest first, at most `limit`.
    pub fn select(&self, records: impl IntoIterator<Item = SlowLogRecord>) -> Vec<SlowLogRecord> {
        let mut out: Vec<SlowLogRecord> = records.into_iter().filter(|r| self.matches(r)).collect();
        out.sort_by_key(|r| std::cmp::Reverse(r.start_time_ms));
        out.truncate(self.limit);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> SlowLogRecord {
        SlowLogRecord {
            table_name: "t1".into(),
            region_name: "t1,,1700000000000.0123abcd.".into(),
            client_address: "10.0.0.1:5000".into(),
            user_name: "bob".into(),
            ..SlowLogRecord::default()
        }
    }

    fn query(edit: impl FnOnce(&mut SlowLogQuery)) -> SlowLogQuery {
        let mut q = SlowLogQuery::default();
        edit(&mut q);
        q
    }

    #[test]
    fn filters_follow_the_table_in_the_module_doc() {
        let r = record();
        assert!(query(|_| {}).matches(&r));
        assert!(query(|q| q.table_name = Some("t1".into())).matches(&r));
        let mixed = |and| {
            query(|q| {
                q.table_name = Some("t1".into());
                q.user_name = Some("alice".into());
                q.and = and;
            })
        };
        assert!(mixed(false).matches(&r));
        assert!(!mixed(true).matches(&r));
        assert!(query(|q| q.client_address = Some("10.0.0.1".into())).matches(&r));
        assert!(query(|q| q.client_address = Some("10.0.0.1:5000".into())).matches(&r));
        assert!(!query(|q| q.client_address = Some("10.0.0.1:6000".into())).matches(&r));
        assert!(query(|q| q.region_name = Some("0123abcd".into())).matches(&r));
        assert!(query(|q| q.region_name = Some(r.region_name.clone())).matches(&r));
        assert!(!query(|q| q.region_name = Some("other".into())).matches(&r));
        assert!(!query(|q| q.table_name = Some("t".into())).matches(&r));
    }

    #[test]
    fn selection_is_the_newest_first_up_to_the_limit() {
        let records = (0..5).map(|i| SlowLogRecord {
            start_time_ms: i,
            ..record()
        });
        let picked = query(|q| q.limit = 2).select(records);
        let times: Vec<i64> = picked.iter().map(|r| r.start_time_ms).collect();
        assert_eq!(times, [4, 3]);
    }
}
