//! The cluster secret rotated without a restart: every server reads its secrets from
//! `[security] cluster_secret_file` (one per line, the first presented, every one
//! accepted) and follows the file. The three steps of a rotation — add the new secret
//! second, move it first, drop the old — leave the cluster serving throughout: regions
//! still move (the master's calls to the region servers present the secret), every row
//! reads back, and at the end the old secret is refused (once the credential cache,
//! shortened here, forgets it) and the new one accepted.

use crate::support;
use basalt_api::Connection;
use basalt_client::{ClientConfig, Credentials, RemoteConnection};
use basalt_types::Get;
use std::path::Path;
use std::time::Duration;
use support::cluster::Cluster;
use support::grpc::raw_call;
use support::tables::{create, fill, row, table_name, with_logs};

const REPORT: &str = "/basalt.v1.RegionServerService/GetServerReport";

fn secret(value: &str) -> String {
    Credentials::ClusterSecret(value.into()).header_value()
}

/// Replaces `file` whole (written beside, renamed over), then waits past the servers'
/// once-a-second look at it.
fn rewrite(file: &Path, text: &str) {
    let next = file.with_extension("next");
    std::fs::write(&next, text).expect("write");
    std::fs::rename(&next, file).expect("rename");
    std::thread::sleep(Duration::from_millis(1500));
}

/// Moves every region of `g` to another server, then reads every row back.
fn moves_and_reads(admin: &RemoteConnection, cluster: &Cluster, step: &str) {
    let t = table_name("g");
    for region in admin.admin().list_regions(&t).expect("regions") {
        let to = cluster
            .servers
            .iter()
            .map(|s| s.name.as_str())
            .find(|s| *s != region.server);
        admin
            .admin()
            .move_region(&region.encoded_name, to)
            .unwrap_or_else(|e| panic!("{step}: moving {}: {e}", region.encoded_name));
    }
    let table = admin.table(&t).expect("table");
    for i in 0..40 {
        let got = table.get(&Get::new(row(i))).expect("a read");
        assert!(got.value(b"f", b"q").is_some(), "{step}: row {i} is gone");
    }
}

#[test]
fn a_cluster_secret_rotated_in_three_steps_keeps_the_cluster_serving_and_retires_the_old() {
    let files = tempfile::tempdir().expect("tempdir");
    let secrets = files.path().join("cluster.secret");
    std::fs::write(&secrets, "old-secret\n").expect("secret file");
    let config = files.path().join("basalt.toml");
    std::fs::write(
        &config,
        format!(
            "[security]\nauth = \"required\"\ncluster_secret_file = {secrets:?}\ncredential_cache_ms = 300\n"
        ),
    )
    .expect("config");
    let cluster = Cluster::start_secured(1, 2, &config, "old-secret");
    with_logs(&cluster, || {
        let coordinator = cluster.coordinator();
        let out = support::basalt(
            &[
                "user",
                "add",
                "admin",
                "--superuser",
                "--coordinator",
                &coordinator,
            ],
            "adminpw\n",
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let as_admin = ClientConfig::default().with_credentials(Credentials::Password {
            user: "admin".into(),
            password: "adminpw".into(),
        });
        let admin = RemoteConnection::connect_with(&cluster.masters_arg(), as_admin)
            .expect("connect as admin");
        create(&admin, "g", 4);
        fill(&admin, "g", 40);
        let server = &cluster.servers[0].addr;
        assert_eq!(
            raw_call(server, REPORT, Some(&secret("old-secret"))),
            tonic::Code::Ok
        );

        // 1. The new secret second, everywhere: both accepted, the old one presented.
        rewrite(&secrets, "old-secret\nnew-secret\n");
        assert_eq!(
            raw_call(server, REPORT, Some(&secret("new-secret"))),
            tonic::Code::Ok
        );
        moves_and_reads(&admin, &cluster, "with both secrets");

        // 2. The new one first: presented from the next call on.
        rewrite(&secrets, "new-secret\nold-secret\n");
        moves_and_reads(&admin, &cluster, "presenting the new secret");

        // 3. The old one dropped: refused; the cluster serves on the new one alone.
        rewrite(&secrets, "new-secret\n");
        assert_eq!(
            raw_call(server, REPORT, Some(&secret("old-secret"))),
            tonic::Code::Unauthenticated
        );
        assert_eq!(
            raw_call(server, REPORT, Some(&secret("new-secret"))),
            tonic::Code::Ok
        );
        moves_and_reads(&admin, &cluster, "on the new secret alone");
    });
}
