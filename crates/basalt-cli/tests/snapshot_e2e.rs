//! Snapshots end to end, as an operator uses them: `basalt shell` typed against a real
//! `basalt standalone` over its socket (the master coordinates, the region server flushes):
//! snapshot, clone, write to both, restore, drop the source and read the clone, restart
//! the server and find the snapshots again.

use crate::support;

use std::path::Path;

/// Runs `script` through `basalt shell --connect addr`; returns what it printed, with the
/// timing lines removed.
fn shell(addr: &str, script: &str) -> String {
    support::shell::run_script(&["--connect", addr], script)
        .lines()
        .filter(|l| !l.starts_with("Took "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The rows of each `scan` printed, in order, trimmed:
/// `r1 column=f:q, timestamp=..., value=v1` (the shell does not echo piped input).
fn scans(output: &str) -> Vec<Vec<String>> {
    let mut all = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in output.lines() {
        if line.starts_with("ROW ") {
            current = Some(Vec::new());
        } else if line.ends_with("row(s)") {
            all.extend(current.take());
        } else if let Some(rows) = current.as_mut() {
            rows.push(line.trim().to_string());
        }
    }
    all
}

fn files_under(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(|e| e.ok())
        .map(|e| match e.file_type().is_ok_and(|t| t.is_dir()) {
            true => files_under(&e.path()),
            false => usize::from(e.path().extension().is_some_and(|x| x == "hfile")),
        })
        .sum()
}

#[test]
fn snapshot_clone_restore_and_drop_through_the_shell_against_standalone() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = support::start(dir.path());
    let out = shell(
        &server.addr,
        "\
create 'src', 'f', {SPLITS => ['m']}
put 'src', 'a', 'f:q', 'a1', 100
put 'src', 'z', 'f:q', 'z1', 100
snapshot 'src', 'snap1'
snapshot 'src', 'snap2', {TTL => 86400}
list_snapshots
put 'src', 'a', 'f:q', 'a2', 200
put 'src', 'b', 'f:q', 'b2', 200
clone_snapshot 'snap1', 'copy'
put 'copy', 'c', 'f:q', 'c3', 300
scan 'copy'
restore_snapshot 'snap1'
",
    );
    assert!(
        out.contains("SNAPSHOT  TABLE + CREATION TIME + TTL(Sec)"),
        "{out}"
    );
    assert!(out.contains(" snap1 src ("), "{out}");
    assert!(out.contains(") FOREVER"), "{out}");
    assert!(out.contains(") 86400"), "{out}");
    assert_eq!(
        scans(&out),
        [[
            "a column=f:q, timestamp=1970-01-01T00:00:00.100, value=a1",
            "c column=f:q, timestamp=1970-01-01T00:00:00.300, value=c3",
            "z column=f:q, timestamp=1970-01-01T00:00:00.100, value=z1",
        ]],
        "{out}"
    );
    assert!(
        out.contains(
            "ERROR: org.apache.hadoop.hbase.TableNotDisabledException: Table 'src' must be \
             disabled in order to perform a restore operation."
        ),
        "{out}"
    );
    // The snapshot holds links to the table's files: nothing was copied.
    assert!(files_under(&dir.path().join("snapshots/snap1")) >= 2);

    let out = shell(
        &server.addr,
        "\
scan 'src'
disable 'src'
restore_snapshot 'snap1'
is_disabled 'src'
enable 'src'
scan 'src'
major_compact 'src'
disable 'src'
drop 'src'
delete_snapshot 'snap1'
scan 'copy'
",
    );
    let found = scans(&out);
    assert_eq!(found.len(), 3, "{out}");
    assert_eq!(found[0].len(), 3, "before the restore: a2, b2, z1: {out}");
    assert_eq!(
        found[1],
        [
            "a column=f:q, timestamp=1970-01-01T00:00:00.100, value=a1",
            "z column=f:q, timestamp=1970-01-01T00:00:00.100, value=z1",
        ],
        "restored: {out}"
    );
    assert!(
        out.lines().any(|l| l == "true"),
        "restore_snapshot leaves the table disabled: {out}"
    );
    assert_eq!(found[2].len(), 3, "the clone outlives its source: {out}");
    support::stop(server);

    // After a restart the snapshot left is listed and clones.
    let server = support::start(dir.path());
    let out = shell(
        &server.addr,
        "\
list_snapshots
clone_snapshot 'snap2', 'again'
scan 'again'
",
    );
    assert!(out.contains(" snap2 src ("), "{out}");
    assert!(!out.contains(" snap1 "), "{out}");
    assert_eq!(scans(&out).concat().len(), 2, "{out}");
    support::stop(server);
}
