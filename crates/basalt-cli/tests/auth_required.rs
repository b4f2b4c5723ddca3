//! `basalt standalone --auth`: every gRPC method of every service answers a call without
//! credentials, or with wrong ones, with UNAUTHENTICATED; the first superuser is made
//! locally with `basalt user add --data-dir`; the shell works with `--user` and
//! `BASALT_PASSWORD`; wrong passwords are counted and then refused unchecked; tokens work.

use crate::support;
use support::user;

use basalt_api::Connection;
use basalt_client::{ClientConfig, Credentials, RemoteConnection};
use support::grpc::raw_call;
use support::{basalt, start_with, stop};

#[test]
fn with_auth_required_every_method_refuses_calls_without_valid_credentials() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert!(
        user(dir.path(), &["add", "admin", "--superuser"], "s3cret\n")
            .contains("added user admin (superuser)")
    );
    user(dir.path(), &["add", "bob"], "bobpw\n");
    let listed = user(dir.path(), &["list"], "");
    assert!(
        listed.contains("admin\ttrue")
            && listed.contains("bob\tfalse")
            && listed.contains("2 user(s)"),
        "{listed}"
    );
    let token = user(dir.path(), &["token", "bob", "--ttl", "1h"], "")
        .trim()
        .to_string();
    assert!(token.starts_with("bst_"), "{token}");

    let running = start_with(dir.path(), &["--auth"]);
    let mut on: Vec<&str> = running.sidecars.keys().map(String::as_str).collect();
    on.sort();
    assert_eq!(
        on,
        ["rest", "thrift", "web"],
        "REST and the web UI authenticate, Thrift with SASL PLAIN; gateways that cannot stay off"
    );
    let methods = basalt_proto::grpc_methods();
    assert!(methods.len() > 40, "{methods:?}");
    for service in [
        "TableService",
        "AdminService",
        "MasterService",
        "RegionServerService",
        "UserService",
    ] {
        assert!(
            methods.iter().any(|m| m.contains(service)),
            "{service} in {methods:?}"
        );
    }
    // A non-loopback-looking bogus header from many methods would throttle this address:
    // wrong credentials are tried on a few methods only, missing ones on all.
    for path in &methods {
        assert_eq!(
            raw_call(&running.addr, path, None),
            tonic::Code::Unauthenticated,
            "{path} without credentials"
        );
    }
    let forged = Credentials::Token("bst_forged".into()).header_value();
    assert_eq!(
        raw_call(&running.addr, methods[0], Some(&forged)),
        tonic::Code::Unauthenticated
    );
    // A user's valid token opens the table and admin services (each call then checked
    // by the ACLs), never the master's and region servers' own methods.
    let bobs = Credentials::Token(token.clone()).header_value();
    for path in methods.iter().filter(|p| p.contains("RegionServerService")) {
        assert_eq!(
            raw_call(&running.addr, path, Some(&bobs)),
            tonic::Code::PermissionDenied,
            "{path} as bob"
        );
    }
    assert_eq!(
        raw_call(
            &running.addr,
            "/basalt.v1.MasterService/RegionServerStartup",
            Some(&bobs)
        ),
        tonic::Code::PermissionDenied
    );
    assert_ne!(
        raw_call(
            &running.addr,
            "/basalt.v1.MasterService/GetClusterInfo",
            Some(&bobs)
        ),
        tonic::Code::PermissionDenied
    );
    let garbage = "Digest nonsense";
    assert_eq!(
        raw_call(&running.addr, methods[1], Some(garbage)),
        tonic::Code::Unauthenticated
    );

    // The plain client without credentials gets a clear, unretried error.
    let err = RemoteConnection::connect(&running.addr)
        .and_then(|c| c.admin().list_tables(None))
        .expect_err("unauthenticated");
    assert!(err.to_string().contains("AccessControlException"), "{err}");

    // With a password, and with a token, calls work.
    let config = ClientConfig::default().with_credentials(Credentials::Password {
        user: "admin".into(),
        password: "s3cret".into(),
    });
    let admin = RemoteConnection::connect_with(&running.addr, config).expect("connect as admin");
    admin.admin().list_tables(None).expect("admin lists tables");
    let by_token = RemoteConnection::connect_with(
        &running.addr,
        ClientConfig::default().with_credentials(Credentials::Token(token)),
    )
    .expect("connect with a token");
    by_token.admin().list_tables(None).expect("a token works");

    // The shell with --user and BASALT_PASSWORD.
    let text = support::shell::run_script_with_env(
        &["--connect", &running.addr, "--user", "admin", "-n"],
        "create 't1', 'f'\nput 't1', 'r1', 'f:q', 'v'\nget 't1', 'r1'\n",
        &[("BASALT_PASSWORD", "s3cret")],
    );
    assert!(text.contains("value=v"), "{text}");
    stop(running);

    // The audit log recorded the refusals and the successes.
    let audit = std::fs::read_to_string(dir.path().join("audit.log")).expect("audit log");
    assert!(
        audit.contains("auth-failed") && audit.contains("authenticated"),
        "{audit}"
    );
    assert!(
        audit.contains("user=\"admin\"") || audit.contains("user=admin"),
        "{audit}"
    );
}

#[test]
fn wrong_passwords_are_counted_and_then_refused_unchecked() {
    let dir = tempfile::tempdir().expect("tempdir");
    user(dir.path(), &["add", "alice"], "right\n");
    let config_file = dir.path().join("basalt.toml");
    std::fs::write(
        &config_file,
        "[security]\nauth = \"required\"\nfree_failures = 2\nfailure_backoff_ms = 600000\n",
    )
    .expect("config");
    let running = start_with(
        dir.path(),
        &["--config", config_file.to_str().expect("utf-8")],
    );
    let basic = |password: &str| {
        Credentials::Password {
            user: "alice".into(),
            password: password.into(),
        }
        .header_value()
    };
    let path = "/basalt.v1.AdminService/ListTables";
    assert!(basalt_proto::grpc_methods().contains(&path), "{path}");
    for _ in 0..3 {
        assert_eq!(
            raw_call(&running.addr, path, Some(&basic("wrong"))),
            tonic::Code::Unauthenticated
        );
    }
    // Closed for 10 minutes now: even the right password is refused without a check.
    let config = ClientConfig::default().with_credentials(Credentials::Password {
        user: "alice".into(),
        password: "right".into(),
    });
    let config = ClientConfig {
        retries_max: 0,
        ..config
    };
    let err = RemoteConnection::connect_with(&running.addr, config)
        .and_then(|c| c.admin().list_tables(None))
        .expect_err("throttled");
    assert!(
        err.to_string()
            .contains("too many failed authentication attempts"),
        "{err}"
    );
    stop(running);
    let audit = std::fs::read_to_string(dir.path().join("audit.log")).expect("audit log");
    assert_eq!(
        audit.matches("wrong user name or password").count(),
        3,
        "{audit}"
    );
}

#[test]
fn user_passwd_and_remove_round_trip_and_bad_input_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    user(dir.path(), &["add", "carol"], "one\n");
    let dup = basalt(
        &[
            "user",
            "add",
            "carol",
            "--data-dir",
            dir.path().to_str().expect("utf-8"),
        ],
        "two\n",
    );
    assert!(!dup.status.success());
    assert!(String::from_utf8_lossy(&dup.stderr).contains("exists"));
    let bad = basalt(
        &[
            "user",
            "add",
            "@ops",
            "--data-dir",
            dir.path().to_str().expect("utf-8"),
        ],
        "x\n",
    );
    assert!(String::from_utf8_lossy(&bad.stderr).contains("may not start with '@'"));
    user(dir.path(), &["passwd", "carol"], "two\n");
    let running = start_with(dir.path(), &["--auth"]);
    let as_carol = |password: &str| {
        RemoteConnection::connect_with(
            &running.addr,
            ClientConfig::default().with_credentials(Credentials::Password {
                user: "carol".into(),
                password: password.into(),
            }),
        )
        .and_then(|c| c.admin().list_tables(None))
    };
    as_carol("two").expect("the new password works");
    assert!(as_carol("one").is_err(), "the old one does not");
    stop(running);
    assert!(user(dir.path(), &["remove", "carol"], "").contains("removed user carol"));
    assert!(user(dir.path(), &["list"], "").contains("0 user(s)"));
}
