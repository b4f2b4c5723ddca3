//! Reads under family and qualifier grants are filtered, as HBase's AccessControlFilter
//! does; W does not imply R; `hbase:meta` is readable by everyone; group grants apply to
//! members; a table's creator owns it; grants survive a restart and go with their table.

use basalt_acl::{AdminGrants, AuthorizedConnection, Checker};
use basalt_api::{
    Actions, AuthMethod, Connection, PermissionQuery, PreSplit, Principal, Scope, UserPermission,
};
use basalt_db::{Database, DbConfig, EmbeddedConnection};
use basalt_types::{
    FamilyDescriptor, Get, NamespaceDescriptor, Put, Scan, TableDescriptor, TableName,
};
use bytes::Bytes;
use std::sync::Arc;

fn t() -> TableName {
    TableName::parse("t").expect("valid")
}

fn as_user(inner: &Arc<dyn Connection>, p: Principal) -> AuthorizedConnection {
    AuthorizedConnection::new(
        inner.clone(),
        p,
        Arc::new(Checker::new(["admin".to_string(), "@wheel".to_string()])),
        Arc::new(AdminGrants(inner.admin())),
    )
}

fn user(name: &str) -> Principal {
    Principal::new(name, AuthMethod::Simple)
}

fn open(dir: &std::path::Path) -> Arc<dyn Connection> {
    let db = Database::open(dir, DbConfig::default()).expect("open");
    let conn: Arc<dyn Connection> = Arc::new(EmbeddedConnection::new(db));
    let admin = conn.admin();
    if !admin.table_exists(&t()).expect("exists") {
        let fams = ["f", "g"]
            .map(|f| FamilyDescriptor::new(f).expect("family"))
            .to_vec();
        admin
            .create_table(&TableDescriptor::new(t(), fams), &PreSplit::None)
            .expect("create");
        let table = conn.table(&t()).expect("table");
        table
            .put(
                &Put::new("r1")
                    .add("f", "a", "1")
                    .add("f", "b", "2")
                    .add("g", "c", "3"),
            )
            .expect("put");
        table.put(&Put::new("r2").add("g", "c", "4")).expect("put");
    }
    conn
}

fn grant(conn: &Arc<dyn Connection>, who: &str, scope: Scope, letters: &str) {
    let p = UserPermission::new(who, scope, Actions::parse(letters).expect("letters"));
    conn.admin().grant(&p).expect("grant");
}

fn family(f: &str, q: Option<&str>) -> Scope {
    Scope::Table {
        table: t(),
        family: Some(Bytes::copy_from_slice(f.as_bytes())),
        qualifier: q.map(|q| Bytes::copy_from_slice(q.as_bytes())),
    }
}

fn columns(conn: &AuthorizedConnection, row: &str) -> Vec<String> {
    let r = conn
        .table(&t())
        .expect("table")
        .get(&Get::new(row.to_string()))
        .expect("get");
    r.cells
        .iter()
        .map(|c| {
            format!(
                "{}:{}",
                String::from_utf8_lossy(c.family()),
                String::from_utf8_lossy(c.qualifier())
            )
        })
        .collect()
}

#[test]
fn family_and_qualifier_grants_filter_gets_and_scans() {
    let dir = tempfile::tempdir().expect("dir");
    let conn = open(dir.path());
    grant(&conn, "fam", family("f", None), "R");
    grant(&conn, "col", family("g", Some("c")), "R");
    grant(&conn, "tab", Scope::table(t()), "R");
    assert_eq!(columns(&as_user(&conn, user("fam")), "r1"), ["f:a", "f:b"]);
    assert_eq!(columns(&as_user(&conn, user("col")), "r1"), ["g:c"]);
    assert_eq!(
        columns(&as_user(&conn, user("tab")), "r1"),
        ["f:a", "f:b", "g:c"]
    );
    let scanned: Vec<_> = as_user(&conn, user("fam"))
        .table(&t())
        .expect("table")
        .scan(&Scan::new())
        .expect("scan")
        .collect::<Result<_, _>>()
        .expect("rows");
    assert_eq!(
        scanned.len(),
        1,
        "r2 holds no f cell, so the scan leaves it out"
    );
    let exists = as_user(&conn, user("fam"))
        .table(&t())
        .expect("t")
        .exists(&Get::new("r2"));
    assert_eq!(exists, Ok(false), "r2's only cell is not readable by fam");
}

#[test]
fn write_does_not_imply_read_and_the_denial_names_user_table_and_action() {
    let dir = tempfile::tempdir().expect("dir");
    let conn = open(dir.path());
    grant(&conn, "writer", Scope::table(t()), "W");
    let w = as_user(&conn, user("writer"));
    w.table(&t())
        .expect("t")
        .put(&Put::new("r9").add("f", "a", "x"))
        .expect("W allows put");
    let e = w
        .table(&t())
        .expect("t")
        .get(&Get::new("r9"))
        .expect_err("W is not R");
    assert_eq!(e.short_name(), "AccessDeniedException");
    assert_eq!(
        e.message,
        "Insufficient permissions for user 'writer' (table=t, action=READ)"
    );
    w.table(&t())
        .expect("t")
        .put(&Put::new("r9").add("g", "q", "x"))
        .expect("table-level W covers every family");
    grant(&conn, "fw", family("f", None), "W");
    let e = as_user(&conn, user("fw"))
        .table(&t())
        .expect("t")
        .put(&Put::new("r9").add("g", "q", "x"))
        .expect_err("W on f only");
    assert_eq!(
        e.message,
        "Insufficient permissions for user 'fw' (table=t, family=g:q, action=WRITE)"
    );
}

#[test]
fn meta_is_readable_by_everyone_and_superuser_groups_and_user_groups_apply() {
    let dir = tempfile::tempdir().expect("dir");
    let conn = open(dir.path());
    let nobody = as_user(&conn, user("nobody"));
    let meta = TableName::parse("hbase:meta").expect("meta");
    let rows = nobody
        .table(&meta)
        .expect("meta")
        .scan(&Scan::new())
        .expect("scan")
        .count();
    assert!(rows > 0, "hbase:meta lists the table");
    let wheel = user("root2").with_groups(["wheel".to_string()]);
    as_user(&conn, wheel)
        .admin()
        .create_namespace(&NamespaceDescriptor::new("ops").expect("ns"))
        .expect("a member of the superuser group @wheel");
    grant(&conn, "@readers", Scope::Global, "R");
    let member = user("carol").with_groups(["readers".to_string()]);
    assert_eq!(columns(&as_user(&conn, member), "r1").len(), 3);
    assert!(nobody.admin().list_tables(None).expect("list").is_empty());
}

#[test]
fn creator_owns_its_table_and_grants_survive_restart_and_go_with_the_table() {
    let dir = tempfile::tempdir().expect("dir");
    {
        let conn = open(dir.path());
        grant(&conn, "maker", Scope::Namespace("default".into()), "C");
        let maker = as_user(&conn, user("maker"));
        let name = TableName::parse("mine").expect("name");
        let d = TableDescriptor::new(name.clone(), vec![FamilyDescriptor::new("f").expect("f")]);
        maker
            .admin()
            .create_table(&d, &PreSplit::None)
            .expect("C at the namespace");
        maker
            .table(&name)
            .expect("t")
            .put(&Put::new("r").add("f", "q", "v"))
            .expect("owner writes");
        grant(&conn, "bob", family("f", Some("a")), "RW");
    }
    let conn = open(dir.path());
    let all = conn
        .admin()
        .get_user_permissions(&PermissionQuery::default())
        .expect("list");
    let text: Vec<String> = all
        .iter()
        .map(|p| format!("{} {} {}", p.user, p.scope, p.actions))
        .collect();
    assert_eq!(
        text,
        ["maker @default C", "maker mine RWXCA", "bob t, f:a RW"]
    );
    conn.admin().disable_table(&t()).expect("disable");
    conn.admin().delete_table(&t()).expect("delete");
    let left = conn
        .admin()
        .get_user_permissions(&PermissionQuery::default())
        .expect("list");
    assert_eq!(left.len(), 2, "bob's grant went with table t: {left:?}");
}
