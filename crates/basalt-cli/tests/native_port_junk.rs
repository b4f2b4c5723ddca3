//! Junk on a real `basalt standalone`'s native ports (HBase RPC and ZooKeeper) harms no
//! real client.

use crate::support;

/// Junk on both native ports — random bytes, an absurd length, a frame cut short and
/// left open — closes those connections only: hbase-driver, connecting afterwards, is
/// served (and the junk connections do not keep it waiting).
#[test]
fn junk_on_the_native_ports_harms_no_real_client() {
    use std::io::Write;
    use std::net::TcpStream;
    let dir = tempfile::tempdir().expect("tempdir");
    let running = support::start(dir.path());
    let rpc = running.sidecar_addr("hbase").expect("hbase address");
    let zk = running
        .sidecar_addr("zookeeper")
        .expect("zookeeper address");
    let mut held = Vec::new();
    for addr in [&rpc, &zk] {
        for junk in [
            &b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 random"[..],
            b"HBas\x00\x50\xff\xff\xff\xff",
            b"\xff\xff\xff\xff",
            b"HBas\x00\x50\x00\x00\x00\x40\x0a",
        ] {
            let mut stream = TcpStream::connect(addr).expect("connect");
            stream.write_all(junk).expect("send junk");
            held.push(stream);
        }
    }
    let script = "import sys\n\
from hbasedriver.client.client import Client\n\
c = Client({'hbase.zookeeper.quorum': sys.argv[1]})\n\
print(len(c.get_admin().list_tables().table_schema))\n\
c.close()\n";
    let out = std::process::Command::new(support::gateways::python())
        .args(["-c", script, &zk])
        .output()
        .expect("run python");
    drop(held);
    support::stop(running);
    assert!(
        out.status.success(),
        "hbase-driver after junk:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0");
}
