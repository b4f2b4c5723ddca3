//! etcd reached over TLS with a client certificate: a member run with `--cert-file` and
//! `--client-cert-auth` takes the coordinator's writes and reads when it presents a
//! certificate of the CA, and refuses it without one; plaintext to its TLS port fails;
//! endpoints whose scheme and settings disagree are refused by name.

use basalt_coord::testing::TlsEtcd;
use basalt_coord::{Coordinator, EtcdCoordinator, Op, Txn};
use basalt_net::certs::TestCa;
use basalt_net::tls::ClientTls;
use std::time::{Duration, Instant};

async fn connect(endpoint: &str, tls: Option<ClientTls>) -> basalt_coord::Result<EtcdCoordinator> {
    EtcdCoordinator::connect_tls(&[endpoint.to_string()], "tls/", Duration::from_secs(2), tls).await
}

#[tokio::test]
async fn a_client_certificate_reaches_etcd_over_tls_and_nothing_else_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ca = TestCa::new(dir.path());
    let etcd = TlsEtcd::start(dir.path(), &ca);
    let (cert, key) = ca.issue("basalt", "basalt", "", 2);
    let with_certificate = ClientTls::load(&ca.cert, Some((&cert, &key))).expect("client TLS");

    // The member takes a moment to start: the first connection is retried until it does.
    let deadline = Instant::now() + Duration::from_secs(30);
    let coord = loop {
        match connect(&etcd.endpoint, Some(with_certificate.clone())).await {
            Ok(coord) => break coord,
            Err(e) if Instant::now() < deadline => {
                let _ = e;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => panic!(
                "etcd over TLS: {e}; its log:\n{}",
                std::fs::read_to_string(dir.path().join("etcd.log")).unwrap_or_default()
            ),
        }
    };
    let put = Txn {
        success: vec![Op::put("k", "over tls")],
        ..Txn::default()
    };
    assert!(coord.txn(put).await.expect("a write").succeeded);
    let kv = coord.get(b"k").await.expect("a read").expect("written");
    assert_eq!(kv.value, b"over tls");

    // The CA alone, no certificate: etcd's --client-cert-auth refuses the handshake.
    let anonymous = ClientTls::load(&ca.cert, None).expect("client TLS");
    assert!(connect(&etcd.endpoint, Some(anonymous)).await.is_err());
    // Plaintext to the TLS port.
    let plain = etcd.endpoint.replace("https://", "http://");
    assert!(connect(&plain, None).await.is_err());
    // Settings and scheme that disagree are refused before any connection, by name.
    let https_without = connect(&etcd.endpoint, None).await.expect_err("no CA");
    assert!(
        https_without.to_string().contains("give the CA"),
        "{https_without}"
    );
    let http_with = connect(&plain, Some(with_certificate))
        .await
        .expect_err("TLS settings for plain http");
    assert!(http_with.to_string().contains("plain http"), "{http_with}");
}
