//! Grants against a real `basalt standalone` (its master keeps them in the catalog, the
//! in-process coordinator): granted through the shell, they survive a restart, and
//! dropping the table drops its grants.

use crate::support;

fn lines(printed: &str) -> Vec<&str> {
    printed
        .lines()
        .filter(|l| l.starts_with(' ') || l.ends_with("row(s)"))
        .collect()
}

#[test]
fn grants_survive_a_restart_and_go_with_their_table() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = support::start(dir.path());
    let printed = support::shell(
        &server.addr,
        "create_namespace 'ns1'\ncreate 'ns1:t1', 'f1'\n\
         grant 'dasha', 'RWXCA', 'ns1:t1'\ngrant 'dasha', 'RW', 'ns1:t1', 'f1', 'c1'\n\
         grant '@ops', 'A'\ngrant 'bob', 'C', '@ns1'\n",
    );
    assert!(!printed.contains("ERROR"), "{printed}");
    support::stop(server);

    let server = support::start(dir.path());
    let printed = support::shell(
        &server.addr,
        "user_permission 'ns1:t1'\nuser_permission\nuser_permission '@ns1'\n",
    );
    assert_eq!(
        lines(&printed),
        [
            " dasha ns1,ns1:t1,,: [Permission: actions=READ,WRITE,EXEC,CREATE,ADMIN]",
            " dasha ns1,ns1:t1,f1,c1: [Permission: actions=READ,WRITE]",
            "2 row(s)",
            " @ops ,,,: [Permission: actions=ADMIN]",
            "1 row(s)",
            " bob ns1,,,: [Permission: actions=CREATE]",
            "1 row(s)",
        ],
        "{printed}"
    );
    let printed = support::shell(
        &server.addr,
        "disable 'ns1:t1'\ndrop 'ns1:t1'\ndrop_namespace 'ns1'\nuser_permission '.*'\n\
         user_permission\n",
    );
    assert_eq!(
        lines(&printed),
        [
            "0 row(s)",
            " @ops ,,,: [Permission: actions=ADMIN]",
            "1 row(s)"
        ],
        "{printed}"
    );
    support::stop(server);
}
