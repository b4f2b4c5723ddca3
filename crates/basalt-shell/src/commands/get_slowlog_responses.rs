//! `get_slowlog_responses SERVERS [, {FILTERS}]`
//!
//! The region servers' slow logs: data calls slower than their threshold, newest first, as
//! a JSON array after `Retrieved SlowLog Responses from RegionServers`. SERVERS is `'*'`
//! (every live server), one server name or a list; FILTERS hold `REGION_NAME`,
//! `TABLE_NAME`, `CLIENT_IP` (`ip` or `ip:port`), `USER`, `LIMIT` (10 when not given) and
//! `FILTER_BY_OP` (`OR`, the default: a record passes one filter; `AND`: every one). The
//! servers keep a slow log only with `slowlog_enabled` (`[server]` of `basalt.toml`).

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_api::{SlowLogQuery, SlowLogRecord};

pub static COMMAND: Command = Command {
    name: "get_slowlog_responses",
    group: Group::Tools,
    help: HELP,
    run,
};

const HELP: &str = "Retrieve the latest slow responses kept by region servers (their slow
log, on when slowlog_enabled is set). Give '*' for every region server, or server names.
Filters: REGION_NAME, TABLE_NAME, CLIENT_IP, USER; LIMIT (default 10); FILTER_BY_OP 'OR'
(default: any filter holds) or 'AND' (every filter holds).
Examples:
  hbase> get_slowlog_responses '*'
  hbase> get_slowlog_responses 'host1.example.com,16020,1700000000000'
  hbase> get_slowlog_responses '*', {'REGION_NAME' => 'hbase:meta,,1'}
  hbase> get_slowlog_responses '*', {'TABLE_NAME' => 't1', 'LIMIT' => 2}
  hbase> get_slowlog_responses '*', {'CLIENT_IP' => '192.168.1.40:60225', 'LIMIT' => 100}
  hbase> get_slowlog_responses '*', {'TABLE_NAME' => 't1', 'USER' => 'user_name', 'FILTER_BY_OP' => 'AND'}
";

const KEYS: [&str; 6] = [
    "REGION_NAME",
    "TABLE_NAME",
    "CLIENT_IP",
    "USER",
    "LIMIT",
    "FILTER_BY_OP",
];

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 0, 2)?;
    let servers = match a.first() {
        Some(v) => args::list(v)
            .iter()
            .map(|v| args::text(v, "server name"))
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
    };
    let query = match a.get(1) {
        Some(v) => filters(v)?,
        None => SlowLogQuery::default(),
    };
    let records = ctx.admin().get_slowlog_responses(&servers, &query)?;
    Ok(Outcome::new()
        .line("Retrieved SlowLog Responses from RegionServers")
        .line(json(&records)))
}

/// The query a filter hash asks for.
pub fn filters(v: &Value) -> Result<SlowLogQuery, CmdError> {
    let pairs = args::hash(v)
        .ok_or_else(|| CmdError::new(format!("filters must be a hash, got {}", v.inspect())))?;
    if let Some(unknown) = args::keys(pairs)
        .into_iter()
        .find(|k| !KEYS.contains(&k.as_str()))
    {
        return Err(CmdError::new(format!(
            "unknown filter {unknown}; expected one of {}",
            KEYS.join(", ")
        )));
    }
    let text = |key: &str| -> Result<Option<String>, CmdError> {
        args::get(pairs, key)
            .map(|v| args::text(v, key))
            .transpose()
    };
    let mut query = SlowLogQuery {
        region_name: text("REGION_NAME")?,
        table_name: text("TABLE_NAME")?,
        client_address: text("CLIENT_IP")?,
        user_name: text("USER")?,
        ..SlowLogQuery::default()
    };
    if let Some(limit) = args::get(pairs, "LIMIT") {
        let limit = args::int(limit, "LIMIT")?;
        query.limit = usize::try_from(limit)
            .ok()
            .filter(|l| *l > 0)
            .ok_or_else(|| CmdError::new(format!("LIMIT must be positive, got {limit}")))?;
    }
    query.and = match text("FILTER_BY_OP")?.map(|op| op.to_ascii_uppercase()) {
        None => false,
        Some(op) if op == "OR" => false,
        Some(op) if op == "AND" => true,
        Some(op) => {
            return Err(CmdError::new(format!(
                "FILTER_BY_OP must be 'OR' or 'AND', got '{op}'"
            )))
        }
    };
    Ok(query)
}

/// The records as HBase's shell prints them: a JSON array, one object per record.
pub fn json(records: &[SlowLogRecord]) -> String {
    if records.is_empty() {
        return "[]".to_string();
    }
    let objects: Vec<String> = records.iter().map(object).collect();
    format!("[\n{}\n]", objects.join(",\n"))
}

fn object(r: &SlowLogRecord) -> String {
    let numbers = [
        ("start_time", r.start_time_ms.to_string()),
        ("processing_time", r.processing_time_ms.to_string()),
        ("queue_time", r.queue_time_ms.to_string()),
        ("response_size", r.response_size.to_string()),
    ];
    let texts = [
        ("client_address", &r.client_address),
        ("server_class", &r.server_class),
        ("method_name", &r.method_name),
        ("call_details", &r.call_details),
        ("param", &r.param),
        ("region_name", &r.region_name),
        ("user_name", &r.user_name),
        ("server_name", &r.server_name),
    ];
    let fields: Vec<String> = numbers
        .iter()
        .map(|(k, v)| format!("    \"{k}\": {v}"))
        .chain(
            texts
                .iter()
                .map(|(k, v)| format!("    \"{k}\": {}", quote(v))),
        )
        .collect();
    format!("  {{\n{}\n  }}", fields.join(",\n"))
}

/// A JSON string.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_print_as_a_json_array() {
        assert_eq!(json(&[]), "[]");
        let record = SlowLogRecord {
            start_time_ms: 1,
            processing_time_ms: 2,
            method_name: "Get".into(),
            param: "get row=a\"b\\x00".into(),
            ..SlowLogRecord::default()
        };
        let text = json(&[record]);
        assert!(
            text.starts_with("[\n  {\n    \"start_time\": 1,\n"),
            "{text}"
        );
        assert!(
            text.contains("\"param\": \"get row=a\\\"b\\\\x00\""),
            "{text}"
        );
        assert!(text.ends_with("\n  }\n]"), "{text}");
    }
}
