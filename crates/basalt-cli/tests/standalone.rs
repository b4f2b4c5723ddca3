//! The real `basalt` binary: help, the ready line, clean shutdown on SIGTERM, and kill -9
//! under concurrent SYNC_WAL writers losing no acknowledged write.

use basalt_api::{Connection, PreSplit};
use basalt_client::{ClientConfig, RemoteConnection};
use basalt_types::{Durability, FamilyDescriptor, Get, Put, TableDescriptor, TableName};

use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support;

use support::{start, wait_exit};

fn create(conn: &RemoteConnection, name: &str) -> TableName {
    let t = TableName::parse(name).expect("valid");
    let d = TableDescriptor::new(t.clone(), vec![FamilyDescriptor::new("cf").expect("valid")]);
    conn.admin()
        .create_table(&d, &PreSplit::None)
        .expect("create");
    t
}

#[test]
fn help_explains_every_command() {
    let out = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .arg("--help")
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("standalone") && text.contains("config"),
        "{text}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args(["standalone", "--help"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--data-dir",
        "--port",
        "--config",
        "--bind",
        "--log",
        "BASALT_PORT",
        "--skip-corrupt-wal",
    ] {
        assert!(text.contains(flag), "{flag} missing from {text}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .arg("config")
        .output()
        .expect("run");
    assert!(String::from_utf8_lossy(&out.stdout).contains("[server]"));
}

#[test]
fn sigterm_flushes_and_exits_cleanly() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut server = start(dir.path());
    eprintln!(
        "ready after {:?} on an empty data folder",
        server.ready_after
    );
    assert!(server.ready_after < Duration::from_secs(5));
    let conn = RemoteConnection::connect(&server.addr).expect("connect");
    let t = create(&conn, "kept");
    let table = conn.table(&t).expect("table");
    table
        .put(
            &Put::new("r")
                .add("cf", "q", "v")
                .durability(Durability::SkipWal),
        )
        .expect("put");
    // The client stays connected through the shutdown: it must not hold the server up.
    let stopping = Instant::now();
    let status = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    assert!(wait_exit(&mut server.child).success());
    eprintln!("stopped {:?} after SIGTERM", stopping.elapsed());
    assert!(stopping.elapsed() < Duration::from_secs(5));
    drop(table);
    drop(conn);
    // A SKIP_WAL write survives only because the shutdown flushed it.
    let mut again = start(dir.path());
    let conn = RemoteConnection::connect(&again.addr).expect("connect");
    let row = conn
        .table(&t)
        .expect("table")
        .get(&Get::new("r"))
        .expect("get");
    assert_eq!(row.value(b"cf", b"q"), Some(&b"v"[..]));
    let _ = again.child.kill();
    let _ = again.child.wait();
}

#[test]
fn kill_9_keeps_every_acknowledged_sync_wal_write() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut server = start(dir.path());
    let conn = RemoteConnection::connect(&server.addr).expect("connect");
    let t = create(&conn, "durable");
    let acked: Arc<Mutex<Vec<String>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let (acked, stop, addr, t) =
                (acked.clone(), stop.clone(), server.addr.clone(), t.clone());
            std::thread::spawn(move || {
                let config = ClientConfig {
                    retries_max: 0,
                    ..ClientConfig::default()
                };
                let conn = RemoteConnection::connect_with(&addr, config).expect("connect");
                let table = conn.table(&t).expect("table");
                for i in 0.. {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let key = format!("w{w}-{i:06}");
                    let put = Put::new(key.clone())
                        .add("cf", "q", key.clone())
                        .durability(Durability::SyncWal);
                    if table.put(&put).is_err() {
                        break;
                    }
                    acked.lock().expect("not poisoned").push(key);
                }
            })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    while acked.lock().expect("not poisoned").len() < 1000 {
        assert!(Instant::now() < deadline, "writers too slow");
        std::thread::sleep(Duration::from_millis(5));
    }
    server.child.kill().expect("kill -9");
    let _ = server.child.wait();
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.join().expect("writer");
    }
    let acked = acked.lock().expect("not poisoned").clone();
    let mut again = start(dir.path());
    let conn = RemoteConnection::connect(&again.addr).expect("connect");
    let table = conn.table(&t).expect("table");
    let gets: Vec<Get> = acked.iter().map(|k| Get::new(k.clone())).collect();
    let rows = table.get_many(&gets).expect("gets");
    let lost: Vec<&String> = acked
        .iter()
        .zip(&rows)
        .filter(|(k, r)| r.value(b"cf", b"q") != Some(k.as_bytes()))
        .map(|(k, _)| k)
        .collect();
    eprintln!("{} acknowledged writes checked after kill -9", acked.len());
    assert!(
        lost.is_empty(),
        "lost {} acknowledged writes: {:?}",
        lost.len(),
        &lost[..lost.len().min(5)]
    );
    let _ = again.child.kill();
    let _ = again.child.wait();
}
