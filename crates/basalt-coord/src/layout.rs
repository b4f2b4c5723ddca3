//! Where a cluster keeps what in the coordinator (all under the cluster's prefix).
//!
//! ```text
//! cluster-id                 the cluster's id (written once, by the first master)
//! election/master/<lease>    masters campaigning; the oldest is active; value "host:port"
//! servers/<host,port,code>   a live region server, under its lease; value: its properties
//! namespaces/<ns>            a namespace's properties
//! tables/<ns:table>          a table's descriptor (the catalog encoding)
//! table-state/<ns:table>     "ENABLED" or "DISABLED"
//! regions/<encoded>          a region's record (the catalog encoding)
//! assign/<encoded>           where it is: server, open sequence, state, and the dead
//!                            servers whose logs its next open reads (`recover_from`,
//!                            names joined by ';')
//! switches/balancer          "true" or "false" (`balance_switch`; absent: on)
//! procs/<id>                 a split or merge under way (the master's procedure
//!                            record): what a master that takes over resumes or rolls
//!                            back; removed when the procedure ends
//! masters-native/<host:port>  a master's HBase native address (by its gRPC address):
//!                            a property map, `hbase_address` and `start_code`; what a
//!                            standby names as the active master to native clients
//! decommissioned/<host,port,code>
//!                            a live region server marked decommissioned
//!                            (`decommission_regionservers`): no region is assigned to
//!                            it; value: the time it was marked, in ms (HBase's draining
//!                            znode). Removed on `recommission_regionserver` or when the
//!                            server leaves.
//! acl/<scope>\t<user>         a grant (HBase's hbase:acl): the user's (or @group's)
//!                            permissions at the scope (`global`, `namespace ns`,
//!                            `table ns:t [family [qualifier]]`); value: `RWXCA` letters
//! ```
//! Values of `servers/`, `namespaces/` and `assign/` are property maps in the catalog's
//! encoding (docs/format.md).

pub const CLUSTER_ID: &str = "cluster-id";
pub const MASTER_ELECTION: &str = "master";
pub const SERVERS: &str = "servers/";
pub const NAMESPACES: &str = "namespaces/";
pub const TABLES: &str = "tables/";
pub const TABLE_STATE: &str = "table-state/";
pub const REGIONS: &str = "regions/";
pub const ASSIGN: &str = "assign/";
pub const BALANCER: &str = "switches/balancer";
pub const DECOMMISSIONED: &str = "decommissioned/";
pub const PROCS: &str = "procs/";
pub const MASTERS_NATIVE: &str = "masters-native/";
pub const ACL: &str = "acl/";

pub fn server(name: &str) -> Vec<u8> {
    format!("{SERVERS}{name}").into_bytes()
}
pub fn namespace(name: &str) -> Vec<u8> {
    format!("{NAMESPACES}{name}").into_bytes()
}
pub fn table(name: &str) -> Vec<u8> {
    format!("{TABLES}{name}").into_bytes()
}
pub fn table_state(name: &str) -> Vec<u8> {
    format!("{TABLE_STATE}{name}").into_bytes()
}
pub fn region(encoded: &str) -> Vec<u8> {
    format!("{REGIONS}{encoded}").into_bytes()
}
pub fn assign(encoded: &str) -> Vec<u8> {
    format!("{ASSIGN}{encoded}").into_bytes()
}
pub fn procedure(id: &str) -> Vec<u8> {
    format!("{PROCS}{id}").into_bytes()
}
pub fn decommissioned(server: &str) -> Vec<u8> {
    format!("{DECOMMISSIONED}{server}").into_bytes()
}

pub fn acl(entry: &str) -> Vec<u8> {
    format!("{ACL}{entry}").into_bytes()
}

/// The name after `prefix` in `key`, if `key` is under it.
pub fn name_under<'a>(key: &'a [u8], prefix: &str) -> Option<&'a str> {
    key.strip_prefix(prefix.as_bytes())
        .and_then(|rest| std::str::from_utf8(rest).ok())
}
