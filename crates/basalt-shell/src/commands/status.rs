//! `status ['summary' | 'simple' | 'detailed']`
//!
//! Against a cluster it shows what the master reports (HBase's layout): the active and
//! backup masters, each live server with its regions and load (`detailed`: the regions by
//! name), the dead servers and the regions in transition.
//!
//! Standalone, one process is the master and the only region server:
//! `1 active master, 0 backup masters, 1 servers, 0 dead, N.0000 average load` where N is
//! the number of open regions of enabled tables; `simple` and `detailed` list the server and
//! its regions. Regions that failed to open (FAILED_OPEN) are counted on a line of their own,
//! `N regions FAILED_OPEN (not served)`, and `simple` and `detailed` name each with its cause.
//!
//! `detailed` ends with the hot spots, when any: regions taking most of a table's writes,
//! or regions getting none, with the likely cause and its remedies
//! ([`hotspots`](super::hotspots)).

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
    if let Some(status) = admin.cluster_status()? {
        return cluster(&*admin, &status, &kind);
    }
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
    let server = server_of(&regions);
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
    if kind == "detailed" {
        out.lines.extend(super::hotspots::lines(&*admin));
    }
    Ok(out)
}

/// The one server of a standalone process, as its open regions name it.
fn server_of(open: &[basalt_api::RegionReport]) -> String {
    open.first()
        .map_or_else(|| "localhost,16020,0".to_string(), |r| r.server.clone())
}

/// The name of a standalone process's one server (`list_liveservers`).
pub fn standalone_server(admin: &dyn basalt_api::Admin) -> Result<String, CmdError> {
    for table in admin.list_tables(None)? {
        if admin.is_table_enabled(&table)? {
            let mut regions = admin.list_regions(&table)?;
            regions.retain(|r| r.state == RegionState::Open);
            if !regions.is_empty() {
                return Ok(server_of(&regions));
            }
        }
    }
    Ok(server_of(&[]))
}

/// `status` of a cluster, from the master's report.
fn cluster(
    admin: &dyn basalt_api::Admin,
    status: &basalt_api::ClusterStatus,
    kind: &str,
) -> Result<Outcome, CmdError> {
    let regions: u64 = status.servers.iter().map(|s| s.regions).sum();
    let average = match status.servers.len() {
        0 => 0.0,
        n => regions as f64 / n as f64,
    };
    let mut out = match kind {
        "summary" => Outcome::new().line(format!(
            "1 active master, {} backup masters, {} servers, {} dead, {average:.4} average load",
            status.backup_masters.len(),
            status.servers.len(),
            status.dead_servers.len()
        )),
        "simple" | "detailed" => {
            let mut by_server: std::collections::BTreeMap<String, Vec<String>> = Default::default();
            if kind == "detailed" {
                for table in admin.list_tables(None)? {
                    if admin.is_table_enabled(&table)? {
                        // A FAILED_OPEN region is not online anywhere: it is listed
                        // under the failed regions below.
                        for r in admin.list_regions(&table)? {
                            if r.failure.is_some() {
                                continue;
                            }
                            by_server
                                .entry(r.server.clone())
                                .or_default()
                                .push(r.region_name);
                        }
                    }
                }
            }
            let mut out = Outcome::new()
                .line(format!("active master:  {}", status.active_master))
                .line(format!("{} backup masters", status.backup_masters.len()));
            for backup in &status.backup_masters {
                out.lines.push(format!("    {backup}"));
            }
            out.lines
                .push(format!("{} live servers", status.servers.len()));
            for server in &status.servers {
                out.lines.push(format!("    {}", server.name));
                out.lines.push(format!(
                    "        requestsPerSecond={}.0, numberOfOnlineRegions={}, memstoreSizeMB={}, storefileSizeMB={}, readRequestsCount={}, writeRequestsCount={}",
                    server.requests_per_second,
                    server.regions,
                    server.memstore_bytes >> 20,
                    server.store_file_bytes >> 20,
                    server.read_requests,
                    server.write_requests
                ));
                for region in by_server.get(&server.name).into_iter().flatten() {
                    out.lines.push(format!("        \"{region}\""));
                }
            }
            out.lines
                .push(format!("{} dead servers", status.dead_servers.len()));
            for dead in &status.dead_servers {
                out.lines.push(format!("    {dead}"));
            }
            if !status.regions_in_transition.is_empty() {
                out.lines.push(format!(
                    "{} regionsInTransition",
                    status.regions_in_transition.len()
                ));
                for rit in &status.regions_in_transition {
                    out.lines.push(format!("    {rit}"));
                }
            }
            // HBase's aggregate load: the servers' requests per second, summed.
            let load: u64 = status.servers.iter().map(|s| s.requests_per_second).sum();
            out.line(format!("Aggregate load: {load}, regions: {regions}"))
        }
        other => {
            return Err(CmdError::new(format!(
                "Unknown status format: {other}. Use 'summary', 'simple' or 'detailed'"
            )))
        }
    };
    let failed = admin.cluster_health()?.failed_regions;
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
    if kind == "detailed" {
        out.lines.extend(super::hotspots::lines(admin));
    }
    Ok(out)
}
