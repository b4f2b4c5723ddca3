//! `basalt itbll` as a user runs it against a real `basalt standalone`: generate, verify
//! whole, lose one row, verify again (the lost key named, with the node referencing it);
//! plus its help and its refusals.

use crate::support;

use basalt_api::Connection;
use basalt_types::{Delete, Scan, TableName};
use std::process::{Command, Output};

fn itbll(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_basalt"))
        .arg("itbll")
        .args(args)
        .output()
        .expect("run basalt itbll")
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Runs `verify`, which must succeed, and checks its counters.
fn verify_whole(addr: &str, nodes: u64) {
    let out = itbll(&["verify", "--connect", addr, "--table", "chain"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    for line in [
        format!("REFERENCED: {nodes}\n"),
        "UNREFERENCED: 0\n".into(),
        "UNDEFINED: 0\n".into(),
        "Status: OK\n".into(),
    ] {
        assert!(stdout.contains(&line), "lacks {line:?}: {stdout}");
    }
}

#[test]
fn generate_verify_lose_a_row_and_verify_again() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = support::start_with(
        dir.path(),
        &["--no-rest", "--no-web", "--no-thrift", "--no-hbase"],
    );
    let addr = server.addr.clone();

    // Three flushed generations of 500 nodes, through `--server` (the alias of --connect).
    let out = itbll(&[
        "generate",
        "--server",
        &addr,
        "--table",
        "chain",
        "--generations",
        "3",
        "--width",
        "500",
        "--seed",
        "7",
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.starts_with(
            "basalt itbll generate: table chain (created), 3 generations x 500 nodes, seed 7, run "
        ),
        "{stdout}"
    );
    for line in [
        "generation 1/3: 500 nodes written, flushed",
        "generation 3/3: 500 nodes written, flushed",
        "one circle of 1500 nodes",
        "wrote 1500 nodes in 3 generations",
    ] {
        assert!(stdout.contains(line), "lacks {line:?}: {stdout}");
    }

    // Pre-split over the random key space, and flushed: every region has files.
    let conn = basalt_client::RemoteConnection::connect(&addr).expect("connect");
    let name = TableName::parse("chain").expect("name");
    let regions = conn.admin().list_regions(&name).expect("regions");
    assert_eq!(regions.len(), 4, "{regions:?}");
    assert!(regions.iter().all(|r| r.store_files > 0), "{regions:?}");

    verify_whole(&addr, 1500);

    // A second run into the existing table adds a circle of its own.
    let out = itbll(&[
        "generate",
        "--connect",
        &addr,
        "--table",
        "chain",
        "--generations",
        "1",
        "--width",
        "100",
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("basalt itbll generate: table chain, 1 generations"));
    verify_whole(&addr, 1600);

    // Lose one row: its key becomes UNDEFINED, and the node it pointed at UNREFERENCED.
    let table = conn.table(&name).expect("table");
    let rows: Vec<_> = table
        .scan(&Scan::new())
        .expect("scan")
        .map(|r| r.expect("row"))
        .collect();
    let prev_of =
        |row: &basalt_types::RowResult| row.value(b"meta", b"prev").expect("meta:prev").to_vec();
    let lost = rows[rows.len() / 2].row().expect("key").to_vec();
    let referrer = rows
        .iter()
        .find(|r| prev_of(r) == lost)
        .and_then(|r| r.row())
        .expect("a node references the lost one")
        .to_vec();
    let orphan = prev_of(&rows[rows.len() / 2]);
    table.delete(&Delete::new(lost.clone())).expect("delete");

    let out = itbll(&["verify", "--connect", &addr, "--table", "chain"]);
    let (stdout, stderr) = text(&out);
    assert!(!out.status.success(), "a lost row fails: {stdout}");
    for line in [
        "REFERENCED: 1598\n".to_string(),
        "UNREFERENCED: 1\n".into(),
        "UNDEFINED: 1\n".into(),
        format!("  {} referenced by {}\n", hex(&lost), hex(&referrer)),
        format!("UNREFERENCED keys (first 1 of 1):\n  {}\n", hex(&orphan)),
        "Status: FAILED\n".into(),
    ] {
        assert!(stdout.contains(&line), "lacks {line:?}: {stdout}");
    }
    assert_eq!(
        stderr.trim(),
        "basalt: itbll: verify failed: 1 UNDEFINED nodes are referenced but missing (lost data); \
         1 UNREFERENCED nodes are referenced by no node (an unfinished generate, or lost data)"
    );

    // Refusals: a missing table, a zero width, no server there.
    let out = itbll(&["verify", "--connect", &addr, "--table", "nosuch"]);
    let (_, stderr) = text(&out);
    assert!(!out.status.success());
    assert_eq!(stderr.trim(), "basalt: itbll: table nosuch does not exist");
    let out = itbll(&[
        "generate",
        "--connect",
        &addr,
        "--generations",
        "1",
        "--width",
        "0",
    ]);
    let (_, stderr) = text(&out);
    assert!(!out.status.success());
    assert_eq!(stderr.trim(), "basalt: itbll: --width must be at least 1");
    support::stop(server);

    let out = itbll(&["verify", "--connect", "127.0.0.1:1"]);
    let (_, stderr) = text(&out);
    assert!(!out.status.success());
    assert!(
        stderr.starts_with("basalt: itbll: cannot connect to 127.0.0.1:1: ")
            && !stderr.contains("panicked"),
        "{stderr}"
    );
}

#[test]
fn help_names_both_commands_and_their_flags() {
    let top = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .arg("--help")
        .output()
        .expect("basalt --help");
    assert!(String::from_utf8_lossy(&top.stdout).contains("itbll"));
    let help = itbll(&["--help"]);
    assert!(help.status.success());
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("generate") && help.contains("verify"),
        "{help}"
    );
    let generate = itbll(&["generate", "--help"]);
    let generate = String::from_utf8_lossy(&generate.stdout);
    for flag in [
        "--table",
        "--generations",
        "--width",
        "--seed",
        "--regions",
        "--connect",
        "--server",
    ] {
        assert!(generate.contains(flag), "generate --help lacks {flag}");
    }
}
