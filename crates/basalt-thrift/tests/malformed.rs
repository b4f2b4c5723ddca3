//! Malformed input over a real socket: each bad connection is answered with a
//! `TApplicationException` or closed, promptly, and a second connection keeps working.

use crate::support;

use basalt_thrift::protocol::{Limits, ProtocolKind, Struct, TType, Value};
use basalt_thrift::transport::TransportKind;
use basalt_thrift::ThriftConfig;
use support::{args, bin, create_table, gateway, Client, Gateway, Reply};

/// `TApplicationException` types.
const UNKNOWN_METHOD: i32 = 1;
const PROTOCOL_ERROR: i32 = 7;

/// A healthy connection (opened before the trouble, or a new one) still gets answers.
fn serves(c: &mut Client) {
    assert_eq!(
        c.call("getTableNames", args()).ok(),
        Some(Value::binary_list(["t".into()]))
    );
}

fn still_serves(g: &Gateway, transport: TransportKind, protocol: ProtocolKind) {
    serves(&mut Client::connect(&g.server, transport, protocol));
}

fn setup(config: ThriftConfig) -> Gateway {
    let transport = match config.framed {
        true => TransportKind::Framed,
        false => TransportKind::Buffered,
    };
    let protocol = match config.compact {
        true => ProtocolKind::Compact,
        false => ProtocolKind::Binary,
    };
    let g = gateway(config);
    create_table(
        &mut Client::connect(&g.server, transport, protocol),
        "t",
        &["cf"],
    );
    g
}

#[test]
fn an_unknown_method_is_consumed_and_answered_and_the_connection_stays_usable() {
    for (framed, compact) in [(false, false), (true, false), (false, true)] {
        let g = setup(ThriftConfig {
            framed,
            compact,
            ..ThriftConfig::default()
        });
        let transport = if framed {
            TransportKind::Framed
        } else {
            TransportKind::Buffered
        };
        let protocol = if compact {
            ProtocolKind::Compact
        } else {
            ProtocolKind::Binary
        };
        let mut c = Client::connect(&g.server, transport, protocol);
        let junk = args().with(1, bin("x")).with(
            7,
            Value::List(
                TType::Struct,
                vec![Value::Struct(Struct::new().with(3, Value::I64(1)))],
            ),
        );
        match c.call("noSuchMethod", junk) {
            Reply::AppException(message, kind) => {
                assert_eq!(kind, UNKNOWN_METHOD);
                assert!(message.contains("noSuchMethod"), "{message}");
            }
            other => panic!("expected UNKNOWN_METHOD, got {other:?}"),
        }
        assert_eq!(
            c.call("getTableNames", args()).ok(),
            Some(Value::binary_list(["t".into()]))
        );
    }
}

#[test]
fn wrong_field_types_are_skipped_like_absent_fields() {
    let g = setup(ThriftConfig::default());
    let mut c = Client::buffered(&g.server);
    // tableName as an i32: skipped, so the argument is missing.
    let (message, _) = c
        .call("getRow", args().with(1, Value::I32(5)).with(2, bin("r")))
        .exception(1);
    assert!(message.contains("missing argument tableName"), "{message}");
    let (message, _) = c
        .call("scannerGetList", args().with(1, bin("id")))
        .exception(2);
    assert!(message.contains("missing argument id"), "{message}");
    assert_eq!(
        c.call("getTableNames", args()).ok(),
        Some(Value::binary_list(["t".into()]))
    );
}

#[test]
fn absurd_lengths_get_a_protocol_error_and_a_closed_connection() {
    let g = setup(ThriftConfig::default());
    let mut healthy = Client::buffered(&g.server);
    serves(&mut healthy);
    let mut c = Client::buffered(&g.server);
    // getRow with field 1 a binary announcing 2 GiB - 1.
    let mut bytes = c.encode("getRow", &args());
    bytes.pop();
    bytes.extend_from_slice(&[11, 0, 1, 0x7f, 0xff, 0xff, 0xff]);
    c.send_raw(&bytes);
    match c.read_reply() {
        Some(Reply::AppException(message, kind)) => {
            assert_eq!(kind, PROTOCOL_ERROR);
            assert!(message.contains("string length"), "{message}");
        }
        other => panic!("expected PROTOCOL_ERROR, got {other:?}"),
    }
    assert!(c.closed());
    // A list of 2^31-1 elements.
    let mut c = Client::buffered(&g.server);
    let mut bytes = c.encode("getRows", &args());
    bytes.pop();
    bytes.extend_from_slice(&[15, 0, 2, 11, 0x7f, 0xff, 0xff, 0xff]);
    c.send_raw(&bytes);
    assert!(matches!(
        c.read_reply(),
        Some(Reply::AppException(_, PROTOCOL_ERROR))
    ));
    assert!(c.closed());
    // Nesting past the limit.
    let mut c = Client::buffered(&g.server);
    let mut deep = Struct::new();
    for _ in 0..Limits::default().depth_max + 1 {
        deep = Struct::new().with(1, Value::Struct(deep));
    }
    assert!(matches!(
        c.call("getRow", deep),
        Reply::AppException(_, PROTOCOL_ERROR)
    ));
    serves(&mut healthy);
    still_serves(&g, TransportKind::Buffered, ProtocolKind::Binary);
}

#[test]
fn an_absurd_frame_length_closes_the_connection() {
    let g = setup(ThriftConfig {
        framed: true,
        ..ThriftConfig::default()
    });
    let mut healthy = Client::connect(&g.server, TransportKind::Framed, ProtocolKind::Binary);
    serves(&mut healthy);
    let mut c = Client::connect(&g.server, TransportKind::Framed, ProtocolKind::Binary);
    c.send_raw(&0x7fff_fff0u32.to_be_bytes());
    assert!(c.closed());
    let mut c = Client::connect(&g.server, TransportKind::Framed, ProtocolKind::Binary);
    c.send_raw(&(-5i32).to_be_bytes());
    assert!(c.closed());
    serves(&mut healthy);
    still_serves(&g, TransportKind::Framed, ProtocolKind::Binary);
}

#[test]
fn random_bytes_and_truncated_messages_close_the_connection() {
    let g = setup(ThriftConfig::default());
    let mut healthy = Client::buffered(&g.server);
    serves(&mut healthy);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for round in 0..30 {
        let mut c = Client::buffered(&g.server);
        let mut bytes = vec![0u8; 1 + round * 7];
        for b in &mut bytes {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            *b = state as u8;
        }
        bytes[0] = 0x80 | (bytes[0] & 0x7f);
        c.send_raw(&bytes);
        c.stream
            .shutdown(std::net::Shutdown::Write)
            .expect("half-close");
        // Whatever the bytes, the server answers or closes; it never waits forever.
        while c.read_reply().is_some() {}
    }
    // A message cut short, then the peer goes quiet and leaves.
    let mut c = Client::buffered(&g.server);
    let bytes = c.encode("getRow", &args().with(1, bin("t")).with(2, bin("row")));
    c.send_raw(&bytes[..bytes.len() - 3]);
    c.stream
        .shutdown(std::net::Shutdown::Write)
        .expect("half-close");
    assert!(c.closed());
    serves(&mut healthy);
    still_serves(&g, TransportKind::Buffered, ProtocolKind::Binary);
}

#[test]
fn a_client_speaking_the_wrong_transport_or_protocol_is_closed_promptly() {
    let g = setup(ThriftConfig::default());
    for (transport, protocol) in [
        (TransportKind::Framed, ProtocolKind::Binary),
        (TransportKind::Buffered, ProtocolKind::Compact),
        (TransportKind::Framed, ProtocolKind::Compact),
    ] {
        let mut c = Client::connect(&g.server, transport, protocol);
        let bytes = c.encode("getTableNames", &args());
        c.send_raw(&bytes);
        assert!(c.closed(), "{transport:?} {protocol:?}");
    }
    let framed = setup(ThriftConfig {
        framed: true,
        ..ThriftConfig::default()
    });
    let compact = setup(ThriftConfig {
        compact: true,
        ..ThriftConfig::default()
    });
    for server in [&framed, &compact] {
        let mut c = Client::buffered(&server.server);
        let bytes = c.encode("getTableNames", &args());
        c.send_raw(&bytes);
        assert!(c.closed());
    }
    still_serves(&g, TransportKind::Buffered, ProtocolKind::Binary);
}

#[test]
fn connections_past_the_cap_are_closed_and_shutdown_ends_open_ones() {
    let g = setup(ThriftConfig {
        connections_max: 2,
        ..ThriftConfig::default()
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while g.server.connections() > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "setup connection never ended"
        );
        std::thread::yield_now();
    }
    let mut a = Client::buffered(&g.server);
    let mut b = Client::buffered(&g.server);
    a.call("getTableNames", args()).ok();
    b.call("getTableNames", args()).ok();
    let mut third = Client::buffered(&g.server);
    assert!(third.closed(), "the third connection is refused");
    a.call("getTableNames", args()).ok();
    let Gateway { server, .. } = g;
    server.shutdown();
    assert!(a.closed() && b.closed(), "shutdown ends open connections");
}

#[test]
fn a_call_stalled_halfway_is_closed_after_the_header_timeout() {
    let g = setup(ThriftConfig {
        header_timeout_ms: 200,
        ..ThriftConfig::default()
    });
    let mut stalled = Client::buffered(&g.server);
    let bytes = stalled.encode("getRow", &args().with(1, bin("t")).with(2, bin("r")));
    stalled.send_raw(&bytes[..bytes.len() / 2]);
    assert!(stalled.closed(), "half a message, then silence, is closed");
    still_serves(&g, TransportKind::Buffered, ProtocolKind::Binary);
}
