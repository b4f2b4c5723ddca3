//! `restore_snapshot 's'` and, beyond HBase, `restore_snapshot 's', {TIMESTAMP => ms}`
//!
//! Rolls the snapshot's table back to it (rows and schema). The table must be disabled
//! first and stays disabled. With `TIMESTAMP` (epoch milliseconds, or an RFC 3339 time
//! such as `'2026-11-27T04:30:00Z'`), the table is then rolled forward with the edits its
//! logs kept (`WAL_RETENTION_SECS`) that were logged at or before that time. Prints
//! nothing. HBase's `RESTORE_ACL` is accepted and changes nothing (no ACLs here).

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;

pub static COMMAND: Command = Command {
    name: "restore_snapshot",
    group: Group::Snapshots,
    help: HELP,
    run,
};

const HELP: &str = "Restore a snapshot: its table gets back the rows and schema it had when the
snapshot was taken. Disable the table first; enable it afterwards.
With TIMESTAMP (epoch milliseconds or an RFC 3339 time), the table is then rolled
forward to that time with the edits its logs kept: the table must have been created or
altered with WAL_RETENTION_SECS before the snapshot was taken.
Examples:

  hbase> disable 'tableName'
  hbase> restore_snapshot 'snapshotName'
  hbase> restore_snapshot 'snapshotName', {TIMESTAMP => 1764217800000}
  hbase> restore_snapshot 'snapshotName', {TIMESTAMP => '2026-11-27T04:30:00Z'}
  hbase> enable 'tableName'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 1, 2)?;
    let name = args::text(&a[0], "snapshot name")?;
    let mut to_ms = None;
    if let Some(v) = a.get(1) {
        let pairs =
            args::hash(v).ok_or_else(|| CmdError::new("Arguments should be a Hash".to_string()))?;
        for key in args::keys(pairs) {
            let value = args::get(pairs, &key).unwrap_or(&Value::Nil);
            match key.as_str() {
                "TIMESTAMP" => to_ms = Some(time_ms(value)?),
                "RESTORE_ACL" => {}
                other => {
                    return Err(CmdError::new(format!(
                        "restore_snapshot: unknown option {other} (TIMESTAMP, RESTORE_ACL)"
                    )))
                }
            }
        }
    }
    match to_ms {
        Some(to_ms) => ctx.admin().restore_snapshot_to(&name, to_ms)?,
        None => ctx.admin().restore_snapshot(&name)?,
    }
    Ok(Outcome::new())
}

fn time_ms(v: &Value) -> Result<i64, CmdError> {
    if let Ok(ms) = args::int(v, "TIMESTAMP") {
        return Ok(ms);
    }
    let text = args::text(v, "TIMESTAMP")?;
    parse_time_ms(&text).map_err(CmdError::new)
}

/// A point in time as `basalt restore --to-time` and `TIMESTAMP =>` take it: epoch
/// milliseconds, or an RFC 3339 time (`2026-11-27T04:30:00Z`, `...+01:00`, fractions of
/// a second allowed).
pub fn parse_time_ms(text: &str) -> Result<i64, String> {
    let text = text.trim();
    if let Ok(ms) = text.parse::<i64>() {
        return Ok(ms);
    }
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|t| t.timestamp_millis())
        .map_err(|e| {
            format!(
                "'{text}' is not a time: give epoch milliseconds or an RFC 3339 time such as \
                 2026-11-27T04:30:00Z ({e})"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::parse_time_ms;

    #[test]
    fn times_read_as_epoch_milliseconds_or_rfc3339() {
        assert_eq!(parse_time_ms("1764217800000"), Ok(1_764_217_800_000));
        assert_eq!(parse_time_ms("1970-01-01T00:00:01.5Z"), Ok(1500));
        assert_eq!(parse_time_ms("1970-01-01T01:00:00+01:00"), Ok(0));
        let bad = parse_time_ms("yesterday").expect_err("not a time");
        assert!(bad.contains("'yesterday' is not a time"), "{bad}");
    }
}
