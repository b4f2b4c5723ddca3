//! Namespaces, tables, regions and maintenance (HBase's `Admin`).

use crate::Result;
use basalt_types::{
    FamilyDescriptor, NamespaceDescriptor, SplitAlgorithm, TableDescriptor, TableName,
};
use bytes::Bytes;

/// How a new table is cut into regions.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum PreSplit {
    /// One region.
    #[default]
    None,
    /// `SPLITS => [...]`: N keys give N + 1 regions.
    Keys(Vec<Bytes>),
    /// `NUMREGIONS => n, SPLITALGO => ...`.
    Count {
        regions: u32,
        algorithm: SplitAlgorithm,
    },
}

/// Where a row lives: the region holding it and the server serving that region. Clients
/// cache these; a server answers a call aimed at a region it no longer holds for that row
/// with [`crate::ErrorKind::RetryElsewhere`] (`NotServingRegionException`), and the client
/// looks the row up again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionLocation {
    /// HBase's region name: `table,start_key,region_id.encoded.`
    pub region_name: String,
    pub start_key: Bytes,
    /// Exclusive; empty for the last region.
    pub end_key: Bytes,
    pub server: String,
}

/// The host and port of a server name: HBase's `host,port,startcode` (or `host,port`), or
/// `host:port`; port 0 when it names none.
pub fn server_host_port(server: &str) -> (String, u16) {
    let mut parts = server.split(',');
    match (parts.next(), parts.next()) {
        (Some(host), Some(port)) => (host.to_string(), port.parse().unwrap_or(0)),
        _ => match server.rsplit_once(':') {
            Some((host, port)) => (
                host.trim_matches(['[', ']']).to_string(),
                port.parse().unwrap_or(0),
            ),
            None => (server.to_string(), 0),
        },
    }
}

impl RegionLocation {
    /// Whether `row` falls in this region's key range.
    pub fn contains(&self, row: &[u8]) -> bool {
        row >= self.start_key.as_ref() && (self.end_key.is_empty() || row < self.end_key.as_ref())
    }
}

/// One region as `list_regions` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionReport {
    pub table: TableName,
    /// HBase's region name: `table,start_key,region_id.encoded.`
    pub region_name: String,
    /// The region's short name, as in its folder.
    pub encoded_name: String,
    pub start_key: Bytes,
    pub end_key: Bytes,
    pub server: String,
    pub store_files: usize,
    pub store_file_bytes: u64,
    pub memstore_bytes: u64,
    pub read_requests: u64,
    pub write_requests: u64,
    /// Whether it serves (HBase's `RegionState`).
    pub state: RegionState,
    /// Why it failed to open (names the file and the cause); `None` unless
    /// [`RegionState::FailedOpen`].
    pub failure: Option<String>,
}

/// Where a region is, as HBase's `RegionState.State` names it (the states Basalt has).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegionState {
    /// Serving.
    Open,
    /// Its table is disabled.
    Closed,
    /// Its files could not be opened; its requests fail with `NotServingRegionException`
    /// until it is opened again (the next start, or disabling and enabling its table).
    FailedOpen,
}

impl RegionState {
    /// HBase's name: `OPEN`, `CLOSED`, `FAILED_OPEN`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Open => "OPEN",
            Self::Closed => "CLOSED",
            Self::FailedOpen => "FAILED_OPEN",
        }
    }
}

/// What is wrong with a database, as `basalt hbck` and the status pages report it: regions
/// that failed to open, what was moved to quarantine, and where the catalog and the data
/// folder disagree. Empty lists mean healthy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterHealth {
    /// `hbase:meta` first when it is one of them.
    pub failed_regions: Vec<FailedRegion>,
    pub quarantined: Vec<QuarantinedItem>,
    pub inconsistencies: Vec<Inconsistency>,
}

impl ClusterHealth {
    /// How many problems it lists (`hbck`'s inconsistency count).
    pub fn problem_count(&self) -> usize {
        self.failed_regions.len() + self.quarantined.len() + self.inconsistencies.len()
    }
}

/// A region that is [`RegionState::FailedOpen`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedRegion {
    pub table: TableName,
    /// HBase's region name: `table,start_key,region_id.encoded.`
    pub region_name: String,
    pub encoded_name: String,
    /// The file that could not be read, when the failure names one.
    pub file: Option<String>,
    /// The error, in full.
    pub cause: String,
}

/// Something set aside in `<data>/quarantine/` rather than deleted; it stays until an
/// operator purges it (`basalt hbck --purge-quarantine`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuarantinedItem {
    /// Where it is now, relative to the data folder (`quarantine/...`).
    pub path: String,
    /// Where it was, relative to the data folder.
    pub original: String,
    pub reason: String,
    pub bytes: u64,
    /// When it was moved, ms since the epoch.
    pub quarantined_at_ms: i64,
}

/// A disagreement between the catalog and the data folder, or within a table's regions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inconsistency {
    pub kind: InconsistencyKind,
    pub table: String,
    /// What and where, for people.
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InconsistencyKind {
    /// `hbase:meta` names a region whose folder is missing.
    MissingFolder,
    /// A region folder `hbase:meta` does not name.
    UnknownFolder,
    /// Rows no serving region of the table covers.
    Hole,
    /// Rows two serving regions of the table both cover.
    Overlap,
    /// A region row in `hbase:meta` of a table meta does not define (kept, not served).
    OrphanRow,
}

impl InconsistencyKind {
    pub fn name(self) -> &'static str {
        match self {
            Self::MissingFolder => "MISSING_FOLDER",
            Self::UnknownFolder => "UNKNOWN_FOLDER",
            Self::Hole => "HOLE",
            Self::Overlap => "OVERLAP",
            Self::OrphanRow => "ORPHAN_ROW",
        }
    }
}

pub trait Admin: Send + Sync {
    fn create_namespace(&self, namespace: &NamespaceDescriptor) -> Result<()>;
    /// Only an empty namespace can go; `default` and `hbase` never.
    fn delete_namespace(&self, name: &str) -> Result<()>;
    fn describe_namespace(&self, name: &str) -> Result<NamespaceDescriptor>;
    /// Replaces an existing namespace's properties.
    fn modify_namespace(&self, namespace: &NamespaceDescriptor) -> Result<()>;
    fn list_namespaces(&self) -> Result<Vec<NamespaceDescriptor>>;

    fn create_table(&self, descriptor: &TableDescriptor, split: &PreSplit) -> Result<()>;
    fn table_exists(&self, name: &TableName) -> Result<bool>;
    fn describe_table(&self, name: &TableName) -> Result<TableDescriptor>;
    /// Tables whose name matches the regular expression (all when `None`), sorted.
    fn list_tables(&self, pattern: Option<&str>) -> Result<Vec<TableName>>;
    fn is_table_enabled(&self, name: &TableName) -> Result<bool>;
    fn enable_table(&self, name: &TableName) -> Result<()>;
    fn disable_table(&self, name: &TableName) -> Result<()>;
    /// Only a disabled table can be deleted.
    fn delete_table(&self, name: &TableName) -> Result<()>;
    /// Empties a table (it must be disabled; it is enabled after).
    fn truncate_table(&self, name: &TableName, preserve_splits: bool) -> Result<()>;

    /// Replaces the table's options (families keep their data; new families are added).
    fn modify_table(&self, descriptor: &TableDescriptor) -> Result<()>;
    fn add_family(&self, table: &TableName, family: &FamilyDescriptor) -> Result<()>;
    fn modify_family(&self, table: &TableName, family: &FamilyDescriptor) -> Result<()>;
    fn delete_family(&self, table: &TableName, family: &[u8]) -> Result<()>;

    fn list_regions(&self, table: &TableName) -> Result<Vec<RegionReport>>;
    /// The region holding `row` now (`locate_region`), from the catalog.
    fn locate_region(&self, table: &TableName, row: &[u8]) -> Result<RegionLocation>;
    fn flush(&self, table: &TableName) -> Result<()>;
    fn compact(&self, table: &TableName, major: bool) -> Result<()>;
    /// Compacts one family of every region of the table.
    fn compact_family(&self, table: &TableName, family: &[u8], major: bool) -> Result<()>;
    /// Flushes one region, named by encoded or full region name.
    fn flush_region(&self, region: &str) -> Result<()>;
    /// Compacts one region (one family of it when given), named by encoded or full name.
    fn compact_region(&self, region: &str, family: Option<&[u8]>, major: bool) -> Result<()>;
    /// Splits every region of the table at its midpoint, or the region holding `key` at `key`.
    fn split(&self, table: &TableName, key: Option<&[u8]>) -> Result<()>;
    /// Merges two adjacent regions, named by encoded name.
    fn merge_regions(&self, a: &str, b: &str) -> Result<()>;
    /// Deletes what splits and merges left behind once nothing refers to it; returns how
    /// many parent regions it cleaned (`catalogjanitor_run`).
    fn run_catalog_janitor(&self) -> Result<usize>;
    /// Regions that failed to open, quarantined items and catalog disagreements
    /// (what `basalt hbck --connect` reports). Answers even when `hbase:meta` failed to
    /// open, when every table call fails.
    fn cluster_health(&self) -> Result<ClusterHealth>;

    /// Moves a region (encoded or full name) to `server` (`host,port[,startcode]`), or
    /// where the balancer would put it. One server (standalone): nothing to move.
    fn move_region(&self, region: &str, server: Option<&str>) -> Result<()> {
        let _ = (region, server);
        Ok(())
    }
    /// Runs the balancer now; false when it did not run (switched off by
    /// [`Admin::balance_switch`], or regions moving). One server: nothing to balance.
    fn balance(&self) -> Result<bool> {
        self.balancer_enabled()
    }
    /// `assign`: opens a region (encoded or full name) that is not open, where the balancer
    /// would put it; a region already open stays where it is. One process (standalone)
    /// serves every region: nothing to do.
    fn assign(&self, region: &str) -> Result<()> {
        let _ = region;
        Ok(())
    }
    /// `unassign`: closes a region where it is open (its server flushes it first); it then
    /// stays closed, its rows unavailable, until [`Admin::assign`] (the balancer leaves it
    /// alone). `force` is accepted as HBase 2 accepts it, and changes nothing. One process
    /// (standalone) cannot close a region of an enabled table: a DoNotRetry error.
    fn unassign(&self, region: &str, force: bool) -> Result<()> {
        let _ = (region, force);
        Err(needs_cluster("unassign"))
    }
    /// `close_region`: HBase 2 treats it as [`Admin::unassign`], through the master wherever
    /// the region is open (`server` changes nothing).
    fn close_region(&self, region: &str, server: Option<&str>) -> Result<()> {
        let _ = server;
        self.unassign(region, false)
    }
    /// Turns the balancer on or off (the periodic runs and `balancer`); answers the previous
    /// state.
    fn balance_switch(&self, on: bool) -> Result<bool>;
    /// Whether the balancer is on.
    fn balancer_enabled(&self) -> Result<bool>;
    /// A cluster's masters, servers and moving regions; None for one process (standalone).
    fn cluster_status(&self) -> Result<Option<ClusterStatus>> {
        Ok(None)
    }
    /// `decommission_regionservers`: marks live region servers (`host,port,startcode`,
    /// `host,port`, `host:port` or `host`) decommissioned — no region is assigned to them
    /// any more — and with `offload` moves their regions to the other servers. Answers the
    /// servers' full names. Refused for a name that is no live server, and when no server
    /// would be left to take regions. One process (standalone) has no other server.
    fn decommission_region_servers(
        &self,
        servers: &[String],
        offload: bool,
    ) -> Result<Vec<String>> {
        let _ = (servers, offload);
        Err(cluster_only("decommission_regionservers"))
    }
    /// The servers marked decommissioned (full names, sorted); none in one process.
    fn list_decommissioned_region_servers(&self) -> Result<Vec<String>> {
        Ok(Vec::new())
    }
    /// `recommission_regionserver`: removes the mark, so the server takes regions again,
    /// then moves the regions named (encoded or full names) onto it.
    fn recommission_region_server(&self, server: &str, regions: &[String]) -> Result<()> {
        let _ = (server, regions);
        Err(cluster_only("recommission_regionserver"))
    }
    /// `clear_deadservers`: forgets dead servers (all when `servers` is empty), except
    /// those whose crash recovery is not done (a region still reads its log first).
    fn clear_dead_servers(&self, servers: &[String]) -> Result<ClearedDeadServers> {
        let _ = servers;
        Err(cluster_only("clear_deadservers"))
    }
    /// `get_slowlog_responses`: the slow log records of region servers `servers` (full
    /// names, `host,port` or `host`; every server when empty) that pass `query`, newest
    /// first. A process that hosts no region server (an embedded database) has none.
    fn get_slowlog_responses(
        &self,
        servers: &[String],
        query: &crate::SlowLogQuery,
    ) -> Result<Vec<crate::SlowLogRecord>> {
        let _ = (servers, query);
        Ok(Vec::new())
    }
    /// `clear_slowlog_responses`: empties the slow log of `servers` (every one when
    /// empty); answers each server with whether it was cleared.
    fn clear_slowlog_responses(&self, servers: &[String]) -> Result<Vec<(String, bool)>> {
        let _ = servers;
        Ok(Vec::new())
    }
    /// `snapshot 't', 's'`: a consistent picture of the table (every region at one point)
    /// named `name`, sharing the table's files; flushed first unless `skip_flush`.
    fn snapshot(
        &self,
        table: &TableName,
        name: &str,
        options: &crate::SnapshotOptions,
    ) -> Result<()> {
        let _ = (table, name, options);
        Err(crate::snapshot::snapshots_unsupported("snapshot"))
    }
    /// `list_snapshots ['regex']`: completed snapshots whose name matches, by name.
    fn list_snapshots(&self, pattern: Option<&str>) -> Result<Vec<crate::SnapshotDescription>> {
        let _ = pattern;
        Err(crate::snapshot::snapshots_unsupported("list_snapshots"))
    }
    /// `delete_snapshot 's'`: removes the snapshot; files nothing else names go with it.
    fn delete_snapshot(&self, name: &str) -> Result<()> {
        let _ = name;
        Err(crate::snapshot::snapshots_unsupported("delete_snapshot"))
    }
    /// `clone_snapshot 's', 'new'`: a new table holding the snapshot's rows, sharing its
    /// files.
    fn clone_snapshot(&self, name: &str, table: &TableName) -> Result<()> {
        let _ = (name, table);
        Err(crate::snapshot::snapshots_unsupported("clone_snapshot"))
    }
    /// `restore_snapshot 's'`: the snapshot's table, disabled, rolled back to it (left
    /// disabled, as HBase leaves it).
    fn restore_snapshot(&self, name: &str) -> Result<()> {
        let _ = name;
        Err(crate::snapshot::snapshots_unsupported("restore_snapshot"))
    }
    /// `restore_snapshot 's', {TIMESTAMP => ms}` (beyond HBase): as `restore_snapshot`,
    /// then rolled forward with the edits the table's logs kept (`WAL_RETENTION_SECS`)
    /// that were logged at or before `to_ms` (epoch milliseconds). Refused, naming why,
    /// when those logs were not kept.
    fn restore_snapshot_to(&self, name: &str, to_ms: i64) -> Result<()> {
        let _ = (name, to_ms);
        Err(crate::snapshot::snapshots_unsupported(
            "restore_snapshot with TIMESTAMP",
        ))
    }

    /// `grant`: gives `permission.user` (a user, or `@group`) the permissions at the
    /// scope, replacing what it held at that scope (HBase's shell grant). Kept in the
    /// catalog; a connection without one refuses.
    fn grant(&self, permission: &crate::UserPermission) -> Result<()> {
        let _ = permission;
        Err(crate::acl::acl_unsupported("grant"))
    }
    /// `revoke`: takes the permissions away at exactly that scope (all of them when
    /// `permission.actions` is empty); the grant goes when none is left.
    fn revoke(&self, permission: &crate::UserPermission) -> Result<()> {
        let _ = permission;
        Err(crate::acl::acl_unsupported("revoke"))
    }
    /// `list_security_capabilities`: HBase's names of what this connection enforces
    /// (`SIMPLE_AUTHENTICATION`, `SECURE_AUTHENTICATION`, `AUTHORIZATION`, ...).
    fn security_capabilities(&self) -> Result<Vec<String>> {
        Ok(vec!["SIMPLE_AUTHENTICATION".to_string()])
    }
    /// `user_permission`: the grants the query selects, sorted by scope then user.
    fn get_user_permissions(
        &self,
        query: &crate::PermissionQuery,
    ) -> Result<Vec<crate::UserPermission>> {
        let _ = query;
        Err(crate::acl::acl_unsupported("user_permission"))
    }
    /// Whether `user` holds each of `permissions` (its user and actions; the `user` field
    /// of each is ignored), by its own grants at that scope or a wider one (group grants
    /// need the principal's groups: see `basalt-acl`).
    fn has_user_permissions(
        &self,
        user: &str,
        permissions: &[crate::UserPermission],
    ) -> Result<Vec<bool>> {
        let held = self.get_user_permissions(&crate::PermissionQuery {
            scope: None,
            user: Some(user.to_string()),
        })?;
        Ok(permissions
            .iter()
            .map(|want| {
                let mut have = crate::Actions::NONE;
                for g in held.iter().filter(|g| g.scope.covers(&want.scope)) {
                    have = have.union(g.actions);
                }
                have.contains_all(want.actions)
            })
            .collect())
    }
}

/// What `clear_deadservers` did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClearedDeadServers {
    /// Servers removed from the dead list.
    pub cleared: Vec<String>,
    /// Servers kept (or not dead at all), each with why.
    pub refused: Vec<(String, String)>,
}

/// The answer of one process (standalone) to a command about a cluster's region servers:
/// HBase's `DoNotRetryIOException`, saying why.
pub fn cluster_only(command: &str) -> crate::ApiError {
    crate::ApiError::new(
        crate::ErrorKind::InvalidRequest,
        "org.apache.hadoop.hbase.DoNotRetryIOException",
        format!("{command} needs a cluster: one process (standalone) is its only region server"),
    )
}

/// The answer of one process (standalone) to a command that closes regions of an enabled
/// table: HBase's `DoNotRetryIOException`, saying why.
pub fn needs_cluster(command: &str) -> crate::ApiError {
    crate::ApiError::new(
        crate::ErrorKind::InvalidRequest,
        "org.apache.hadoop.hbase.DoNotRetryIOException",
        format!(
            "{command} needs a cluster: one process (standalone) serves every region of an \
             enabled table; disable the table to close its regions"
        ),
    )
}

/// What `status` shows of a cluster.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterStatus {
    /// `host:port` of the active master.
    pub active_master: String,
    pub backup_masters: Vec<String>,
    pub servers: Vec<ServerStatus>,
    pub dead_servers: Vec<String>,
    /// "encoded-name STATE on server", one per region moving now.
    pub regions_in_transition: Vec<String>,
    pub balancer_on: bool,
}

/// One live region server and its load.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerStatus {
    /// `host,port,startcode`
    pub name: String,
    pub regions: u64,
    pub read_requests: u64,
    pub write_requests: u64,
    pub memstore_bytes: u64,
    pub store_file_bytes: u64,
    /// Requests per second over the server's last whole metrics window (HBase's
    /// `requestsPerSecond`).
    pub requests_per_second: u64,
}

#[cfg(test)]
mod tests {
    use super::server_host_port;

    #[test]
    fn server_names_give_host_and_port() {
        assert_eq!(
            server_host_port("127.0.0.2,16020,1700000000000"),
            ("127.0.0.2".into(), 16020)
        );
        assert_eq!(
            server_host_port("localhost,16020"),
            ("localhost".into(), 16020)
        );
        assert_eq!(server_host_port("h:9090"), ("h".into(), 9090));
        assert_eq!(server_host_port("[::1]:9"), ("::1".into(), 9));
        assert_eq!(server_host_port("h"), ("h".into(), 0));
    }
}
