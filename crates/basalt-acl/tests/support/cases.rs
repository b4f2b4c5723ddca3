//! One case per row of the ACL matrix: the object the operation acts on and a call that
//! runs it through any connection. Shared by the embedded and the gRPC matrix tests.
//!
//! The fixture: namespace `ns` with table `ns:t` (families `f`, `g`, `h`), row `r1`
//! holding `f:a`, `f:n` (a counter), `g:b`. Calls whose success changes the fixture
//! (deleting a table, a family, truncating) are run by the harness on a fixture it
//! rebuilds before each case.

#![allow(dead_code)]

use basalt_acl::{Object, Op};
use basalt_api::{
    Actions, Admin, Connection, PermissionQuery, PreSplit, Result, Scope, SlowLogQuery,
    SnapshotOptions, UserPermission,
};
use basalt_types::{
    Append, CheckAndMutate, CompareOp, Delete, FamilyDescriptor, Get, Increment, Mutation,
    NamespaceDescriptor, Put, RowMutations, Scan, TableDescriptor, TableName,
};
use bytes::Bytes;
use std::sync::atomic::{AtomicUsize, Ordering};

pub type Run = Box<dyn Fn(&dyn Connection) -> Result<()>>;

pub struct Case {
    pub op: Op,
    pub object: Object,
    pub run: Run,
}

pub fn t() -> TableName {
    TableName::parse("ns:t").expect("valid name")
}

fn column(f: &str, q: Option<&str>) -> Object {
    Object::Column {
        table: t(),
        family: Bytes::copy_from_slice(f.as_bytes()),
        qualifier: q.map(|q| Bytes::copy_from_slice(q.as_bytes())),
    }
}

fn fresh(prefix: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    format!("{prefix}{}", N.fetch_add(1, Ordering::Relaxed))
}

/// Builds the fixture (idempotent), as a superuser connection.
pub fn fixture(conn: &dyn Connection) -> Result<()> {
    let admin = conn.admin();
    if admin.describe_namespace("ns").is_err() {
        admin.create_namespace(&NamespaceDescriptor::new("ns")?)?;
    }
    if !admin.table_exists(&t())? {
        let families = ["f", "g", "h"]
            .iter()
            .map(|f| FamilyDescriptor::new(Bytes::copy_from_slice(f.as_bytes())))
            .collect::<basalt_types::Result<Vec<_>>>()?;
        admin.create_table(&TableDescriptor::new(t(), families), &PreSplit::None)?;
    }
    if !admin.is_table_enabled(&t())? {
        admin.enable_table(&t())?;
    }
    let table = conn.table(&t())?;
    table.put(&Put::new("r1").add("f", "a", "1").add("g", "b", "2"))?;
    table.put(&Put::new("r1").add("f", "n", 7i64.to_be_bytes()))?;
    Ok(())
}

fn table_call(f: impl Fn(&dyn basalt_api::Table) -> Result<()> + 'static) -> Run {
    Box::new(move |c: &dyn Connection| f(c.table(&t())?.as_ref()))
}

fn admin_call(f: impl Fn(&dyn Admin) -> Result<()> + 'static) -> Run {
    Box::new(move |c: &dyn Connection| f(c.admin().as_ref()))
}

fn case(op: Op, object: Object, run: Run) -> Case {
    Case { op, object, run }
}

fn fam(name: &str) -> FamilyDescriptor {
    FamilyDescriptor::new(Bytes::copy_from_slice(name.as_bytes())).expect("valid family")
}

/// Every row of the matrix, each once.
pub fn cases() -> Vec<Case> {
    let fa = || column("f", Some("a"));
    vec![
        case(
            Op::Get,
            fa(),
            table_call(|t| t.get(&Get::new("r1").column("f", "a")).map(drop)),
        ),
        case(
            Op::Exists,
            fa(),
            table_call(|t| t.exists(&Get::new("r1").column("f", "a")).map(drop)),
        ),
        case(
            Op::Scan,
            fa(),
            table_call(|t| {
                t.scan(&Scan::new().column("f", "a"))?
                    .collect::<Result<Vec<_>>>()
                    .map(drop)
            }),
        ),
        case(
            Op::Put,
            fa(),
            table_call(|t| t.put(&Put::new("r2").add("f", "a", "x"))),
        ),
        case(
            Op::Delete,
            fa(),
            table_call(|t| t.delete(&Delete::new("r2").columns("f", "a"))),
        ),
        case(
            Op::Increment,
            column("f", Some("n")),
            table_call(|t| {
                t.increment(&Increment::new("r1").add("f", "n", 1))
                    .map(drop)
            }),
        ),
        case(
            Op::Append,
            fa(),
            table_call(|t| t.append(&Append::new("r2").add("f", "a", "y")).map(drop)),
        ),
        case(
            Op::MutateRow,
            fa(),
            table_call(|t| {
                let put = Mutation::Put(Put::new("r3").add("f", "a", "z"));
                t.mutate_row(&RowMutations::new("r3", vec![put])?).map(drop)
            }),
        ),
        case(
            Op::CheckAndMutate,
            fa(),
            table_call(|t| {
                let put = Mutation::Put(Put::new("r1").add("f", "a", "1"));
                let c = CheckAndMutate::column(
                    "r1",
                    "f",
                    "a",
                    CompareOp::Equal,
                    Some("1".into()),
                    put,
                )?;
                t.check_and_mutate(&c).map(drop)
            }),
        ),
        case(
            Op::CreateNamespace,
            Object::Global,
            admin_call(|a| a.create_namespace(&NamespaceDescriptor::new(&fresh("made"))?)),
        ),
        case(
            Op::DeleteNamespace,
            Object::Global,
            admin_call(|a| a.delete_namespace("nothere")),
        ),
        case(
            Op::ModifyNamespace,
            Object::Global,
            admin_call(|a| a.modify_namespace(&NamespaceDescriptor::new("ns")?)),
        ),
        case(
            Op::DescribeNamespace,
            Object::Namespace("ns".into()),
            admin_call(|a| a.describe_namespace("ns").map(drop)),
        ),
        case(
            Op::ListNamespaces,
            Object::Global,
            admin_call(|a| a.list_namespaces().map(drop)),
        ),
        case(
            Op::CreateTable,
            Object::Namespace("ns".into()),
            admin_call(|a| {
                let name = TableName::new("ns", &fresh("made"))?;
                a.create_table(&TableDescriptor::new(name, vec![fam("f")]), &PreSplit::None)
            }),
        ),
        case(
            Op::DeleteTable,
            Object::Table(t()),
            admin_call(|a| {
                a.disable_table(&t()).ok();
                a.delete_table(&t())
            }),
        ),
        case(
            Op::TruncateTable,
            Object::Table(t()),
            admin_call(|a| {
                a.disable_table(&t()).ok();
                a.truncate_table(&t(), true)
            }),
        ),
        case(
            Op::ModifyTable,
            Object::Table(t()),
            admin_call(|a| {
                let d = a.describe_table(&t()).or_else(|_| {
                    Ok::<_, basalt_api::ApiError>(TableDescriptor::new(
                        t(),
                        vec![fam("f"), fam("g"), fam("h")],
                    ))
                })?;
                a.modify_table(&d)
            }),
        ),
        case(
            Op::EnableTable,
            Object::Table(t()),
            admin_call(|a| a.enable_table(&t())),
        ),
        case(
            Op::DisableTable,
            Object::Table(t()),
            admin_call(|a| a.disable_table(&t())),
        ),
        case(
            Op::DescribeTable,
            Object::Table(t()),
            admin_call(|a| a.describe_table(&t()).map(drop)),
        ),
        case(
            Op::TableExists,
            Object::Table(t()),
            admin_call(|a| a.table_exists(&t()).map(drop)),
        ),
        case(
            Op::IsTableEnabled,
            Object::Table(t()),
            admin_call(|a| a.is_table_enabled(&t()).map(drop)),
        ),
        case(
            Op::ListTables,
            Object::Global,
            admin_call(|a| a.list_tables(None).map(drop)),
        ),
        case(
            Op::AddFamily,
            column("x", None),
            admin_call(|a| a.add_family(&t(), &fam("x"))),
        ),
        case(
            Op::ModifyFamily,
            column("g", None),
            admin_call(|a| a.modify_family(&t(), &fam("g"))),
        ),
        case(
            Op::DeleteFamily,
            column("h", None),
            admin_call(|a| a.delete_family(&t(), b"h")),
        ),
        case(
            Op::ListRegions,
            Object::Table(t()),
            admin_call(|a| a.list_regions(&t()).map(drop)),
        ),
        case(
            Op::LocateRegion,
            Object::Table(t()),
            admin_call(|a| a.locate_region(&t(), b"r1").map(drop)),
        ),
        case(Op::Flush, Object::Table(t()), admin_call(|a| a.flush(&t()))),
        case(
            Op::Compact,
            Object::Table(t()),
            admin_call(|a| a.compact(&t(), false)),
        ),
        case(
            Op::FlushRegion,
            Object::Global,
            admin_call(|a| {
                let r = a.list_regions(&t())?;
                a.flush_region(r.first().map(|r| r.encoded_name.as_str()).unwrap_or("none"))
            }),
        ),
        case(
            Op::CompactRegion,
            Object::Global,
            admin_call(|a| {
                let r = a.list_regions(&t())?;
                a.compact_region(
                    r.first().map(|r| r.encoded_name.as_str()).unwrap_or("none"),
                    None,
                    false,
                )
            }),
        ),
        case(
            Op::Split,
            Object::Table(t()),
            admin_call(|a| a.split(&t(), Some(b"r2"))),
        ),
        case(
            Op::MergeRegions,
            Object::Global,
            admin_call(|a| a.merge_regions("a", "b")),
        ),
        case(
            Op::CatalogJanitor,
            Object::Global,
            admin_call(|a| a.run_catalog_janitor().map(drop)),
        ),
        case(
            Op::ClusterHealth,
            Object::Global,
            admin_call(|a| a.cluster_health().map(drop)),
        ),
        case(
            Op::MoveRegion,
            Object::Global,
            admin_call(|a| a.move_region("none", None)),
        ),
        case(
            Op::Balance,
            Object::Global,
            admin_call(|a| a.balance().map(drop)),
        ),
        case(Op::Assign, Object::Global, admin_call(|a| a.assign("none"))),
        case(
            Op::Unassign,
            Object::Global,
            admin_call(|a| a.unassign("none", false)),
        ),
        case(
            Op::BalanceSwitch,
            Object::Global,
            admin_call(|a| a.balance_switch(true).map(drop)),
        ),
        case(
            Op::BalancerEnabled,
            Object::Global,
            admin_call(|a| a.balancer_enabled().map(drop)),
        ),
        case(
            Op::ClusterStatus,
            Object::Global,
            admin_call(|a| a.cluster_status().map(drop)),
        ),
        case(
            Op::Decommission,
            Object::Global,
            admin_call(|a| {
                a.decommission_region_servers(&["none".to_string()], false)
                    .map(drop)
            }),
        ),
        case(
            Op::ListDecommissioned,
            Object::Global,
            admin_call(|a| a.list_decommissioned_region_servers().map(drop)),
        ),
        case(
            Op::Recommission,
            Object::Global,
            admin_call(|a| a.recommission_region_server("none", &[])),
        ),
        case(
            Op::ClearDeadServers,
            Object::Global,
            admin_call(|a| a.clear_dead_servers(&[]).map(drop)),
        ),
        case(
            Op::SlowLog,
            Object::Global,
            admin_call(|a| {
                a.get_slowlog_responses(&[], &SlowLogQuery::default())
                    .map(drop)
            }),
        ),
        case(
            Op::ClearSlowLog,
            Object::Global,
            admin_call(|a| a.clear_slowlog_responses(&[]).map(drop)),
        ),
        case(
            Op::Snapshot,
            Object::Table(t()),
            admin_call(|a| a.snapshot(&t(), &fresh("snap"), &SnapshotOptions::default())),
        ),
        case(
            Op::ListSnapshots,
            Object::Global,
            admin_call(|a| a.list_snapshots(None).map(drop)),
        ),
        case(
            Op::DeleteSnapshot,
            Object::Global,
            admin_call(|a| a.delete_snapshot("nothere")),
        ),
        case(
            Op::CloneSnapshot,
            Object::Global,
            admin_call(|a| a.clone_snapshot("nothere", &TableName::new("ns", &fresh("clone"))?)),
        ),
        case(
            Op::RestoreSnapshot,
            Object::Global,
            admin_call(|a| a.restore_snapshot("nothere")),
        ),
        case(
            Op::Grant,
            Object::Table(t()),
            admin_call(|a| {
                a.grant(&UserPermission::new(
                    "someone",
                    Scope::table(t()),
                    Actions::parse("R").expect("R"),
                ))
            }),
        ),
        case(
            Op::Revoke,
            Object::Table(t()),
            admin_call(|a| {
                a.revoke(&UserPermission::new(
                    "someone",
                    Scope::table(t()),
                    Actions::NONE,
                ))
            }),
        ),
        case(
            Op::GetUserPermissions,
            Object::Table(t()),
            admin_call(|a| {
                let q = PermissionQuery {
                    scope: Some(Scope::table(t())),
                    user: None,
                };
                a.get_user_permissions(&q).map(drop)
            }),
        ),
    ]
}

/// The scope of `object` at which a grant makes the alternative at `level` apply.
pub fn scope_for(object: &Object, level: basalt_acl::Level) -> Option<Scope> {
    object.scope_at(level)
}
