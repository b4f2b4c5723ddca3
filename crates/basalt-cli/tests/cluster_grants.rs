//! A cluster with authentication required checks HBase's ACLs where the data is served:
//! a region server refuses a user's read or write his grants do not allow, follows a
//! grant or revoke made through the master within moments (its watched copy of the
//! grants in etcd), and keeps its own service (open, close, reports) to the cluster's
//! servers and superusers. The master checks DDL and `balance` the same way.

use crate::support;
use basalt_api::{Actions, Connection, Scope, UserPermission};
use basalt_client::{ClientConfig, Credentials, RemoteConnection};
use basalt_types::{Get, Put};
use std::time::{Duration, Instant};
use support::cluster::Cluster;
use support::grpc::raw_call;
use support::tables::{create, fill, row, table_name, with_logs};

const SECRET: &str = "cluster-grants-secret";

/// `basalt user ARGS --coordinator …` against the cluster's etcd.
fn user(cluster: &Cluster, args: &[&str], stdin: &str) -> String {
    let coordinator = cluster.coordinator();
    let all: Vec<&str> = ["user"]
        .iter()
        .chain(args)
        .chain(&["--coordinator", coordinator.as_str()])
        .copied()
        .collect();
    let out = support::basalt(&all, stdin);
    assert!(
        out.status.success(),
        "basalt {all:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn connect_as(cluster: &Cluster, user: &str, password: &str) -> RemoteConnection {
    let config = ClientConfig {
        retries_max: 2,
        ..ClientConfig::default().with_credentials(Credentials::Password {
            user: user.into(),
            password: password.into(),
        })
    };
    RemoteConnection::connect_with(&cluster.masters_arg(), config).expect("connect")
}

/// Waits (up to 20 s) until `check` answers true: a grant reaches the servers' copies.
fn eventually(what: &str, check: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !check() {
        assert!(Instant::now() < deadline, "{what}: not within 20 s");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn region_servers_check_reads_and_writes_against_the_grants_they_follow() {
    let files = tempfile::tempdir().expect("tempdir");
    let config = files.path().join("basalt.toml");
    std::fs::write(
        &config,
        format!("[security]\nauth = \"required\"\ncluster_secret = \"{SECRET}\"\n"),
    )
    .expect("config");
    let cluster = Cluster::start_secured(1, 2, &config, SECRET);
    with_logs(&cluster, || {
        user(&cluster, &["add", "admin", "--superuser"], "adminpw\n");
        user(&cluster, &["add", "bob"], "bobpw\n");
        let admin = connect_as(&cluster, "admin", "adminpw");
        create(&admin, "g", 4);
        fill(&admin, "g", 40);
        let bob = connect_as(&cluster, "bob", "bobpw");
        let t = table_name("g");
        let read = |i: u64| bob.table(&t).and_then(|table| table.get(&Get::new(row(i))));
        let write = |i: u64| {
            bob.table(&t)
                .and_then(|table| table.put(&Put::new(row(i)).add("f", "q", "bob")))
        };

        // Nothing granted: every region (on both servers) refuses him.
        for i in 0..40 {
            let err = read(i).expect_err("bob holds no grant");
            assert!(
                err.to_string().contains("AccessDeniedException")
                    && err.to_string().contains("'bob'"),
                "row {i}: {err}"
            );
        }
        let err = bob.admin().balance().expect_err("balance needs global A");
        assert!(err.to_string().contains("AccessDeniedException"), "{err}");

        // R on the table, granted through the master, reaches each server's copy.
        let r = UserPermission::new(
            "bob",
            Scope::table(t.clone()),
            Actions::parse("R").expect("R"),
        );
        admin.admin().grant(&r).expect("grant");
        eventually("bob reads every row after the grant", || {
            (0..40).all(|i| read(i).is_ok_and(|got| got.value(b"f", b"q").is_some()))
        });
        let err = write(1).expect_err("R alone does not write");
        assert!(err.to_string().contains("action=WRITE"), "{err}");

        // Revoked: refused again, everywhere.
        admin.admin().revoke(&r).expect("revoke");
        eventually("bob is refused every row after the revoke", || {
            (0..40).all(|i| read(i).is_err())
        });

        // The servers' own service: closed to bob, open to the cluster's secret.
        let server = &cluster.servers[0].addr;
        let report = "/basalt.v1.RegionServerService/GetServerReport";
        let bobs = Credentials::Password {
            user: "bob".into(),
            password: "bobpw".into(),
        }
        .header_value();
        assert_eq!(
            raw_call(server, report, Some(&bobs)),
            tonic::Code::PermissionDenied
        );
        let secret = Credentials::ClusterSecret(SECRET.into()).header_value();
        assert_eq!(raw_call(server, report, Some(&secret)), tonic::Code::Ok);
    });
}
