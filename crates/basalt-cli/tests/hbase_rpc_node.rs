//! A second native HBase client nobody here wrote, unchanged, against a real `basalt
//! standalone`: npm's `hbase-rpc-client`, installed by `scripts/node-env.sh` into
//! `target/node-env` (once; an install failure fails the test).

use crate::support;

/// A second native client nobody here wrote: npm's `hbase-rpc-client` (an HBase 0.98–1.2
/// client: the same RPC framing, meta read by a scan) puts, gets, batches, counts, checks
/// and scans (`tests/hbase_rpc_node/`). Its table is made through the shell: it has no DDL.
#[test]
fn hbase_rpc_client_from_npm_drives_standalone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let running = support::start(dir.path());
    let zk = running
        .sidecar_addr("zookeeper")
        .expect("zookeeper address");
    let outcome = std::panic::catch_unwind(|| {
        support::shell(&running.addr, "create 'node_rpc', 'cf'");
        support::gateways::node_hbase_rpc(&zk);
    });
    support::stop(running);
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}
