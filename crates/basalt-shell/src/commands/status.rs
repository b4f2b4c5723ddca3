//! `status ['summary' | 'simple' | 'detailed']`
//!
//! One process is the master and the only region server:
//! `1 active master, 0 backup masters, 1 servers, 0 dead, N.0000 average load` where N is
//! the number of open regions of enabled tables; `simple` and `detailed` list the server and
//! its regions. Regions that failed to open (FAILED_OPEN) are counted on a line of their own,
//! `N regions FAILED_OPEN (not served)`, and `simple` and `detailed` name each with its cause.

use crate::args;
use crate::command::{CmdError, Command, Ctx, Group};
use crate::output::Outcome;
use crate::parse::Value;
use basalt_api::RegionState;

pub static COMMAND: Command = Command {
    name: "status",
    group: Group::General,
    help: HELP,
    run,
};

const HELP: &str =
    "Show cluster status. Can be 'summary', 'simple', 'detailed', or 'replication'. The
default is 'summary'. Examples:

  hbase> status
  hbase> status 'simple'
  hbase> status 'summary'
  hbase> status 'detailed'
";

fn run(ctx: &mut Ctx, a: &[Value]) -> Result<Outcome, CmdError> {
    args::arity(ctx, a, 0, 2)?;
    let kind = a
        .first()
        .map(|v| args::text(v, "format"))
        .transpose()?
        .unwrap_or_else(|| "summary".to_string());
    let admin = ctx.admin();
    // Failures are shown even when listing tables fails (hbase:meta itself failed).
    let failed = admin.cluster_health()?.failed_regions;
    let mut regions = Vec::new();
    match admin.list_tables(None) {
        Ok(tables) => {
            for table in tables {
                if admin.is_table_enabled(&table)? {
                    regions.extend(admin.list_regions(&table)?);
                }
            }
        }
        Err(_) if !failed.is_empty() => {}
        Err(e) => return Err(e.into()),
    }
    regions.retain(|r| r.state == RegionState::Open);
    let server = regions
        .first()
        .map_or_else(|| "localhost,16020,0".to_string(), |r| r.server.clone());
    let requests: u64 = regions
        .iter()
        .map(|r| r.read_requests + r.write_requests)
        .sum();
    let mut out = match kind.as_str() {
        "summary" => Outcome::new().line(format!(
            "1 active master, 0 backup masters, 1 servers, 0 dead, {:.4} average load",
            regions.len() as f64
        )),
        "simple" | "detailed" => {
            let mut out = Outcome::new()
                .line(format!("active master:  {server}"))
                .line("0 backup masters")
                .line("1 live servers")
                .line(format!("    {server}"))
                .line(format!(
                    "        requestsPerSecond=0.0, numberOfOnlineRegions={}, totalRequests={requests}",
                    regions.len()
                ));
            if kind == "detailed" {
                for r in &regions {
                    out.lines.push(format!("        \"{}\"", r.region_name));
                }
            }
            out.line("0 dead servers")
                .line(format!("Aggregate load: 0, regions: {}", regions.len()))
        }
        other => {
            return Err(CmdError::new(format!(
                "Unknown status format: {other}. Use 'summary', 'simple' or 'detailed'"
            )))
        }
    };
    if !failed.is_empty() {
        out.lines
            .push(format!("{} regions FAILED_OPEN (not served)", failed.len()));
        if kind != "summary" {
            for f in &failed {
                out.lines.push(format!(
                    "    \"{}\" FAILED_OPEN: {}",
                    f.region_name, f.cause
                ));
            }
        }
    }
    Ok(out)
}
