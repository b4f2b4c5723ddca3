//! `basalt user … --connect` through a running server, and the one-time bootstrap token:
//! a fresh `standalone --auth` prints a token; it adds the first superuser once (a wrong
//! token and the same token again are refused); that superuser adds alice through the
//! server; alice may change her own password and issue herself a token, but not add users
//! nor change the admin's password; a restart with a superuser prints no token. A cluster's
//! master does the same, and the user it adds signs in at a region server.

use crate::support;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::cluster::Cluster;
use support::tables::{create, fill, row, table_name, with_logs};

/// Cheap password hashes (each add, passwd and sign-in derives one), and no cache of
/// verified passwords, so that a changed one counts at once.
const FAST: &str = "[security]\npassword_iterations = 1000\ncredential_cache_ms = 0\n";

/// `basalt user ARGS` with `env` set and `stdin` piped in.
fn user(args: &[&str], env: &[(&str, &str)], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .arg("user")
        .args(args)
        .env_remove("BASALT_PASSWORD")
        .env_remove("BASALT_BOOTSTRAP_TOKEN")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn basalt user");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin.as_bytes()).expect("write stdin");
    drop(input);
    child.wait_with_output().expect("basalt user runs")
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "expected success: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn refused(out: &Output, says: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "expected a refusal: {err}");
    assert!(err.contains(says), "expected '{says}': {err}");
}

/// The bootstrap token a server printed in its log, waiting (up to 20 s) for it.
fn printed_token(log: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if let Some(rest) = text.split("--bootstrap-token ").nth(1) {
            return rest.split_whitespace().next().expect("a token").to_string();
        }
        assert!(
            Instant::now() < deadline,
            "no bootstrap token printed: {text}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs `body` against `server`, then stops it: also when `body` panics (the server is
/// killed, so that no process outlives the test).
fn serving<T>(mut server: support::Running, body: impl FnOnce(&str) -> T) -> T {
    let addr = server.addr.clone();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&addr))) {
        Ok(done) => {
            support::stop(server);
            done
        }
        Err(panic) => {
            let _ = server.child.kill();
            let _ = server.child.wait();
            std::panic::resume_unwind(panic)
        }
    }
}

#[test]
fn the_bootstrap_token_adds_the_first_superuser_once_then_users_are_managed_through_the_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = tempfile::tempdir().expect("tempdir");
    let config = files.path().join("basalt.toml");
    std::fs::write(&config, FAST).expect("config");
    let config = config.to_str().expect("utf-8 path");
    let log = files.path().join("server.log");
    let server = support::start_logging_to(
        dir.path(),
        &["--auth", "--config", config],
        std::fs::File::create(&log).expect("log file"),
    );
    let addr = server.addr.clone();
    let token = printed_token(&log);
    assert!(token.starts_with("bst_"), "{token}");
    let logged = std::fs::read_to_string(&log).expect("log");
    assert!(
        logged.contains(&format!(
            "basalt user add admin --superuser --connect {addr} --bootstrap-token {token}"
        )),
        "{logged}"
    );

    let bootstrap = |name: &str, token: &str| {
        user(
            &[
                "add",
                name,
                "--superuser",
                "--connect",
                &addr,
                "--bootstrap-token",
                token,
            ],
            &[],
            "adminpw\n",
        )
    };
    refused(&bootstrap("admin", "bst_wrong"), "wrong token");
    let added = ok(&bootstrap("admin", &token));
    assert!(added.contains("added user admin (superuser)"), "{added}");
    refused(&bootstrap("admin2", &token), "bootstrap token refused");
    // Without credentials nothing else is open.
    refused(
        &user(&["list", "--connect", &addr], &[], ""),
        "--connect needs --user",
    );

    let admin = [("BASALT_PASSWORD", "adminpw")];
    let as_admin = ["--connect", addr.as_str(), "--user", "admin"];
    let add_alice: Vec<&str> = ["add", "alice"].iter().chain(&as_admin).copied().collect();
    ok(&user(&add_alice, &admin, "alicepw\n"));
    let list: Vec<&str> = ["list"].iter().chain(&as_admin).copied().collect();
    let listed = ok(&user(&list, &admin, ""));
    assert_eq!(
        listed,
        "USER\tSUPERUSER\nadmin\ttrue\nalice\tfalse\n2 user(s)\n"
    );

    // Alice: her own password and tokens, nothing else.
    let as_alice = ["--connect", addr.as_str(), "--user", "alice"];
    let alice_does = |action: &[&str], password: &str, stdin: &str| {
        let args: Vec<&str> = action.iter().chain(&as_alice).copied().collect();
        user(&args, &[("BASALT_PASSWORD", password)], stdin)
    };
    ok(&alice_does(&["passwd", "alice"], "alicepw", "alicepw2\n"));
    refused(
        &alice_does(&["list"], "alicepw", ""),
        "authentication failed",
    );
    let issued = ok(&alice_does(
        &["token", "alice", "--ttl", "1h"],
        "alicepw2",
        "",
    ));
    assert!(issued.trim().starts_with("bst_"), "{issued}");
    refused(
        &alice_does(&["add", "bob"], "alicepw2", "bobpw\n"),
        "AccessDeniedException",
    );
    refused(
        &alice_does(&["passwd", "admin"], "alicepw2", "hijacked\n"),
        "Insufficient permissions for user 'alice'",
    );
    refused(
        &alice_does(&["token", "admin"], "alicepw2", ""),
        "AccessDeniedException",
    );
    // Her token signs her in (and is refused the listing as she is).
    let token_file = files.path().join("alice.token");
    std::fs::write(&token_file, issued.trim()).expect("token file");
    let by_token = user(
        &[
            "list",
            "--connect",
            &addr,
            "--token-file",
            token_file.to_str().expect("utf-8"),
        ],
        &[],
        "",
    );
    refused(
        &by_token,
        "Insufficient permissions for user 'alice' (ListUsers",
    );
    support::stop(server);

    // A restart with a superuser present prints no token.
    let log2 = files.path().join("server2.log");
    let server = support::start_logging_to(
        dir.path(),
        &["--auth", "--config", config],
        std::fs::File::create(&log2).expect("log file"),
    );
    serving(server, |addr| {
        let as_admin = ["list", "--connect", addr, "--user", "admin"];
        let listed = ok(&user(&as_admin, &[("BASALT_PASSWORD", "adminpw")], ""));
        assert!(listed.contains("2 user(s)"), "{listed}");
    });
    let logged = std::fs::read_to_string(&log2).expect("log");
    assert!(!logged.contains("--bootstrap-token"), "{logged}");
}

#[test]
fn without_authentication_the_user_service_refuses_and_names_data_dir() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A real user (its password is still checked when presented), on a server without
    // authentication required.
    support::user(dir.path(), &["add", "admin", "--superuser"], "adminpw\n");
    let server = support::start(dir.path());
    let out = serving(server, |addr| {
        user(
            &["list", "--connect", addr, "--user", "admin"],
            &[("BASALT_PASSWORD", "adminpw")],
            "",
        )
    });
    refused(&out, "user management needs [security] auth = \"required\"");
    refused(&out, "--data-dir");
}

#[test]
fn a_cluster_master_prints_the_token_and_its_users_sign_in_at_region_servers() {
    const SECRET: &str = "user-connect-secret";
    let files = tempfile::tempdir().expect("tempdir");
    let config = files.path().join("basalt.toml");
    std::fs::write(
        &config,
        format!("[security]\nauth = \"required\"\ncluster_secret = \"{SECRET}\"\npassword_iterations = 1000\n"),
    )
    .expect("config");
    let cluster = Cluster::start_secured(1, 1, &config, SECRET);
    with_logs(&cluster, || {
        let masters = cluster.masters_arg();
        let token = printed_token(&cluster.masters[0].log);
        let args = [
            "add",
            "admin",
            "--superuser",
            "--connect",
            &masters,
            "--bootstrap-token",
            &token,
        ];
        ok(&user(&args, &[], "adminpw\n"));
        refused(&user(&args, &[], "adminpw\n"), "bootstrap token refused");
        let admin = [("BASALT_PASSWORD", "adminpw")];
        let add = ["add", "carol", "--connect", &masters, "--user", "admin"];
        ok(&user(&add, &admin, "carolpw\n"));

        // Carol signs in at the region server holding the rows: refused by her grants,
        // not by authentication; a wrong password is refused as such.
        let connect = |password: &str| {
            let config = basalt_client::ClientConfig {
                retries_max: 1,
                ..basalt_client::ClientConfig::default().with_credentials(
                    basalt_client::Credentials::Password {
                        user: "carol".into(),
                        password: password.into(),
                    },
                )
            };
            basalt_client::RemoteConnection::connect_with(&masters, config)
        };
        let superuser = basalt_client::RemoteConnection::connect_with(
            &masters,
            basalt_client::ClientConfig::default().with_credentials(
                basalt_client::Credentials::Password {
                    user: "admin".into(),
                    password: "adminpw".into(),
                },
            ),
        )
        .expect("admin connects");
        create(&superuser, "u", 1);
        fill(&superuser, "u", 3);
        let carol = connect("carolpw").expect("carol connects");
        use basalt_api::Connection;
        let read = carol
            .table(&table_name("u"))
            .and_then(|t| t.get(&basalt_types::Get::new(row(1))));
        let err = read.expect_err("carol holds no grant").to_string();
        assert!(
            err.contains("AccessDeniedException") && err.contains("'carol'"),
            "{err}"
        );
        let wrong = connect("wrong").map(|_| ()).expect_err("a wrong password");
        assert!(
            wrong.to_string().contains("authentication failed"),
            "{wrong}"
        );
    });
}
