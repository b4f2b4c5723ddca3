//! HBase's native RPC under `basalt standalone --auth` with TLS and verified client
//! certificates (HBase 2.6's native TLS): a connection presenting a certificate runs as the
//! certificate's name, whatever its connection header asserts, so HBase's ACLs refuse
//! bob's read until a superuser grants it; a TLS connection without a certificate (SIMPLE,
//! a name merely asserted) and a plaintext one are refused.

use crate::support;
use basalt_hbase::client::{CallError, RpcClient};
use basalt_hbase::pb;
use basalt_net::tls::ClientTls;
use bytes::Bytes;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use support::tls::TlsFiles;
use support::{start_with, stop, user};

fn region(name: Bytes) -> pb::RegionSpecifier {
    pb::RegionSpecifier {
        r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
        value: name,
    }
}

/// The name of table `n1`'s one region, read from `hbase:meta` once it is there.
fn region_of_n1(meta: &mut RpcClient) -> Option<Bytes> {
    let request = pb::ScanRequest {
        region: Some(region(Bytes::from_static(b"hbase:meta,,1"))),
        scan: Some(pb::Scan {
            start_row: Some(Bytes::from_static(b"n1,")),
            stop_row: Some(Bytes::from_static(b"n1,\x7f")),
            ..Default::default()
        }),
        number_of_rows: Some(10),
        close_scanner: Some(true),
        ..Default::default()
    };
    let response: pb::ScanResponse = meta.ask("Scan", &request).ok()?;
    response.results.first()?.cell.first()?.row.clone()
}

fn get_r1(client: &mut RpcClient, name: &Bytes) -> Result<Option<Bytes>, CallError> {
    let get = pb::GetRequest {
        region: region(name.clone()),
        get: pb::Get {
            row: Bytes::from_static(b"r1"),
            ..Default::default()
        },
    };
    let got: pb::GetResponse = client.ask("Get", &get)?;
    Ok(got
        .result
        .and_then(|r| r.cell.first().and_then(|c| c.value.clone())))
}

fn admin_shell(addr: &str, ca: &str, script: &str) {
    let out = support::shell::run_script_with_env(
        &["--connect", addr, "--user", "admin", "--tls-ca", ca, "-n"],
        script,
        &[("BASALT_PASSWORD", "s3cret")],
    );
    assert!(!out.contains("ERROR"), "{out}");
}

#[test]
fn a_client_certificate_is_the_native_connections_user_and_its_grants_apply() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = tempfile::tempdir().expect("tempdir");
    let tls = TlsFiles::new(files.path(), true, "");
    let ca = &tls.ca;
    let (bob_cert, bob_key) = ca.issue("bob", "bob", "", 2);
    let (admin_cert, admin_key) = ca.issue("admin", "admin", "", 3);
    user(dir.path(), &["add", "admin", "--superuser"], "s3cret\n");
    user(dir.path(), &["add", "bob"], "bobpw\n");
    let running = start_with(dir.path(), &["--auth", "--config", tls.config_arg()]);
    let native: SocketAddr = running
        .sidecar_addr("hbase")
        .expect("native RPC runs under --auth with client certificates")
        .parse()
        .expect("an address");
    let ca_path = ca.cert.to_str().expect("utf-8");
    admin_shell(
        &running.addr,
        ca_path,
        "create 'n1', 'f'\nput 'n1', 'r1', 'f:q', 'one'\n",
    );

    let as_admin = ClientTls::load(&ca.cert, Some((&admin_cert, &admin_key))).expect("tls");
    let mut meta = RpcClient::connect_tls(native, "ClientService", &as_admin).expect("connect");
    let deadline = Instant::now() + Duration::from_secs(30);
    let name = loop {
        if let Some(name) = region_of_n1(&mut meta) {
            break name;
        }
        assert!(Instant::now() < deadline, "hbase:meta names n1's region");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(
        get_r1(&mut meta, &name).expect("admin reads").as_deref(),
        Some(&b"one"[..])
    );

    // Bob's certificate: his connection header says "basalt", he runs as bob.
    let as_bob = ClientTls::load(&ca.cert, Some((&bob_cert, &bob_key))).expect("tls");
    let mut bob = RpcClient::connect_tls(native, "ClientService", &as_bob).expect("connect");
    match get_r1(&mut bob, &name) {
        Err(CallError::Remote(e)) => assert!(
            e.class.ends_with("AccessDeniedException") && e.message.contains("'bob'"),
            "{e:?}"
        ),
        other => panic!("bob holds no grant yet: {other:?}"),
    }
    admin_shell(&running.addr, ca_path, "grant 'bob', 'R', 'n1'\n");
    assert_eq!(
        get_r1(&mut bob, &name)
            .expect("bob reads after the grant")
            .as_deref(),
        Some(&b"one"[..])
    );

    // TLS without a certificate is SIMPLE: refused.
    let anonymous = ClientTls::load(&ca.cert, None).expect("tls");
    let refused = RpcClient::connect_tls(native, "ClientService", &anonymous)
        .map_err(CallError::from)
        .and_then(|mut c| get_r1(&mut c, &name));
    match refused {
        Err(CallError::Remote(e)) => assert!(
            e.class.ends_with("AccessDeniedException")
                && e.message.contains("Authentication is required"),
            "{e:?}"
        ),
        other => panic!("no certificate, no call: {other:?}"),
    }
    // Plaintext on the TLS port: refused.
    let plain = RpcClient::connect(native, "ClientService")
        .map_err(CallError::from)
        .and_then(|mut c| get_r1(&mut c, &name));
    assert!(plain.is_err(), "plaintext refused under auth: {plain:?}");
    stop(running);
}
