//! Each `Hbase` method over a real socket: HBase's server-side semantics and exceptions.

use crate::support;

use basalt_thrift::protocol::{TType, Value};
use basalt_thrift::ThriftConfig;
use support::{args, bin, cells, create_table, gateway, list, mutation, rows, Client};

fn s(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn admin_methods_follow_hbase() {
    let g = gateway(ThriftConfig::default());
    let mut c = Client::buffered(&g.server);
    create_table(&mut c, "t", &["cf", "g"]);
    let reply = c.call(
        "createTable",
        args().with(1, bin("t")).with(2, list(vec![])),
    );
    let (message, _) = reply.exception(2);
    assert_eq!(message, "a table needs at least one column family");
    let (message, _) = c
        .call(
            "createTable",
            args().with(1, bin("t")).with(
                2,
                list(vec![Value::Struct(
                    basalt_thrift::protocol::Struct::new().with(1, bin("x:")),
                )]),
            ),
        )
        .exception(3);
    assert_eq!(message, "table name already in use");
    let names = c.call("getTableNames", args()).ok();
    assert_eq!(names, Some(Value::binary_list(["t".into()])));
    let enabled = c.call("getTableNamesWithIsTableEnabled", args()).ok();
    assert_eq!(
        enabled,
        Some(Value::Map(
            TType::Binary,
            TType::Bool,
            vec![(bin("t"), Value::Bool(true))]
        ))
    );
    let Some(Value::Map(_, _, descriptors)) = c
        .call("getColumnDescriptors", args().with(1, bin("t")))
        .ok()
    else {
        panic!("a map")
    };
    assert_eq!(descriptors.len(), 2);
    let cf = descriptors[0].1.as_struct().expect("descriptor");
    assert_eq!(descriptors[0].0, bin("cf:"));
    assert_eq!(cf.i32(2), Some(3), "the IDL's default versions");
    assert_eq!(cf.bool(8), Some(false), "block cache off");
    assert_eq!(
        c.call("getThriftServerType", args()).ok(),
        Some(Value::I32(1))
    );
    let (message, can_retry) = c
        .call("deleteTable", args().with(1, bin("nope")))
        .exception(1);
    assert_eq!(message, "table does not exist");
    assert_eq!(can_retry, Some(false));
    c.call("disableTable", args().with(1, bin("t"))).ok();
    assert_eq!(
        c.call("isTableEnabled", args().with(1, bin("t"))).ok(),
        Some(Value::Bool(false))
    );
    c.call("deleteTable", args().with(1, bin("t"))).ok();
    assert_eq!(
        c.call("getTableNames", args()).ok(),
        Some(Value::binary_list([]))
    );
}

#[test]
fn reads_and_writes_follow_hbase() {
    let g = gateway(ThriftConfig::default());
    let mut c = Client::buffered(&g.server);
    create_table(&mut c, "t", &["cf", "g"]);
    let t = || args().with(1, bin("t"));
    // mutateRowTs: a put at a timestamp.
    for ts in [10i64, 20, 30] {
        let m = list(vec![mutation(false, "cf:a", &format!("v{ts}"))]);
        c.call(
            "mutateRowTs",
            t().with(2, bin("r")).with(3, m).with(4, Value::I64(ts)),
        )
        .ok();
    }
    let ver = |c: &mut Client, ts: Option<i64>, n: i32| match ts {
        None => cells(
            c.call(
                "getVer",
                t().with(2, bin("r"))
                    .with(3, bin("cf:a"))
                    .with(4, Value::I32(n)),
            )
            .ok(),
        ),
        Some(ts) => cells(
            c.call(
                "getVerTs",
                t().with(2, bin("r"))
                    .with(3, bin("cf:a"))
                    .with(4, Value::I64(ts))
                    .with(5, Value::I32(n)),
            )
            .ok(),
        ),
    };
    assert_eq!(
        ver(&mut c, None, 10),
        vec![("v30".into(), 30), ("v20".into(), 20), ("v10".into(), 10)]
    );
    // [0, ts): the version at ts itself is not read.
    assert_eq!(
        ver(&mut c, Some(30), 10),
        vec![("v20".into(), 20), ("v10".into(), 10)]
    );
    assert_eq!(
        cells(
            c.call("get", t().with(2, bin("r")).with(3, bin("cf:a")))
                .ok()
        ),
        vec![("v30".into(), 30)]
    );
    // mutateRow applies a row's deletes and puts together.
    let m = list(vec![mutation(false, "cf:b", "old")]);
    c.call(
        "mutateRowTs",
        t().with(2, bin("r")).with(3, m).with(4, Value::I64(5)),
    )
    .ok();
    let m = list(vec![
        mutation(false, "cf:c", "new"),
        mutation(true, "cf:b", ""),
    ]);
    c.call("mutateRow", t().with(2, bin("r")).with(3, m)).ok();
    let row = rows(
        c.call(
            "getRowWithColumns",
            t().with(2, bin("r"))
                .with(3, list(vec![bin("cf:b"), bin("cf:c")])),
        )
        .ok(),
    );
    assert_eq!(row, vec![("r".to_string(), s(&[("cf:c", "new")]))]);
    c.call("deleteAll", t().with(2, bin("r")).with(3, bin("cf:c")))
        .ok();
    // mutateRows applies every put, then every delete.
    let batch = Value::Struct(
        basalt_thrift::protocol::Struct::new()
            .with(1, bin("r"))
            .with(
                2,
                list(vec![
                    mutation(true, "cf:b", ""),
                    mutation(false, "cf:b", "gone"),
                ]),
            ),
    );
    c.call("mutateRows", t().with(2, list(vec![batch]))).ok();
    let row = rows(c.call("getRow", t().with(2, bin("r"))).ok());
    assert_eq!(row, vec![("r".to_string(), s(&[("cf:a", "v30")]))]);
    // A put without a qualifier is an IllegalArgument.
    let m = list(vec![mutation(false, "cf", "x")]);
    let (message, _) = c
        .call("mutateRow", t().with(2, bin("r")).with(3, m))
        .exception(2);
    assert_eq!(message, "Invalid famAndQf provided.");
    // Counters: `cf` alone is the empty qualifier.
    let inc = |c: &mut Client, col: &str, by: i64| {
        c.call(
            "atomicIncrement",
            t().with(2, bin("n"))
                .with(3, bin(col))
                .with(4, Value::I64(by)),
        )
        .ok()
    };
    assert_eq!(inc(&mut c, "cf:n", 0), Some(Value::I64(0)));
    assert_eq!(inc(&mut c, "cf:n", 5), Some(Value::I64(5)));
    assert_eq!(inc(&mut c, "cf", 2), Some(Value::I64(2)));
    let tinc = Value::Struct(
        basalt_thrift::protocol::Struct::new()
            .with(1, bin("t"))
            .with(2, bin("n"))
            .with(3, bin("cf:n"))
            .with(4, Value::I64(10)),
    );
    c.call("increment", args().with(1, tinc.clone())).ok();
    c.call(
        "incrementRows",
        args().with(1, list(vec![tinc.clone(), tinc])),
    )
    .ok();
    assert_eq!(inc(&mut c, "cf:n", 0), Some(Value::I64(35)));
    // append returns the new cells.
    let app = Value::Struct(
        basalt_thrift::protocol::Struct::new()
            .with(1, bin("t"))
            .with(2, bin("r"))
            .with(3, list(vec![bin("g:s")]))
            .with(4, list(vec![bin("ab")])),
    );
    c.call("append", args().with(1, app.clone())).ok();
    let appended = cells(c.call("append", args().with(1, app)).ok());
    assert_eq!(appended[0].0, "abab");
    // checkAndPut: an unset value means "must not exist".
    let cap = |c: &mut Client, value: Option<&str>, new: &str| {
        let mut a = t().with(2, bin("r")).with(3, bin("cf:c"));
        if let Some(v) = value {
            a = a.with(5, bin(v));
        }
        c.call("checkAndPut", a.with(6, mutation(false, "cf:c", new)))
            .ok()
    };
    assert_eq!(cap(&mut c, None, "1"), Some(Value::Bool(true)));
    assert_eq!(cap(&mut c, None, "2"), Some(Value::Bool(false)));
    assert_eq!(cap(&mut c, Some("1"), "3"), Some(Value::Bool(true)));
    // deleteAll on a family, on a column; deleteAllRowTs up to a timestamp.
    c.call("deleteAll", t().with(2, bin("r")).with(3, bin("g")))
        .ok();
    c.call(
        "deleteAllTs",
        t().with(2, bin("r"))
            .with(3, bin("cf:a"))
            .with(4, Value::I64(20)),
    )
    .ok();
    assert_eq!(ver(&mut c, None, 10), vec![("v30".into(), 30)]);
    let row = rows(
        c.call("getRowTs", t().with(2, bin("r")).with(3, Value::I64(31)))
            .ok(),
    );
    assert_eq!(row, vec![("r".to_string(), s(&[("cf:a", "v30")]))]);
    c.call(
        "deleteAllRowTs",
        t().with(2, bin("r")).with(3, Value::I64(i64::MAX - 1)),
    )
    .ok();
    assert_eq!(rows(c.call("getRow", t().with(2, bin("r"))).ok()), vec![]);
    // getRows omits missing rows; the columns argument may be absent.
    let got = rows(
        c.call(
            "getRowsWithColumns",
            t().with(2, list(vec![bin("missing"), bin("n")])),
        )
        .ok(),
    );
    assert_eq!(
        got,
        vec![(
            "n".to_string(),
            s(&[("cf:", "\0\0\0\0\0\0\0\u{2}"), ("cf:n", "\0\0\0\0\0\0\0#")])
        )]
    );
    // A missing table is an IOError naming it.
    let (message, can_retry) = c
        .call("getRow", args().with(1, bin("nope")).with(2, bin("r")))
        .exception(1);
    assert!(message.contains("TableNotFoundException"), "{message}");
    assert_eq!(can_retry, Some(false));
}

/// happybase's `counter_get` is `atomicIncrement(…, 0)`. Since HBase 0.98 (HBASE-10252) an
/// increment by 0 of an existing counter answers its value and writes nothing; had it
/// written a version one millisecond ahead, a `counter_set` (a put at "now") in the same
/// millisecond would be masked — happybase's own `test_atomic_counters` failed so.
#[test]
fn reading_a_counter_by_incrementing_zero_writes_no_version() {
    let g = gateway(ThriftConfig::default());
    let mut c = Client::buffered(&g.server);
    create_table(&mut c, "t", &["cf"]);
    let t = || args().with(1, bin("t"));
    let forty_two = "\0\0\0\0\0\0\0*";
    let m = list(vec![mutation(false, "cf:n", forty_two)]);
    c.call(
        "mutateRowTs",
        t().with(2, bin("r")).with(3, m).with(4, Value::I64(10)),
    )
    .ok();
    let inc = |c: &mut Client, col: &str| {
        c.call(
            "atomicIncrement",
            t().with(2, bin("r"))
                .with(3, bin(col))
                .with(4, Value::I64(0)),
        )
        .ok()
    };
    assert_eq!(inc(&mut c, "cf:n"), Some(Value::I64(42)));
    assert_eq!(inc(&mut c, "cf:n"), Some(Value::I64(42)));
    let versions = |c: &mut Client, col: &str| {
        cells(
            c.call(
                "getVer",
                t().with(2, bin("r"))
                    .with(3, bin(col))
                    .with(4, Value::I32(10)),
            )
            .ok(),
        )
    };
    assert_eq!(versions(&mut c, "cf:n"), vec![(forty_two.to_string(), 10)]);
    // A missing counter is created at 0 (HBASE-17318).
    assert_eq!(inc(&mut c, "cf:fresh"), Some(Value::I64(0)));
    assert_eq!(versions(&mut c, "cf:fresh").len(), 1);
}

#[test]
fn scanners_follow_hbase() {
    let g = gateway(ThriftConfig::default());
    let mut c = Client::buffered(&g.server);
    create_table(&mut c, "t", &["cf"]);
    let t = || args().with(1, bin("t"));
    let batches: Vec<Value> = ["a1", "a2", "b1", "b2", "c1"]
        .iter()
        .map(|r| {
            Value::Struct(basalt_thrift::protocol::Struct::new().with(1, bin(r)).with(
                2,
                list(vec![
                    mutation(false, "cf:x", r),
                    mutation(false, "cf:y", "y"),
                ]),
            ))
        })
        .collect();
    c.call(
        "mutateRowsTs",
        t().with(2, list(batches)).with(3, Value::I64(100)),
    )
    .ok();
    let drain = |c: &mut Client, id: Value| {
        let Some(Value::I32(id)) = Some(id) else {
            panic!()
        };
        let mut got = Vec::new();
        loop {
            let batch = rows(
                c.call(
                    "scannerGetList",
                    args().with(1, Value::I32(id)).with(2, Value::I32(2)),
                )
                .ok(),
            );
            if batch.is_empty() {
                break;
            }
            got.extend(batch.into_iter().map(|(r, cols)| (r, cols.len())));
        }
        c.call("scannerClose", args().with(1, Value::I32(id))).ok();
        got
    };
    let open = |c: &mut Client, name: &str, a| c.call(name, a).ok().expect("an id");
    let id = open(&mut c, "scannerOpenWithPrefix", t().with(2, bin("b")));
    assert_eq!(drain(&mut c, id), vec![("b1".into(), 2), ("b2".into(), 2)]);
    let id = open(
        &mut c,
        "scannerOpenWithStop",
        t().with(2, bin("a2"))
            .with(3, bin("c1"))
            .with(4, list(vec![bin("cf:x")])),
    );
    assert_eq!(
        drain(&mut c, id),
        vec![("a2".into(), 1), ("b1".into(), 1), ("b2".into(), 1)]
    );
    let id = open(
        &mut c,
        "scannerOpenTs",
        t().with(2, bin(""))
            .with(3, list(vec![]))
            .with(4, Value::I64(100)),
    );
    assert_eq!(
        drain(&mut c, id),
        vec![],
        "[0, 100) excludes the cells at 100"
    );
    let scan = basalt_thrift::protocol::Struct::new()
        .with(1, bin("c"))
        .with(2, bin("a"))
        .with(6, bin("ValueFilter(=, 'binary:y')"))
        .with(7, Value::I32(1))
        .with(9, Value::Bool(true));
    let id = open(
        &mut c,
        "scannerOpenWithScan",
        t().with(2, Value::Struct(scan)),
    );
    assert_eq!(
        drain(&mut c, id),
        vec![
            ("b2".into(), 1),
            ("b1".into(), 1),
            ("a2".into(), 1),
            ("a1".into(), 1)
        ]
    );
    // One row at a time with scannerGet; an unknown id is an IllegalArgument.
    let Value::I32(id) = open(&mut c, "scannerOpen", t().with(2, bin("c"))) else {
        panic!()
    };
    assert_eq!(
        rows(c.call("scannerGet", args().with(1, Value::I32(id))).ok()).len(),
        1
    );
    assert_eq!(
        rows(c.call("scannerGet", args().with(1, Value::I32(id))).ok()).len(),
        0
    );
    c.call("scannerClose", args().with(1, Value::I32(id))).ok();
    let (message, _) = c
        .call(
            "scannerGetList",
            args().with(1, Value::I32(id)).with(2, Value::I32(1)),
        )
        .exception(2);
    assert_eq!(message, "scanner ID is invalid");
    // A scanner answers only the connection that opened it.
    let Value::I32(id) = open(&mut c, "scannerOpen", t().with(2, bin(""))) else {
        panic!()
    };
    let mut other = Client::buffered(&g.server);
    let (message, _) = other
        .call("scannerGet", args().with(1, Value::I32(id)))
        .exception(2);
    assert_eq!(message, "scanner ID is invalid");
    assert_eq!(
        rows(c.call("scannerGet", args().with(1, Value::I32(id))).ok()).len(),
        1
    );
}

#[test]
fn idle_scanners_expire_after_their_lease() {
    let g = gateway(ThriftConfig {
        scanner_lease_ms: 100,
        ..ThriftConfig::default()
    });
    let mut c = Client::buffered(&g.server);
    create_table(&mut c, "t", &["cf"]);
    let Some(Value::I32(id)) = c
        .call("scannerOpen", args().with(1, bin("t")).with(2, bin("")))
        .ok()
    else {
        panic!("an id")
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while g.server.open_scanners() > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the scanner never expired"
        );
        std::thread::yield_now();
    }
    let (message, _) = c
        .call(
            "scannerGetList",
            args().with(1, Value::I32(id)).with(2, Value::I32(1)),
        )
        .exception(2);
    assert_eq!(message, "scanner ID is invalid");
}
