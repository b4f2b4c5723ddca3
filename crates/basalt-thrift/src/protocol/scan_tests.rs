//! The scanner against the decoder: the same verdict on every prefix of real messages and
//! on random bytes.

use super::*;
use crate::protocol::{read_message, reader, write_message, MessageHeader, Struct, Value};

const KINDS: [ProtocolKind; 2] = [ProtocolKind::Binary, ProtocolKind::Compact];

/// The decoder's verdict on `bytes`.
#[derive(Debug, PartialEq)]
enum Verdict {
    Ok(usize),
    /// It ran out of bytes.
    Short,
    Error,
}

fn decode(kind: ProtocolKind, bytes: &[u8], limits: &Limits) -> Verdict {
    let mut input = bytes;
    let result = {
        let mut r = reader(kind, &mut input, limits);
        read_message(r.as_mut())
    };
    match result {
        Ok(_) => Verdict::Ok(bytes.len() - input.len()),
        Err(e) if e.is_disconnect() => Verdict::Short,
        Err(_) => Verdict::Error,
    }
}

fn scan(kind: ProtocolKind, bytes: &[u8], limits: &Limits) -> Scan {
    Scanner::new(kind, limits.clone()).scan(bytes)
}

fn call(name: &str, body: &Struct, kind: ProtocolKind) -> Vec<u8> {
    let header = MessageHeader {
        name: name.to_string(),
        kind: MessageType::Call,
        seq_id: 300,
    };
    write_message(kind, &header, body)
}

fn every_type() -> Struct {
    let inner = Struct::new()
        .with(1, Value::Bool(false))
        .with(-300, Value::I64(-1))
        .with(2, Value::Double(2.5));
    Struct::new()
        .with(1, Value::Bool(true))
        .with(2, Value::Byte(-3))
        .with(3, Value::I16(-300))
        .with(4, Value::I32(i32::MIN))
        .with(5, Value::I64(i64::MAX))
        .with(7, Value::binary(vec![b'x'; 300]))
        .with(40, Value::Struct(inner.clone()))
        .with(
            -2,
            Value::List(TType::Bool, vec![Value::Bool(true), Value::Bool(false)]),
        )
        .with(9, Value::Set(TType::I32, (0..20).map(Value::I32).collect()))
        .with(
            10,
            Value::Map(
                TType::Binary,
                TType::Struct,
                vec![(Value::binary("k"), Value::Struct(inner))],
            ),
        )
        .with(11, Value::Map(TType::Binary, TType::Binary, vec![]))
        .with(12, Value::List(TType::Binary, vec![]))
}

#[test]
fn every_prefix_is_incomplete_and_the_whole_is_complete() {
    let limits = Limits::default();
    for kind in KINDS {
        let bytes = call("mutateRows", &every_type(), kind);
        for len in 0..bytes.len() {
            assert_eq!(
                scan(kind, &bytes[..len], &limits),
                Scan::Incomplete,
                "{kind:?} {len}"
            );
        }
        assert_eq!(scan(kind, &bytes, &limits), Scan::Complete(bytes.len()));
        // Fed a byte at a time to one scanner, resuming each time.
        let mut scanner = Scanner::new(kind, limits.clone());
        for len in 0..bytes.len() {
            assert_eq!(scanner.scan(&bytes[..len]), Scan::Incomplete);
        }
        assert_eq!(scanner.scan(&bytes), Scan::Complete(bytes.len()));
        // The next message's bytes behind it do not count.
        let mut two = bytes.clone();
        two.extend_from_slice(&call("get", &Struct::new(), kind));
        assert_eq!(scan(kind, &two, &limits), Scan::Complete(bytes.len()));
        scanner.reset();
        assert_eq!(
            scanner.scan(&two[bytes.len()..]),
            Scan::Complete(two.len() - bytes.len())
        );
    }
}

#[test]
fn old_style_binary_heads_are_walked() {
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&6i32.to_be_bytes());
    bytes.extend_from_slice(b"getRow");
    bytes.push(1);
    bytes.extend_from_slice(&9i32.to_be_bytes());
    bytes.push(0);
    let limits = Limits::default();
    assert_eq!(
        scan(ProtocolKind::Binary, &bytes, &limits),
        Scan::Complete(bytes.len())
    );
}

#[test]
fn a_limit_is_refused_before_its_bytes_arrive() {
    let limits = Limits {
        string_max_bytes: 10,
        container_max_len: 5,
        depth_max: 3,
        message_max_bytes: 70,
        ..Limits::default()
    };
    for kind in KINDS {
        let cases = [
            Struct::new().with(1, Value::binary(vec![b'x'; 11])),
            Struct::new().with(1, Value::List(TType::I32, (0..6).map(Value::I32).collect())),
            Struct::new().with(1, Value::binary(vec![b'x'; 10])).with(
                2,
                Value::List(
                    TType::Binary,
                    (0..5).map(|_| Value::binary("0123456789")).collect(),
                ),
            ),
            (0..3).fold(Struct::new(), |inner, _| {
                Struct::new().with(1, Value::Struct(inner))
            }),
        ];
        for body in cases {
            let bytes = call("get", &body, kind);
            // A few bytes past the offending length or nesting are enough to refuse.
            let verdicts: Vec<Scan> = (0..=bytes.len())
                .map(|len| scan(kind, &bytes[..len], &limits))
                .collect();
            assert_eq!(verdicts.last(), Some(&Scan::Invalid), "{kind:?} {body:?}");
            assert_eq!(decode(kind, &bytes, &limits), Verdict::Error);
        }
    }
}

/// A 64-bit xorshift, for reproducible random bytes.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn on_random_bytes_the_scanner_agrees_with_the_decoder() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let limits = Limits {
        string_max_bytes: 40,
        container_max_len: 30,
        values_max: 50,
        depth_max: 4,
        message_max_bytes: 120,
    };
    let mut seen = [0usize; 3];
    for round in 0..40_000 {
        let kind = KINDS[round % 2];
        let mut bytes = call("get", &Struct::new(), kind);
        bytes.pop();
        if round % 7 == 0 {
            bytes.clear();
        }
        let len = (next(&mut state) % 48) as usize;
        for _ in 0..len {
            // Small bytes often, so that lengths, counts and type codes are plausible.
            let b = next(&mut state);
            bytes.push(if b.is_multiple_of(3) {
                (b >> 8) as u8
            } else {
                ((b >> 8) % 16) as u8
            });
        }
        let scanned = scan(kind, &bytes, &limits);
        let decoded = decode(kind, &bytes, &limits);
        match (&decoded, scanned) {
            (Verdict::Ok(n), Scan::Complete(m)) if *n == m => seen[0] += 1,
            (Verdict::Error, Scan::Invalid) => seen[1] += 1,
            // The scanner refuses a bad method name before all of it has arrived.
            (Verdict::Short, Scan::Incomplete | Scan::Invalid) => seen[2] += 1,
            _ => panic!("{kind:?} {bytes:?}: decoder {decoded:?}, scanner {scanned:?}"),
        }
    }
    assert!(
        seen.iter().all(|n| *n > 100),
        "every verdict is exercised: {seen:?}"
    );
}
