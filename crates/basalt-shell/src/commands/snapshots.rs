//! What the snapshot commands share: the `SNAPSHOT | TABLE + CREATION TIME` table HBase
//! prints, with the creation time as Ruby's `Time#to_s` in this machine's zone
//! (`2024-10-15 14:13:25 +0800`), and the snapshot lists they select.

use crate::command::{CmdError, Ctx};
use crate::parse::Value;
use basalt_api::SnapshotDescription;

/// Ruby's `Time.at(ms / 1000).to_s`: local date, time and UTC offset.
pub fn creation_time(ms: i64) -> String {
    use chrono::TimeZone;
    match chrono::Local.timestamp_opt(ms.div_euclid(1000), 0).single() {
        Some(t) => t.format("%Y-%m-%d %H:%M:%S %z").to_string(),
        None => ms.to_string(),
    }
}

/// The header and one row per snapshot; `ttl` adds `list_snapshots`' TTL column
/// (`FOREVER`, or the seconds).
pub fn table_lines(ctx: &Ctx, list: &[SnapshotDescription], ttl: bool) -> Vec<String> {
    let console = ctx.console();
    let title = match ttl {
        true => "TABLE + CREATION TIME + TTL(Sec)",
        false => "TABLE + CREATION TIME",
    };
    let mut lines = console.header("SNAPSHOT", title);
    for s in list {
        let mut text = format!("{} ({})", s.table, creation_time(s.creation_time_ms));
        if ttl {
            match s.ttl_secs {
                Some(secs) => text.push_str(&format!(" {secs}")),
                None => text.push_str(" FOREVER"),
            }
        }
        lines.extend(console.row(&s.name, &text));
    }
    lines
}

/// The names, as the commands return them (`=> ["s1", "s2"]`).
pub fn names_value(list: &[SnapshotDescription]) -> Value {
    Value::Array(
        list.iter()
            .map(|s| Value::Str(s.name.clone().into_bytes()))
            .collect(),
    )
}

/// Snapshots whose name matches `snapshot_regex` and whose table matches `table_regex`
/// (both whole, as Java's `Pattern.matches`).
pub fn of_tables(
    ctx: &Ctx,
    table_regex: &str,
    snapshot_regex: &str,
) -> Result<Vec<SnapshotDescription>, CmdError> {
    let table = regex::Regex::new(&format!("^(?:{table_regex})$"))
        .map_err(|e| CmdError::new(format!("bad regex '{table_regex}': {e}")))?;
    Ok(ctx
        .admin()
        .list_snapshots(Some(snapshot_regex))?
        .into_iter()
        .filter(|s| table.is_match(&s.table.to_string()))
        .collect())
}

/// Asks to delete `list`, deletes on yes, and says how it went (as HBase's
/// `delete_all_snapshot` and `delete_table_snapshots` do). `none` is what to print when
/// nothing matched.
pub fn delete_confirmed(
    ctx: &mut Ctx,
    list: Vec<SnapshotDescription>,
    none: String,
) -> Result<crate::output::Outcome, CmdError> {
    let mut out = crate::output::Outcome::new();
    out.lines = table_lines(ctx, &list, false);
    if list.is_empty() {
        out.lines.push(none);
        return Ok(out);
    }
    let question = format!("\nDelete the above {} snapshots (y/n)?", list.len());
    out.lines.push(question.clone());
    let answer = (ctx.confirm)(&question);
    out.lines.extend(answer.echo);
    if !answer.yes {
        return Ok(out);
    }
    let admin = ctx.admin();
    let failed: Vec<SnapshotDescription> = list
        .iter()
        .filter(|s| admin.delete_snapshot(&s.name).is_err())
        .cloned()
        .collect();
    let deleted = list.len() - failed.len();
    if deleted > 0 {
        out.lines
            .push(format!("{deleted} snapshots successfully deleted."));
    }
    if !failed.is_empty() {
        out.lines.push(format!(
            "\nFailed to delete the below {} snapshots.",
            failed.len()
        ));
        out.lines.extend(table_lines(ctx, &failed, false));
    }
    Ok(out)
}
