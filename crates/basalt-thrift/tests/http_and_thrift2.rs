//! The two newer listeners over real sockets: Thrift over HTTP and the Thrift2 service.
//! Each gets good calls, random bytes and truncated messages; the bad connection is
//! answered or closed, and a connection opened before it keeps working.

use crate::support;

use basalt_thrift::protocol::{Limits, Struct, TType, Value};
use basalt_thrift::ThriftConfig;
use std::io::Write;
use support::http::Http;
use support::{args, bin, gateway, Client, Reply};

fn random_bytes(state: &mut u64, len: usize) -> Vec<u8> {
    (0..len)
        .map(|_| {
            *state ^= *state << 13;
            *state ^= *state >> 7;
            *state ^= *state << 17;
            *state as u8
        })
        .collect()
}

fn table_names(http: &mut Http) -> Option<Value> {
    http.call("getTableNames", &args()).get(0).cloned()
}

#[test]
fn thrift1_over_http_answers_calls_and_survives_garbage_bodies() {
    let g = gateway(ThriftConfig {
        http: true,
        ..ThriftConfig::default()
    });
    let mut healthy = Http::connect(&g.server);
    let family = Value::Struct(Struct::new().with(1, bin("cf:")));
    let created = healthy.call(
        "createTable",
        &args()
            .with(1, bin("t"))
            .with(2, Value::List(TType::Struct, vec![family])),
    );
    assert_eq!(created, Struct::new());
    assert_eq!(
        table_names(&mut healthy),
        Some(Value::binary_list(["t".into()]))
    );

    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for round in 0..20 {
        let mut bad = Http::connect(&g.server);
        let mut body = random_bytes(&mut state, 1 + round * 11);
        body[0] |= 0x80;
        let answered = bad.post(&body);
        // Garbage is refused with 400 (or a TApplicationException when its head parsed).
        if let Some((status, _)) = answered {
            assert!(status == 400 || status == 200, "status {status}");
        }
    }
    // A body cut short, then the client leaves: a 400 or a closed connection, never a hang.
    let mut cut = Http::connect(&g.server);
    cut.send_head(100);
    cut.stream.write_all(b"\x80\x01\x00\x01").expect("send");
    cut.stream
        .shutdown(std::net::Shutdown::Write)
        .expect("half-close");
    let answered = cut.response();
    assert!(matches!(answered, None | Some((400, _))), "{answered:?}");
    // A body over the message limit is refused before it is read.
    let mut big = Http::connect(&g.server);
    big.send_head(Limits::default().message_max_bytes + 1);
    let (status, _) = big.response().expect("a response");
    assert_eq!(status, 413);

    assert_eq!(
        table_names(&mut healthy),
        Some(Value::binary_list(["t".into()]))
    );
    assert_eq!(
        table_names(&mut Http::connect(&g.server)),
        Some(Value::binary_list(["t".into()]))
    );
}

fn column_value(family: &str, qualifier: &str, value: &str) -> Value {
    Value::Struct(
        Struct::new()
            .with(1, bin(family))
            .with(2, bin(qualifier))
            .with(3, bin(value)),
    )
}

fn tput(row: &str, values: Vec<Value>) -> Value {
    Value::Struct(
        Struct::new()
            .with(1, bin(row))
            .with(2, Value::List(TType::Struct, values)),
    )
}

fn tget(row: &str) -> Value {
    Value::Struct(Struct::new().with(1, bin(row)))
}

/// The `(qualifier, value)` pairs of a `TResult`.
fn cells(result: &Value) -> Vec<(String, String)> {
    let result = result.as_struct().expect("TResult");
    result
        .list(2)
        .expect("columnValues")
        .iter()
        .map(|v| {
            let v = v.as_struct().expect("TColumnValue");
            let text = |id| String::from_utf8_lossy(v.binary(id).expect("field")).into_owned();
            (text(2), text(3))
        })
        .collect()
}

#[test]
fn thrift2_serves_data_and_admin_and_survives_garbage() {
    let g = gateway(ThriftConfig {
        thrift2: true,
        ..ThriftConfig::default()
    });
    let mut c = Client::buffered(&g.server);
    assert_eq!(
        c.call("getThriftServerType", args()).ok(),
        Some(Value::I32(2))
    );
    let table_name = Value::Struct(Struct::new().with(2, bin("t")));
    let family = Value::Struct(Struct::new().with(1, bin("cf")));
    let desc = Value::Struct(
        Struct::new()
            .with(1, table_name.clone())
            .with(2, Value::List(TType::Struct, vec![family])),
    );
    assert_eq!(c.call("createTable", args().with(1, desc)).ok(), None);
    assert_eq!(
        c.call("tableExists", args().with(1, table_name)).ok(),
        Some(Value::Bool(true))
    );
    let put = tput("r1", vec![column_value("cf", "a", "1")]);
    assert_eq!(
        c.call("put", args().with(1, bin("t")).with(2, put)).ok(),
        None
    );
    let got = c
        .call("get", args().with(1, bin("t")).with(2, tget("r1")))
        .ok()
        .expect("a TResult");
    assert_eq!(cells(&got), vec![("a".to_string(), "1".to_string())]);

    // checkAndMutate: EQUAL on the current value applies the row's mutations.
    let mutations = Value::Struct(Struct::new().with(1, bin("r1")).with(
        2,
        Value::List(
            TType::Struct,
            vec![Value::Struct(
                Struct::new().with(1, tput("r1", vec![column_value("cf", "b", "2")])),
            )],
        ),
    ));
    let check = |value: &str| {
        args()
            .with(1, bin("t"))
            .with(2, bin("r1"))
            .with(3, bin("cf"))
            .with(4, bin("a"))
            .with(5, Value::I32(2))
            .with(6, bin(value))
            .with(7, mutations.clone())
    };
    assert_eq!(
        c.call("checkAndMutate", check("0")).ok(),
        Some(Value::Bool(false))
    );
    assert_eq!(
        c.call("checkAndMutate", check("1")).ok(),
        Some(Value::Bool(true))
    );
    let got = c
        .call("get", args().with(1, bin("t")).with(2, tget("r1")))
        .ok()
        .expect("a TResult");
    assert_eq!(cells(&got).len(), 2);

    // An unknown scanner is a TIllegalArgument, as the IDL declares.
    let (message, _) = c
        .call("getScannerRows", args().with(1, Value::I32(12345)))
        .exception(2);
    assert!(message.contains("invalid"), "{message}");

    // Garbage and a truncated message on other connections close them.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for round in 0..20 {
        let mut bad = Client::buffered(&g.server);
        let mut bytes = random_bytes(&mut state, 1 + round * 7);
        bytes[0] |= 0x80;
        bad.send_raw(&bytes);
        bad.stream
            .shutdown(std::net::Shutdown::Write)
            .expect("half-close");
        while bad.read_reply().is_some() {}
    }
    let mut cut = Client::buffered(&g.server);
    let bytes = cut.encode("get", &args().with(1, bin("t")).with(2, tget("r1")));
    cut.send_raw(&bytes[..bytes.len() - 3]);
    cut.stream
        .shutdown(std::net::Shutdown::Write)
        .expect("half-close");
    assert!(cut.closed());
    assert_eq!(
        c.call("getThriftServerType", args()).ok(),
        Some(Value::I32(2))
    );
    let mut fresh = Client::buffered(&g.server);
    assert!(matches!(
        fresh.call("exists", args().with(1, bin("t")).with(2, tget("r1"))),
        Reply::Result(_)
    ));
}
