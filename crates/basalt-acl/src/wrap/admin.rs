//! An admin whose calls are checked against the matrix. Listings (namespaces, tables)
//! keep what the principal holds some permission on; creating a table grants its creator
//! every permission on it (HBase's table owner); a user may always list and test its own
//! permissions.

use super::{object_of, Guard};
use crate::check::{names, Object};
use crate::matrix::Op;
use basalt_api::{
    Actions, Admin, ClearedDeadServers, ClusterHealth, ClusterStatus, PermissionQuery, PreSplit,
    RegionLocation, RegionReport, Result, Scope, SlowLogQuery, SlowLogRecord, SnapshotDescription,
    SnapshotOptions, UserPermission,
};
use basalt_types::{FamilyDescriptor, NamespaceDescriptor, TableDescriptor, TableName};
use std::sync::Arc;

pub(crate) struct AuthorizedAdmin {
    inner: Arc<dyn Admin>,
    guard: Guard,
}

impl AuthorizedAdmin {
    pub(crate) fn new(inner: Arc<dyn Admin>, guard: Guard) -> Self {
        AuthorizedAdmin { inner, guard }
    }

    fn global(&self, op: Op) -> Result<()> {
        self.guard.check(op, &Object::Global)
    }

    fn table(&self, op: Op, t: &TableName) -> Result<()> {
        self.guard.check(op, &Object::Table(t.clone()))
    }

    fn family(&self, op: Op, t: &TableName, f: &[u8]) -> Result<()> {
        let object = Object::Column {
            table: t.clone(),
            family: bytes::Bytes::copy_from_slice(f),
            qualifier: None,
        };
        self.guard.check(op, &object)
    }

    fn is_self(&self, user: Option<&str>) -> bool {
        user.is_some_and(|u| names(&self.guard.principal(), u))
    }
}

impl Admin for AuthorizedAdmin {
    fn create_namespace(&self, ns: &NamespaceDescriptor) -> Result<()> {
        self.global(Op::CreateNamespace)?;
        self.inner.create_namespace(ns)
    }
    fn delete_namespace(&self, name: &str) -> Result<()> {
        self.global(Op::DeleteNamespace)?;
        self.inner.delete_namespace(name)
    }
    fn describe_namespace(&self, name: &str) -> Result<NamespaceDescriptor> {
        self.guard
            .check(Op::DescribeNamespace, &Object::Namespace(name.to_string()))?;
        self.inner.describe_namespace(name)
    }
    fn modify_namespace(&self, ns: &NamespaceDescriptor) -> Result<()> {
        self.global(Op::ModifyNamespace)?;
        self.inner.modify_namespace(ns)
    }
    fn list_namespaces(&self) -> Result<Vec<NamespaceDescriptor>> {
        let mut all = self.inner.list_namespaces()?;
        let mut keep = Vec::with_capacity(all.len());
        for ns in all.drain(..) {
            if self.guard.sees(&Scope::Namespace(ns.name.clone()))? {
                keep.push(ns);
            }
        }
        Ok(keep)
    }
    fn create_table(&self, d: &TableDescriptor, split: &PreSplit) -> Result<()> {
        self.guard.check(
            Op::CreateTable,
            &Object::Namespace(d.name.namespace().to_string()),
        )?;
        self.inner.create_table(d, split)?;
        let me = &self.guard.principal();
        if !self.guard.checker.is_superuser(me) {
            let owner = UserPermission::new(me.name(), Scope::table(d.name.clone()), Actions::ALL);
            self.inner.grant(&owner)?;
            tracing::info!(user = %me, table = %d.name, "table owner granted RWXCA");
        }
        Ok(())
    }
    fn table_exists(&self, name: &TableName) -> Result<bool> {
        self.inner.table_exists(name)
    }
    fn describe_table(&self, name: &TableName) -> Result<TableDescriptor> {
        self.table(Op::DescribeTable, name)?;
        self.inner.describe_table(name)
    }
    fn list_tables(&self, pattern: Option<&str>) -> Result<Vec<TableName>> {
        let mut keep = Vec::new();
        for t in self.inner.list_tables(pattern)? {
            if self.guard.sees(&Scope::table(t.clone()))? {
                keep.push(t);
            }
        }
        Ok(keep)
    }
    fn is_table_enabled(&self, name: &TableName) -> Result<bool> {
        self.inner.is_table_enabled(name)
    }
    fn enable_table(&self, name: &TableName) -> Result<()> {
        self.table(Op::EnableTable, name)?;
        self.inner.enable_table(name)
    }
    fn disable_table(&self, name: &TableName) -> Result<()> {
        self.table(Op::DisableTable, name)?;
        self.inner.disable_table(name)
    }
    fn delete_table(&self, name: &TableName) -> Result<()> {
        self.table(Op::DeleteTable, name)?;
        self.inner.delete_table(name)
    }
    fn truncate_table(&self, name: &TableName, preserve_splits: bool) -> Result<()> {
        self.table(Op::TruncateTable, name)?;
        self.inner.truncate_table(name, preserve_splits)
    }
    fn modify_table(&self, d: &TableDescriptor) -> Result<()> {
        self.table(Op::ModifyTable, &d.name)?;
        self.inner.modify_table(d)
    }
    fn add_family(&self, t: &TableName, f: &FamilyDescriptor) -> Result<()> {
        self.family(Op::AddFamily, t, &f.name)?;
        self.inner.add_family(t, f)
    }
    fn modify_family(&self, t: &TableName, f: &FamilyDescriptor) -> Result<()> {
        self.family(Op::ModifyFamily, t, &f.name)?;
        self.inner.modify_family(t, f)
    }
    fn delete_family(&self, t: &TableName, f: &[u8]) -> Result<()> {
        self.family(Op::DeleteFamily, t, f)?;
        self.inner.delete_family(t, f)
    }
    fn list_regions(&self, t: &TableName) -> Result<Vec<RegionReport>> {
        self.inner.list_regions(t)
    }
    fn locate_region(&self, t: &TableName, row: &[u8]) -> Result<RegionLocation> {
        self.inner.locate_region(t, row)
    }
    fn flush(&self, t: &TableName) -> Result<()> {
        self.table(Op::Flush, t)?;
        self.inner.flush(t)
    }
    fn compact(&self, t: &TableName, major: bool) -> Result<()> {
        self.table(Op::Compact, t)?;
        self.inner.compact(t, major)
    }
    fn compact_family(&self, t: &TableName, f: &[u8], major: bool) -> Result<()> {
        self.table(Op::Compact, t)?;
        self.inner.compact_family(t, f, major)
    }
    fn flush_region(&self, region: &str) -> Result<()> {
        self.global(Op::FlushRegion)?;
        self.inner.flush_region(region)
    }
    fn compact_region(&self, region: &str, f: Option<&[u8]>, major: bool) -> Result<()> {
        self.global(Op::CompactRegion)?;
        self.inner.compact_region(region, f, major)
    }
    fn split(&self, t: &TableName, key: Option<&[u8]>) -> Result<()> {
        self.table(Op::Split, t)?;
        self.inner.split(t, key)
    }
    fn merge_regions(&self, a: &str, b: &str) -> Result<()> {
        self.global(Op::MergeRegions)?;
        self.inner.merge_regions(a, b)
    }
    fn run_catalog_janitor(&self) -> Result<usize> {
        self.global(Op::CatalogJanitor)?;
        self.inner.run_catalog_janitor()
    }
    fn cluster_health(&self) -> Result<ClusterHealth> {
        self.global(Op::ClusterHealth)?;
        self.inner.cluster_health()
    }
    fn move_region(&self, region: &str, server: Option<&str>) -> Result<()> {
        self.global(Op::MoveRegion)?;
        self.inner.move_region(region, server)
    }
    fn balance(&self) -> Result<bool> {
        self.global(Op::Balance)?;
        self.inner.balance()
    }
    fn assign(&self, region: &str) -> Result<()> {
        self.global(Op::Assign)?;
        self.inner.assign(region)
    }
    fn unassign(&self, region: &str, force: bool) -> Result<()> {
        self.global(Op::Unassign)?;
        self.inner.unassign(region, force)
    }
    fn close_region(&self, region: &str, server: Option<&str>) -> Result<()> {
        self.global(Op::Unassign)?;
        self.inner.close_region(region, server)
    }
    fn balance_switch(&self, on: bool) -> Result<bool> {
        self.global(Op::BalanceSwitch)?;
        self.inner.balance_switch(on)
    }
    fn balancer_enabled(&self) -> Result<bool> {
        self.inner.balancer_enabled()
    }
    fn cluster_status(&self) -> Result<Option<ClusterStatus>> {
        self.inner.cluster_status()
    }
    fn decommission_region_servers(&self, s: &[String], offload: bool) -> Result<Vec<String>> {
        self.global(Op::Decommission)?;
        self.inner.decommission_region_servers(s, offload)
    }
    fn list_decommissioned_region_servers(&self) -> Result<Vec<String>> {
        self.global(Op::ListDecommissioned)?;
        self.inner.list_decommissioned_region_servers()
    }
    fn recommission_region_server(&self, server: &str, regions: &[String]) -> Result<()> {
        self.global(Op::Recommission)?;
        self.inner.recommission_region_server(server, regions)
    }
    fn clear_dead_servers(&self, servers: &[String]) -> Result<ClearedDeadServers> {
        self.global(Op::ClearDeadServers)?;
        self.inner.clear_dead_servers(servers)
    }
    fn get_slowlog_responses(
        &self,
        servers: &[String],
        query: &SlowLogQuery,
    ) -> Result<Vec<SlowLogRecord>> {
        self.global(Op::SlowLog)?;
        self.inner.get_slowlog_responses(servers, query)
    }
    fn clear_slowlog_responses(&self, servers: &[String]) -> Result<Vec<(String, bool)>> {
        self.global(Op::ClearSlowLog)?;
        self.inner.clear_slowlog_responses(servers)
    }
    fn snapshot(&self, t: &TableName, name: &str, o: &SnapshotOptions) -> Result<()> {
        self.table(Op::Snapshot, t)?;
        self.inner.snapshot(t, name, o)
    }
    fn list_snapshots(&self, pattern: Option<&str>) -> Result<Vec<SnapshotDescription>> {
        self.global(Op::ListSnapshots)?;
        self.inner.list_snapshots(pattern)
    }
    fn delete_snapshot(&self, name: &str) -> Result<()> {
        self.global(Op::DeleteSnapshot)?;
        self.inner.delete_snapshot(name)
    }
    fn clone_snapshot(&self, name: &str, t: &TableName) -> Result<()> {
        self.global(Op::CloneSnapshot)?;
        self.inner.clone_snapshot(name, t)
    }
    fn restore_snapshot(&self, name: &str) -> Result<()> {
        self.global(Op::RestoreSnapshot)?;
        self.inner.restore_snapshot(name)
    }
    fn security_capabilities(&self) -> Result<Vec<String>> {
        let mut caps = self.inner.security_capabilities()?;
        if !caps.iter().any(|c| c == "AUTHORIZATION") {
            caps.push("AUTHORIZATION".to_string());
        }
        Ok(caps)
    }
    fn grant(&self, p: &UserPermission) -> Result<()> {
        self.guard.check(Op::Grant, &object_of(&p.scope))?;
        self.inner.grant(p)
    }
    fn revoke(&self, p: &UserPermission) -> Result<()> {
        self.guard.check(Op::Revoke, &object_of(&p.scope))?;
        self.inner.revoke(p)
    }
    fn get_user_permissions(&self, q: &PermissionQuery) -> Result<Vec<UserPermission>> {
        if !self.is_self(q.user.as_deref()) {
            let object = q.scope.as_ref().map(object_of).unwrap_or(Object::Global);
            self.guard.check(Op::GetUserPermissions, &object)?;
        }
        self.inner.get_user_permissions(q)
    }
    fn has_user_permissions(&self, user: &str, wanted: &[UserPermission]) -> Result<Vec<bool>> {
        if !self.is_self(Some(user)) {
            for w in wanted {
                self.guard
                    .check(Op::GetUserPermissions, &object_of(&w.scope))?;
            }
            return self.inner.has_user_permissions(user, wanted);
        }
        // The principal itself: its groups' grants count too.
        let grants = self.guard.grants.grants()?;
        let me = &self.guard.principal();
        Ok(wanted
            .iter()
            .map(|w| {
                self.guard.checker.is_superuser(me)
                    || grants
                        .iter()
                        .filter(|g| names(me, &g.user) && g.scope.covers(&w.scope))
                        .fold(Actions::NONE, |a, g| a.union(g.actions))
                        .contains_all(w.actions)
            })
            .collect())
    }
}
