//! Assignment commands typed into `basalt shell --connect` against a real `basalt
//! standalone`: the balancer switch is the server's (a second shell sees what the first
//! set), `assign` of an open region succeeds, `unassign` closes it (standalone is a master
//! and a region server in one process) and `assign` opens it again, its rows served.

use crate::support;

use basalt_api::Connection;
use basalt_client::RemoteConnection;
use basalt_types::TableName;

/// Runs `script` through `basalt shell --connect addr`; what it printed.
fn shell(addr: &str, script: &str) -> String {
    let out = support::basalt(&["shell", "--connect", addr], script);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn shells_share_the_servers_balancer_switch_and_unassign_closes_until_assign() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = support::start(dir.path());
    let first = shell(
        &server.addr,
        "create 't', 'f'\nput 't', 'r', 'f:q', 'v'\nbalance_switch false\n",
    );
    assert!(first.contains("Previous balancer state : true"), "{first}");

    let conn = RemoteConnection::connect(&server.addr).expect("connect");
    let region = conn
        .admin()
        .list_regions(&TableName::parse("t").expect("name"))
        .expect("regions")
        .remove(0)
        .encoded_name;
    let second = shell(
        &server.addr,
        &format!(
            "balancer_enabled\nbalancer\nassign '{region}'\nunassign '{region}'\n\
             list_regions 't'\nassign '{region}'\nget 't', 'r'\nbalance_switch true\nbalancer\n"
        ),
    );
    let lines: Vec<&str> = second.lines().filter(|l| !l.starts_with("Took ")).collect();
    assert_eq!(
        lines[..4],
        ["false", "=> false", "false", "=> false"],
        "{second}"
    );
    assert!(!second.contains("ERROR"), "{second}");
    assert!(
        second.lines().any(|l| l.trim_start().starts_with("| t,,")),
        "unassign closed the region: list_regions shows it on no server: {second}"
    );
    assert!(
        second.contains("value=v"),
        "assigned again, the region serves: {second}"
    );
    assert!(
        second.contains("Previous balancer state : false"),
        "{second}"
    );
    assert!(second.trim_end().ends_with("=> true"), "{second}");
    support::stop(server);
}
