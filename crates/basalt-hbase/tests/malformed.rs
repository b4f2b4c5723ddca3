//! Malformed input on the native RPC port, over real sockets: random bytes, bad preambles,
//! truncated frames, absurd lengths, unknown services and methods. Each bad connection is
//! answered with HBase's exception or closed, promptly; a connection opened before the
//! trouble, and a new one, keep working.

use crate::support;

use basalt_hbase::pb;
use basalt_hbase::HbaseConfig;
use bytes::Bytes;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};
use support::{create_table, get, regions, Client};

/// The server closes `stream` within two seconds (reads end, or fail with a reset).
fn closed(mut stream: TcpStream) {
    stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .expect("timeout");
    let begun = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => panic!("not closed after {:?}: {e}", begun.elapsed()),
        }
    }
}

/// A Get on the first region of `t` answers (an empty row is fine).
fn serves(client: &mut Client) {
    let name = regions(client, "t")[0].clone();
    let request = pb::GetRequest {
        region: support::region(&name),
        get: get(b"r"),
    };
    let _: pb::GetResponse = client.ok("Get", &request);
}

fn setup() -> (support::Server, Client) {
    let s = support::server(HbaseConfig::default());
    create_table(&s.server, "t", &[]);
    let established = Client::connect(&s.server, "ClientService");
    (s, established)
}

#[test]
fn random_bytes_close_only_their_connection() {
    let (s, mut established) = setup();
    serves(&mut established);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..20 {
        let mut junk = vec![0u8; 256];
        for b in junk.iter_mut() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            *b = seed as u8;
        }
        let mut stream = Client::raw(&s.server);
        stream.write_all(&junk).expect("send junk");
        closed(stream);
    }
    serves(&mut established);
    serves(&mut Client::connect(&s.server, "ClientService"));
}

#[test]
fn junk_after_a_good_preface_closes_the_connection() {
    let (s, mut established) = setup();
    let mut client = Client::connect(&s.server, "ClientService");
    serves(&mut client);
    // A frame whose request header claims far more bytes than the frame holds.
    client
        .stream
        .write_all(&[0, 0, 0, 3, 0xff, 0xff, 0x03])
        .expect("send");
    closed(client.stream);
    serves(&mut established);
}

#[test]
fn wrong_versions_and_authentication_get_hbases_fatal_answer() {
    let (s, mut established) = setup();
    for (preamble, class) in [
        (
            &b"HBas\x01\x50"[..],
            "org.apache.hadoop.hbase.ipc.WrongVersionException",
        ),
        (
            &b"HBas\x00\x51"[..],
            "org.apache.hadoop.hbase.ipc.BadAuthException",
        ),
    ] {
        let mut stream = Client::raw(&s.server);
        stream.write_all(preamble).expect("send");
        let (header, _) = Client::read_answer(&mut stream).expect("a fatal answer");
        let exception = header.exception.expect("an exception");
        assert_eq!(exception.exception_class_name.as_deref(), Some(class));
        assert_eq!(header.call_id, Some(u32::MAX), "call id -1");
        closed(stream);
    }
    let mut stream = Client::raw(&s.server);
    stream.write_all(b"GET / HTTP/1.1\r\n\r\n").expect("send");
    closed(stream);
    serves(&mut established);
}

#[test]
fn an_unknown_service_is_refused_and_an_unknown_method_answered() {
    let (s, mut established) = setup();
    let mut nowhere = Client::connect(&s.server, "NoSuchService");
    let (header, _) = Client::read_answer(&mut nowhere.stream).expect("a fatal answer");
    assert_eq!(
        header
            .exception
            .and_then(|e| e.exception_class_name)
            .as_deref(),
        Some("org.apache.hadoop.hbase.ipc.UnknownServiceException")
    );
    closed(nowhere.stream);
    let mut client = Client::connect(&s.server, "ClientService");
    let unknown = client
        .call("Teleport", &pb::GetRequest::default())
        .expect_err("refused");
    assert_eq!(
        unknown.exception_class_name.as_deref(),
        Some("java.lang.UnsupportedOperationException")
    );
    assert_eq!(unknown.do_not_retry, Some(true));
    let unsupported = client
        .call("BulkLoadHFile", &pb::GetRequest::default())
        .expect_err("refused");
    assert_eq!(
        unsupported.exception_class_name.as_deref(),
        Some("org.apache.hadoop.hbase.DoNotRetryIOException")
    );
    // A request that is not the method's message is answered, and the connection stays.
    let garbage = pb::Cell {
        row: Some(Bytes::from_static(b"\xff\xff")),
        ..Default::default()
    };
    let bad = client.call("Get", &garbage).expect_err("refused");
    assert_eq!(bad.do_not_retry, Some(true));
    serves(&mut client);
    serves(&mut established);
}

#[test]
fn absurd_and_truncated_frames_close_promptly() {
    let (s, mut established) = setup();
    let mut huge = Client::connect(&s.server, "ClientService");
    huge.stream
        .write_all(&[0xff, 0xff, 0xff, 0xff])
        .expect("send");
    closed(huge.stream);
    let mut header = Client::raw(&s.server);
    header
        .write_all(b"HBas\x00\x50\x7f\xff\xff\xff")
        .expect("send");
    closed(header);
    // A frame that stops short, then the client goes away: nothing is left behind.
    let mut cut = Client::connect(&s.server, "ClientService");
    cut.stream
        .write_all(&[0, 0, 0, 100, 1, 2, 3])
        .expect("send");
    drop(cut);
    serves(&mut established);
    let deadline = Instant::now() + Duration::from_secs(5);
    while s.server.connections() > 1 {
        assert!(
            Instant::now() < deadline,
            "{} connections left",
            s.server.connections()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_zookeeper_session_survives_junk_on_another() {
    let s = support::server(HbaseConfig::default());
    let config = HbaseConfig {
        zookeeper_port: 0,
        ..HbaseConfig::default()
    };
    let zk =
        basalt_hbase::zookeeper::start(&config, s.server.identity(), "cid").expect("zookeeper");
    let mut good = TcpStream::connect(zk.local_addr()).expect("connect");
    good.set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    let mut connect = Vec::new();
    connect.extend_from_slice(&0i32.to_be_bytes());
    connect.extend_from_slice(&0i64.to_be_bytes());
    connect.extend_from_slice(&10_000i32.to_be_bytes());
    connect.extend_from_slice(&0i64.to_be_bytes());
    connect.extend_from_slice(&0i32.to_be_bytes());
    let mut frame = (connect.len() as u32).to_be_bytes().to_vec();
    frame.extend_from_slice(&connect);
    good.write_all(&frame).expect("connect");
    let mut len = [0u8; 4];
    good.read_exact(&mut len).expect("connect answer");
    let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
    good.read_exact(&mut body).expect("connect answer");
    for junk in [
        &[0xff, 0xff, 0xff, 0xff][..],
        &[0, 0, 0, 2, 1],
        &[0, 0, 0, 4, 9, 9, 9, 9],
    ] {
        let mut bad = TcpStream::connect(zk.local_addr()).expect("connect");
        bad.write_all(junk).expect("send");
        if junk.len() == 5 {
            drop(bad);
            continue;
        }
        closed(bad);
    }
    // getData /hbase/master on the good session.
    let path = b"/hbase/master";
    let mut request = Vec::new();
    request.extend_from_slice(&1i32.to_be_bytes());
    request.extend_from_slice(&4i32.to_be_bytes());
    request.extend_from_slice(&(path.len() as i32).to_be_bytes());
    request.extend_from_slice(path);
    request.push(0);
    let mut frame = (request.len() as u32).to_be_bytes().to_vec();
    frame.extend_from_slice(&request);
    good.write_all(&frame).expect("getData");
    good.read_exact(&mut len).expect("reply");
    let mut reply = vec![0u8; u32::from_be_bytes(len) as usize];
    good.read_exact(&mut reply).expect("reply");
    assert_eq!(&reply[12..16], &0i32.to_be_bytes(), "no error");
    zk.shutdown();
}
