//! `basalt standalone --auth` keeps the REST gateway on, authenticating every request:
//! every endpoint answers a request without credentials with 401 and the challenge, and
//! nothing else; Basic and Bearer work (also through the npm `hbase` client); requests
//! run as their user, so HBase's ACLs refuse a read until a grant; another user's
//! scanner id is not found, 10,000 times; a wrong Host and a cross-origin write are
//! refused.

use crate::support;
use support::user;

use std::path::{Path, PathBuf};
use support::http::{request, Answer, KeepAlive};
use support::shell::run_script;
use support::{start_logging_to, stop};

/// A day-long token of `name`, in a file; its text and the file.
fn token(dir: &Path, files: &Path, name: &str) -> (String, PathBuf) {
    let token = user(dir, &["token", name, "--ttl", "1d"], "")
        .trim()
        .to_string();
    let path = files.join(format!("{name}.token"));
    std::fs::write(&path, &token).expect("write the token file");
    (token, path)
}

/// `Basic base64(user:password)`.
fn basic(user: &str, password: &str) -> String {
    basalt_auth::Credentials::Password {
        user: user.into(),
        password: password.into(),
    }
    .header_value()
}

/// Every resource of the gateway, with each method it answers.
const ENDPOINTS: &[(&str, &str)] = &[
    ("GET", "/"),
    ("GET", "/version"),
    ("GET", "/version/rest"),
    ("GET", "/version/cluster"),
    ("GET", "/status/cluster"),
    ("GET", "/namespaces"),
    ("GET", "/namespaces/default"),
    ("GET", "/namespaces/default/tables"),
    ("POST", "/namespaces/ns9"),
    ("PUT", "/namespaces/ns9"),
    ("DELETE", "/namespaces/ns9"),
    ("GET", "/t1/schema"),
    ("PUT", "/t1/schema"),
    ("POST", "/t1/schema"),
    ("DELETE", "/t1/schema"),
    ("GET", "/t1/regions"),
    ("GET", "/t1/exists"),
    ("PUT", "/t1/scanner"),
    ("POST", "/t1/scanner"),
    ("GET", "/t1/scanner/0123456789abcdef01234567"),
    ("DELETE", "/t1/scanner/0123456789abcdef01234567"),
    ("GET", "/t1/multiget?row=r1"),
    ("GET", "/t1/*"),
    ("GET", "/t1/r1"),
    ("GET", "/t1/r1/f:q"),
    ("PUT", "/t1/r1/f:q"),
    ("POST", "/t1/r1/f:q"),
    ("DELETE", "/t1/r1"),
    ("PUT", "/t1/r1?check=put"),
    ("POST", "/t1/r1?check=increment"),
    ("OPTIONS", "/t1/r1"),
    ("GET", "/no/such/resource"),
];

/// A refusal of authentication: 401, the challenge, one line of reason, no CORS.
fn challenged(answer: &Answer, what: &str) {
    assert_eq!(answer.status, 401, "{what}: {answer:?}");
    assert_eq!(
        answer.header("www-authenticate"),
        Some("Basic realm=\"basalt\""),
        "{what}: {answer:?}"
    );
    assert!(
        answer.body.starts_with("auth") || answer.body.starts_with("bad credentials"),
        "{what}: {answer:?}"
    );
    assert!(!answer.body.contains("v1"), "{what}: {answer:?}");
    assert!(
        answer
            .headers
            .iter()
            .all(|(n, _)| !n.starts_with("access-control")),
        "{what}: {answer:?}"
    );
}

#[test]
fn with_auth_required_rest_answers_only_authenticated_users_each_as_himself() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = tempfile::tempdir().expect("tempdir");
    user(dir.path(), &["add", "admin", "--superuser"], "s3cret\n");
    user(dir.path(), &["add", "bob"], "bobpw\n");
    let (_, admin_file) = token(dir.path(), files.path(), "admin");
    let (bob_token, _) = token(dir.path(), files.path(), "bob");
    let log = std::fs::File::create(files.path().join("server.log")).expect("log file");
    let running = start_logging_to(dir.path(), &["--auth"], log);
    let rest = running
        .sidecar_addr("rest")
        .expect("REST is on with --auth");
    let admin = basic("admin", "s3cret");
    let bob = format!("Bearer {bob_token}");
    let json = ("Content-Type", "application/json");
    let octet = ("Content-Type", "application/octet-stream");

    for (method, path) in ENDPOINTS {
        let answer = request(&rest, method, path, &[json], "{}");
        challenged(&answer, &format!("{method} {path} without credentials"));
    }
    // Two wrong credentials (fewer than the limiter lets pass) and a malformed header.
    for header in [
        basic("admin", "wrong"),
        "Bearer bst_forged".to_string(),
        "Digest x".to_string(),
    ] {
        let answer = request(&rest, "GET", "/", &[("Authorization", &header)], "");
        challenged(&answer, &format!("GET / with {header}"));
    }

    let schema = r#"{"name":"t1","ColumnSchema":[{"name":"f"}]}"#;
    let auth = ("Authorization", admin.as_str());
    let made = request(&rest, "PUT", "/t1/schema", &[auth, json], schema);
    assert_eq!(made.status, 201, "{made:?}");
    let put = request(&rest, "PUT", "/t1/r1/f:q", &[auth, octet], "v1");
    assert_eq!(put.status, 200, "{put:?}");
    let listed = request(&rest, "GET", "/", &[auth], "");
    assert!(
        listed.status == 200 && listed.body.contains("t1"),
        "{listed:?}"
    );

    // Bob authenticates with his token but holds no grant: HBase's ACLs refuse him.
    let as_bob = ("Authorization", bob.as_str());
    let accept = ("Accept", "application/octet-stream");
    let refused = request(&rest, "GET", "/t1/r1/f:q", &[as_bob, accept], "");
    assert_eq!(refused.status, 403, "{refused:?}");
    assert!(
        refused.body.contains("AccessDeniedException") && !refused.body.contains("v1"),
        "{refused:?}"
    );
    let granted = run_script(
        &[
            "--connect",
            &running.addr,
            "--token-file",
            admin_file.to_str().expect("utf-8"),
            "-n",
        ],
        "grant 'bob', 'R', 't1'\n",
    );
    assert!(!granted.contains("ERROR"), "{granted}");
    let read = request(&rest, "GET", "/t1/r1/f:q", &[as_bob, accept], "");
    assert_eq!((read.status, read.body.as_str()), (200, "v1"), "{read:?}");
    let write = request(&rest, "PUT", "/t1/r2/f:q", &[as_bob, octet], "v2");
    assert_eq!(
        write.status, 403,
        "R alone does not let bob write: {write:?}"
    );

    // The admin's scanner: bob, who may read the table, cannot use or close it.
    let opened = request(
        &rest,
        "POST",
        "/t1/scanner",
        &[auth, json],
        r#"{"batch":10}"#,
    );
    assert_eq!(opened.status, 201, "{opened:?}");
    let location = opened.header("location").expect("a Location").to_string();
    let id = location.rsplit('/').next().expect("an id").to_string();
    let scanner = format!("/t1/scanner/{id}");
    let mut thief = KeepAlive::connect(&rest);
    for attempt in 0..10_000 {
        let method = if attempt % 2 == 0 { "GET" } else { "DELETE" };
        let answer = thief.send(method, &scanner, &[as_bob], "");
        assert_eq!(
            answer.status, 404,
            "attempt {attempt} ({method}): {answer:?}"
        );
        assert!(!answer.body.contains("djE="), "{answer:?}");
    }
    let anonymous = request(&rest, "GET", &scanner, &[], "");
    challenged(&anonymous, "the scanner without credentials");
    let own = request(
        &rest,
        "GET",
        &scanner,
        &[auth, ("Accept", "application/json")],
        "",
    );
    assert_eq!(own.status, 200, "the owner's scanner survived: {own:?}");
    assert!(own.body.contains("djE="), "v1 in base64: {own:?}");

    // A DNS-rebinding page names its own host; a cross-site page sends its origin.
    let rebound = request(
        &rest,
        "GET",
        "/",
        &[("Host", "evil.example:8080"), auth],
        "",
    );
    assert_eq!(rebound.status, 421, "{rebound:?}");
    let evil = ("Origin", "http://evil.example");
    let cross = request(&rest, "PUT", "/t1/r3/f:q", &[auth, octet, evil], "x");
    assert_eq!(cross.status, 403, "{cross:?}");
    let origin = format!("http://{rest}");
    let same = ("Origin", origin.as_str());
    let mine = request(&rest, "PUT", "/t1/r3/f:q", &[auth, octet, same], "x");
    assert_eq!(mine.status, 200, "a same-origin write: {mine:?}");

    // The npm client, with Basic and with a token.
    let node = request(
        &rest,
        "PUT",
        "/node_auth/schema",
        &[auth, json],
        r#"{"name":"node_auth","ColumnSchema":[{"name":"cf"}]}"#,
    );
    assert_eq!(node.status, 201, "{node:?}");
    let cell = request(&rest, "PUT", "/node_auth/r1/cf:a", &[auth, octet], "v1");
    assert_eq!(cell.status, 200, "{cell:?}");
    let granted = run_script(
        &[
            "--connect",
            &running.addr,
            "--token-file",
            admin_file.to_str().expect("utf-8"),
            "-n",
        ],
        "grant 'bob', 'R', 'node_auth'\n",
    );
    assert!(!granted.contains("ERROR"), "{granted}");
    let outcome = std::panic::catch_unwind(|| {
        support::gateways::node_hbase_with_credentials(&rest, "admin:s3cret", &bob_token)
    });
    stop(running);
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }

    let audit = std::fs::read_to_string(dir.path().join("audit.log")).expect("audit log");
    assert!(
        audit
            .lines()
            .any(|l| l.contains("authenticated") && l.contains("admin") && l.contains("REST")),
        "REST sign-ins are audited: {audit}"
    );
    assert!(
        audit
            .lines()
            .any(|l| l.contains("auth-failed") && l.contains("REST")),
        "REST failures are audited"
    );
    let thefts = audit
        .lines()
        .filter(|l| l.contains("another user") && l.contains("bob"))
        .count();
    assert_eq!(thefts, 10_000, "each theft attempt is audited");
}
