//! `basalt standalone --auth` keeps the web UI on behind a sign-in: every page answers a
//! browser without a session with a redirect to `/login` and the metrics 401; a superuser
//! signs in (POST form → cookie → pages), a user who is not one is refused; `/metrics`
//! takes a token (Prometheus); signing out needs the session's CSRF token; a wrong Host
//! and a cross-origin form are refused.

use crate::support;
use support::user;

use support::http::{request, Answer};
use support::{start_logging_to, stop};

/// Every page of standalone's web UI (and a path that is none).
const PAGES: &[&str] = &[
    "/",
    "/master-status",
    "/table.jsp?name=t1",
    "/table?name=t1",
    "/rs-status",
    "/conf",
    "/logs",
    "/logs/",
    "/logout",
    "/no-such-page",
];
const MACHINE: &[&str] = &["/metrics", "/prometheus", "/jmx"];

/// The `name=value` of the session cookie a response sets.
fn cookie_of(answer: &Answer) -> String {
    let set = answer.header("set-cookie").expect("a Set-Cookie");
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age="] {
        assert!(set.contains(attribute), "{attribute} in {set}");
    }
    set.split(';').next().expect("name=value").to_string()
}

/// The CSRF token in the sign-out form.
fn csrf_of(page: &str) -> String {
    let (_, rest) = page
        .split_once("name=\"csrf\" value=\"")
        .unwrap_or_else(|| panic!("a CSRF field in {page}"));
    rest.split('"').next().expect("a value").to_string()
}

#[test]
fn with_auth_required_the_web_ui_needs_a_superusers_sign_in_and_csrf_tokens() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = tempfile::tempdir().expect("tempdir");
    user(dir.path(), &["add", "admin", "--superuser"], "s3cret\n");
    user(dir.path(), &["add", "bob"], "bobpw\n");
    let token = user(dir.path(), &["token", "bob", "--ttl", "1h"], "")
        .trim()
        .to_string();
    let log = std::fs::File::create(files.path().join("server.log")).expect("log file");
    let running = start_logging_to(dir.path(), &["--auth"], log);
    let web = running
        .sidecar_addr("web")
        .expect("the web UI is on with --auth");
    let origin = format!("http://{web}");
    let form = ("Content-Type", "application/x-www-form-urlencoded");
    let same = ("Origin", origin.as_str());

    for path in PAGES {
        let answer = request(&web, "GET", path, &[], "");
        assert_eq!(answer.status, 303, "GET {path}: {answer:?}");
        let to = answer.header("location").expect("a Location");
        assert!(to.starts_with("/login?next="), "GET {path} → {to}");
        assert!(
            !answer.body.contains("t1") && !answer.body.contains("Regions"),
            "{answer:?}"
        );
    }
    for path in MACHINE.iter().chain(PAGES) {
        for method in ["POST", "PUT", "DELETE"] {
            let answer = request(&web, method, path, &[form, same], "csrf=x");
            assert_eq!(answer.status, 401, "{method} {path}: {answer:?}");
        }
    }
    for path in MACHINE {
        let answer = request(&web, "GET", path, &[], "");
        assert_eq!(answer.status, 401, "GET {path}: {answer:?}");
        assert_eq!(
            answer.header("www-authenticate"),
            Some("Basic realm=\"basalt\"")
        );
        assert!(
            !answer.body.contains("basalt_"),
            "no metric leaks: {answer:?}"
        );
    }
    let forged = request(
        &web,
        "GET",
        "/metrics",
        &[("Authorization", "Bearer bst_forged")],
        "",
    );
    assert_eq!(forged.status, 401, "a forged token: {forged:?}");
    // Prometheus scrapes with a token.
    let bearer = format!("Bearer {token}");
    let scraped = request(&web, "GET", "/metrics", &[("Authorization", &bearer)], "");
    assert_eq!(scraped.status, 200, "{scraped:?}");
    assert!(scraped.body.contains("basalt_"), "{scraped:?}");

    let login = request(&web, "GET", "/login?next=/conf", &[], "");
    assert!(
        login.status == 200 && login.body.contains("name=\"password\""),
        "{login:?}"
    );
    let wrong = request(
        &web,
        "POST",
        "/login",
        &[form, same],
        "user=admin&password=nope&next=/conf",
    );
    assert_eq!(wrong.status, 401, "{wrong:?}");
    assert!(wrong.header("set-cookie").is_none(), "{wrong:?}");
    let not_super = request(
        &web,
        "POST",
        "/login",
        &[form, same],
        "user=bob&password=bobpw",
    );
    assert_eq!(not_super.status, 403, "{not_super:?}");
    assert!(not_super.body.contains("only superusers"), "{not_super:?}");
    let evil = ("Origin", "http://evil.example");
    let cross = request(
        &web,
        "POST",
        "/login",
        &[form, evil],
        "user=admin&password=s3cret",
    );
    assert_eq!(
        cross.status, 403,
        "a login posted by another site: {cross:?}"
    );

    let signed = request(
        &web,
        "POST",
        "/login",
        &[form, same],
        "user=admin&password=s3cret&next=/conf",
    );
    assert_eq!(signed.status, 303, "{signed:?}");
    assert_eq!(signed.header("location"), Some("/conf"));
    let cookie = cookie_of(&signed);
    let with = ("Cookie", cookie.as_str());
    for path in ["/", "/conf", "/rs-status", "/metrics", "/jmx"] {
        let page = request(&web, "GET", path, &[with], "");
        assert_eq!(page.status, 200, "GET {path} signed in: {page:?}");
    }
    let rebound = request(&web, "GET", "/", &[with, ("Host", "evil.example")], "");
    assert_eq!(rebound.status, 421, "{rebound:?}");

    let out_form = request(&web, "GET", "/logout", &[with], "");
    assert_eq!(out_form.status, 200, "{out_form:?}");
    let csrf = csrf_of(&out_form.body);
    let missing = request(&web, "POST", "/logout", &[with, form, same], "");
    assert_eq!(missing.status, 403, "no CSRF token: {missing:?}");
    let forged = request(&web, "POST", "/logout", &[with, form, same], "csrf=0000");
    assert_eq!(forged.status, 403, "a wrong CSRF token: {forged:?}");
    let body = format!("csrf={csrf}");
    let cross = request(&web, "POST", "/logout", &[with, form, evil], &body);
    assert_eq!(cross.status, 403, "another site's form: {cross:?}");
    let still = request(&web, "GET", "/", &[with], "");
    assert_eq!(
        still.status, 200,
        "the refused forms left the session: {still:?}"
    );
    let out = request(&web, "POST", "/logout", &[with, form, same], &body);
    assert_eq!(out.status, 303, "{out:?}");
    let after = request(&web, "GET", "/", &[with], "");
    assert_eq!(after.status, 303, "signed out: {after:?}");
    stop(running);

    let audit = std::fs::read_to_string(dir.path().join("audit.log")).expect("audit log");
    for (outcome, what) in [
        ("authenticated", "web login"),
        ("auth-failed", "web login"),
        ("denied", "web login"),
        ("denied", "CSRF"),
    ] {
        assert!(
            audit
                .lines()
                .any(|l| l.contains(outcome) && l.contains(what)),
            "{outcome} {what} audited: {audit}"
        );
    }
}

#[test]
fn without_auth_the_web_ui_is_open_on_loopback_but_refuses_other_hosts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let running = support::start(dir.path());
    let web = running.sidecar_addr("web").expect("web");
    let home = request(&web, "GET", "/", &[], "");
    assert_eq!(home.status, 200, "{home:?}");
    let named = request(&web, "GET", "/", &[("Host", "localhost")], "");
    assert_eq!(named.status, 200, "{named:?}");
    let rebound = request(&web, "GET", "/", &[("Host", "attacker.example")], "");
    assert_eq!(rebound.status, 421, "{rebound:?}");
    let login = request(&web, "GET", "/login", &[], "");
    assert_eq!(login.status, 404, "nothing to sign in to: {login:?}");
    let rest = running.sidecar_addr("rest").expect("rest");
    let open = request(&rest, "GET", "/version/cluster", &[], "");
    assert_eq!(
        open.status, 200,
        "REST needs no credentials without --auth: {open:?}"
    );
    let cross = request(
        &rest,
        "PUT",
        "/t/schema",
        &[
            ("Origin", "http://attacker.example"),
            ("Content-Type", "application/json"),
        ],
        r#"{"name":"t","ColumnSchema":[{"name":"f"}]}"#,
    );
    assert_eq!(
        cross.status, 403,
        "a cross-site write without --auth: {cross:?}"
    );
    stop(running);
}
