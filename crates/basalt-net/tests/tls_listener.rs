//! A listener serving TLS, over real sockets with a line protocol (a request is a line;
//! the answer echoes it, prefixed with the client certificate's name if any): TLS clients
//! are served while sockets trickle a handshake (shed by the header timeout, never holding
//! the accept loop); a plaintext client is refused with a line saying so and the listener
//! goes on; a replaced certificate is served to new connections without a restart, a broken
//! replacement keeps the previous one; a verified client certificate names its holder.

use basalt_net::certs::TestCa;
use basalt_net::siege::{Siege, Trickle};
use basalt_net::tls::{ClientStream, ClientTls};
use basalt_net::{Limits, Listener, Plaintext, ServerTls, TlsFiles};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

const HEADER_TIMEOUT: Duration = Duration::from_millis(300);

fn serve(tls: Arc<ServerTls>, connections_max: usize) -> (SocketAddr, basalt_net::Connections) {
    let limits = Limits {
        connections_max,
        per_address_max: connections_max,
        header_timeout: HEADER_TIMEOUT,
        evict_idle: false,
    };
    let listener = Listener::bind("127.0.0.1:0", "tls-test", limits)
        .expect("bind")
        .with_tls(Some(tls), Plaintext::Refuse("this port speaks TLS only\n"));
    let addr = listener.local_addr();
    let connections = listener.connections();
    tokio::spawn(async move {
        loop {
            let (conn, _) = listener.accept().await;
            tokio::spawn(async move {
                let peer = conn.peer();
                let mut lines = BufReader::new(conn);
                let mut line = String::new();
                while matches!(lines.read_line(&mut line).await, Ok(n) if n > 0) {
                    let _busy = peer.busy();
                    let who = lines.get_ref().tls_identity().unwrap_or("-").to_string();
                    let answer = format!("{who} {line}");
                    if lines.get_mut().write_all(answer.as_bytes()).await.is_err() {
                        return;
                    }
                    line.clear();
                }
            });
        }
    });
    (addr, connections)
}

async fn dial(client: &ClientTls, addr: SocketAddr) -> ClientStream {
    let tcp = TcpStream::connect(addr).await.expect("connect");
    client.connect("127.0.0.1", tcp).await.expect("TLS")
}

async fn ask(stream: &mut ClientStream, line: &str) -> String {
    stream.write_all(line.as_bytes()).await.expect("send");
    let mut reader = BufReader::new(stream);
    let mut answer = String::new();
    reader.read_line(&mut answer).await.expect("an answer");
    answer
}

fn serial(stream: &ClientStream) -> Vec<u8> {
    let chain = stream.server_certificates().expect("a TLS stream");
    let der = rustls::pki_types::CertificateDer::from(chain[0].clone());
    let cert = webpki::EndEntityCert::try_from(&der).expect("a certificate");
    cert.serial().to_vec()
}

fn files(ca: &TestCa, dir: &Path, client_ca: bool) -> TlsFiles {
    let (cert_file, key_file) = ca.server("server", 1);
    let _ = dir;
    TlsFiles {
        cert_file,
        key_file,
        client_ca_file: client_ca.then(|| ca.cert.clone()),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_clients_are_served_while_trickled_handshakes_are_shed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ca = TestCa::new(dir.path());
    let tls = ServerTls::load(&files(&ca, dir.path(), false)).expect("server TLS");
    let (addr, connections) = serve(tls, 8);
    let client = ClientTls::load(&ca.cert, None).expect("client TLS");
    // Six sockets trickle a ClientHello's first bytes, one every 50 ms, never finishing.
    let hello = Trickle {
        head: vec![0x16, 0x03, 0x01, 0x02, 0x00, 0x01],
        repeat: vec![0x00],
        pace: Duration::from_millis(50),
    };
    let siege = Siege::start(
        addr,
        IpAddr::V4(Ipv4Addr::LOCALHOST),
        0,
        6,
        hello,
        Duration::from_secs(10),
    )
    .await
    .expect("siege");
    let mut real = dial(&client, addr).await;
    assert_eq!(ask(&mut real, "hello\n").await, "- hello\n");
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while siege.held() > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "trickled handshakes still open: {}",
            siege.held()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(connections.shed() >= 6, "shed {}", connections.shed());
    assert_eq!(
        ask(&mut real, "still\n").await,
        "- still\n",
        "the real client kept"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plaintext_client_is_told_and_the_listener_goes_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ca = TestCa::new(dir.path());
    let tls = ServerTls::load(&files(&ca, dir.path(), false)).expect("server TLS");
    let (addr, _) = serve(tls, 8);
    let mut plain = TcpStream::connect(addr).await.expect("connect");
    plain.write_all(b"hello in clear\n").await.expect("send");
    let mut answer = String::new();
    tokio::time::timeout(Duration::from_secs(5), plain.read_to_string(&mut answer))
        .await
        .expect("closed in time")
        .expect("read");
    assert_eq!(answer, "this port speaks TLS only\n");
    let client = ClientTls::load(&ca.cert, None).expect("client TLS");
    let mut real = dial(&client, addr).await;
    assert_eq!(ask(&mut real, "after\n").await, "- after\n");
    // A client trusting another CA fails its handshake, with a reason.
    let other = tempfile::tempdir().expect("tempdir");
    let stranger = ClientTls::load(&TestCa::new(other.path()).cert, None).expect("TLS");
    let tcp = TcpStream::connect(addr).await.expect("connect");
    let refused = stranger
        .connect("127.0.0.1", tcp)
        .await
        .err()
        .expect("refused");
    assert!(
        refused.to_string().contains("TLS with 127.0.0.1 failed"),
        "{refused}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replaced_certificate_is_served_without_a_restart_and_a_broken_one_is_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ca = TestCa::new(dir.path());
    let files = files(&ca, dir.path(), false);
    let tls = ServerTls::load(&files).expect("server TLS");
    let (addr, _) = serve(tls.clone(), 8);
    let client = ClientTls::load(&ca.cert, None).expect("client TLS");
    let mut before = dial(&client, addr).await;
    assert_eq!(serial(&before), vec![1]);
    // The new pair is written beside and moved over the old one.
    let (cert, key) = ca.server("next", 2);
    std::fs::rename(&cert, &files.cert_file).expect("replace the certificate");
    std::fs::rename(&key, &files.key_file).expect("replace the key");
    // A handshake looks at the files at most once a second.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let after = dial(&client, addr).await;
    assert_eq!(serial(&after), vec![2], "the new certificate");
    assert_eq!(
        ask(&mut before, "old\n").await,
        "- old\n",
        "the old connection goes on"
    );
    // A broken replacement: the previous pair stays.
    std::fs::write(&files.cert_file, "not a certificate\n").expect("break it");
    assert!(!tls.reload_now(), "a broken pair is not loaded");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let mut still = dial(&client, addr).await;
    assert_eq!(serial(&still), vec![2], "the previous certificate kept");
    assert_eq!(ask(&mut still, "ok\n").await, "- ok\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verified_client_certificate_names_its_holder() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ca = TestCa::new(dir.path());
    let tls = ServerTls::load(&files(&ca, dir.path(), true)).expect("server TLS");
    assert!(tls.verifies_clients());
    let (addr, _) = serve(tls, 8);
    let (cert, key) = ca.issue("alice", "alice", "", 10);
    let alice = ClientTls::load(&ca.cert, Some((&cert, &key))).expect("client TLS");
    let mut stream = dial(&alice, addr).await;
    assert_eq!(ask(&mut stream, "hi\n").await, "alice hi\n");
    let (cert, key) = ca.issue("svc", "ignored", "DNS:svc.example.com", 11);
    let svc = ClientTls::load(&ca.cert, Some((&cert, &key))).expect("client TLS");
    let mut stream = dial(&svc, addr).await;
    assert_eq!(ask(&mut stream, "hi\n").await, "svc.example.com hi\n");
    // Without a certificate: served, and named by nobody.
    let anonymous = ClientTls::load(&ca.cert, None).expect("client TLS");
    let mut stream = dial(&anonymous, addr).await;
    assert_eq!(ask(&mut stream, "hi\n").await, "- hi\n");
}
