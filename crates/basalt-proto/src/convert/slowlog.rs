//! Slow log records and queries (`GetSlowLogResponses`), field for field; absent filters
//! travel as absent optionals, a limit of 0 as the shell's default.

use crate::pb;
use basalt_api::{SlowLogQuery, SlowLogRecord};

impl From<SlowLogRecord> for pb::SlowLogRecord {
    fn from(r: SlowLogRecord) -> Self {
        pb::SlowLogRecord {
            start_time_ms: r.start_time_ms,
            processing_time_ms: r.processing_time_ms,
            queue_time_ms: r.queue_time_ms,
            response_size: r.response_size,
            method_name: r.method_name,
            call_details: r.call_details,
            param: r.param,
            region_name: r.region_name,
            table_name: r.table_name,
            client_address: r.client_address,
            user_name: r.user_name,
            server_name: r.server_name,
            server_class: r.server_class,
        }
    }
}

impl From<pb::SlowLogRecord> for SlowLogRecord {
    fn from(r: pb::SlowLogRecord) -> Self {
        SlowLogRecord {
            start_time_ms: r.start_time_ms,
            processing_time_ms: r.processing_time_ms,
            queue_time_ms: r.queue_time_ms,
            response_size: r.response_size,
            method_name: r.method_name,
            call_details: r.call_details,
            param: r.param,
            region_name: r.region_name,
            table_name: r.table_name,
            client_address: r.client_address,
            user_name: r.user_name,
            server_name: r.server_name,
            server_class: r.server_class,
        }
    }
}

/// The request asking `servers` for what `query` selects.
pub fn request(servers: &[String], query: &SlowLogQuery) -> pb::SlowLogRequest {
    pb::SlowLogRequest {
        servers: servers.to_vec(),
        region_name: query.region_name.clone(),
        table_name: query.table_name.clone(),
        client_address: query.client_address.clone(),
        user_name: query.user_name.clone(),
        and: query.and,
        limit: u32::try_from(query.limit).unwrap_or(u32::MAX),
    }
}

/// The servers and query of a request.
pub fn query(r: pb::SlowLogRequest) -> (Vec<String>, SlowLogQuery) {
    let limit = match r.limit {
        0 => basalt_api::slowlog::LIMIT_DEFAULT,
        n => n as usize,
    };
    let query = SlowLogQuery {
        region_name: r.region_name,
        table_name: r.table_name,
        client_address: r.client_address,
        user_name: r.user_name,
        and: r.and,
        limit,
    };
    (r.servers, query)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_and_a_record_survive_the_wire() {
        let q = SlowLogQuery {
            table_name: Some("t1".into()),
            user_name: Some("bob".into()),
            and: true,
            limit: 3,
            ..SlowLogQuery::default()
        };
        let servers = vec!["h,1,2".to_string()];
        assert_eq!(query(request(&servers, &q)), (servers, q));
        let r = SlowLogRecord {
            start_time_ms: 5,
            method_name: "Get".into(),
            server_name: "h,1,2".into(),
            ..SlowLogRecord::default()
        };
        assert_eq!(SlowLogRecord::from(pb::SlowLogRecord::from(r.clone())), r);
    }
}
