//! hbase-driver (PyPI: a pure-Python native HBase 2.x client nobody here wrote), unchanged,
//! against a real `basalt standalone`: it finds the server through the ZooKeeper responder
//! (kazoo), reads `hbase:meta` and talks HBase's protobuf RPC for DDL, namespaces, puts,
//! gets, deletes, batches, counters, appends, conditions, row mutations, splits and scans
//! (`tests/hbase_driver/`). `scripts/python-env.sh` installs the pinned driver into
//! `target/python-venv` (once; an install failure fails the test).

use crate::support;

#[test]
fn hbase_driver_drives_standalone_through_zookeeper_discovery() {
    let dir = tempfile::tempdir().expect("tempdir");
    let running = support::start(dir.path());
    let zk = running
        .sidecar_addr("zookeeper")
        .expect("standalone prints the zookeeper address");
    assert!(
        running.sidecar_addr("hbase").is_some(),
        "standalone prints the hbase address"
    );
    let outcome = std::panic::catch_unwind(|| support::gateways::hbase_driver(&zk));
    support::stop(running);
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

#[test]
fn no_hbase_starts_neither_listener() {
    let dir = tempfile::tempdir().expect("tempdir");
    let running = support::start_with(dir.path(), &["--no-hbase"]);
    let (hbase, zk) = (
        running.sidecar_addr("hbase"),
        running.sidecar_addr("zookeeper"),
    );
    support::stop(running);
    assert_eq!((hbase, zk), (None, None));
}
