//! The same operations through the embedded connection and through the server give the
//! same results: every Table and Admin operation, successes and errors alike.

use crate::common::{embedded, serve, test_config};
use basalt_api::{Connection, PreSplit, Result};
use basalt_types::filter_spec::{Comparator, CompareSpec, SingleColumnValueSpec};
use basalt_types::{
    Action, ActionResult, Append, CheckAndMutate, CompareOp, Delete, FamilyDescriptor, FilterSpec,
    Get, Increment, Mutation, NamespaceDescriptor, Put, RowMutations, RowResult, Scan,
    SplitAlgorithm, TableDescriptor, TableName,
};
use bytes::Bytes;

/// Timestamps the server chose (the two databases' clocks differ) and sequence ids are
/// left out; explicit timestamps (small numbers here) are kept.
fn norm_row(r: &RowResult) -> String {
    let cells: Vec<String> = r
        .cells
        .iter()
        .map(|c| {
            let ts = if c.timestamp() > 1_000_000_000_000 {
                "now".to_string()
            } else {
                c.timestamp().to_string()
            };
            format!(
                "{}/{}:{}/{}/{}={}",
                String::from_utf8_lossy(c.row()),
                String::from_utf8_lossy(c.family()),
                String::from_utf8_lossy(c.qualifier()),
                ts,
                c.cell_type().name(),
                basalt_types::escape::to_string_binary(c.value())
            )
        })
        .collect();
    format!("{cells:?} exists={:?} partial={}", r.exists, r.partial)
}

fn show<T>(r: &Result<T>, f: impl Fn(&T) -> String) -> String {
    match r {
        Ok(v) => f(v),
        Err(e) => format!(
            "ERR {:?} {} {}",
            e.kind,
            e.exception,
            hide_region_names(&e.message)
        ),
    }
}

/// Region names hold creation times, which differ between the two databases.
fn hide_region_names(text: &str) -> String {
    text.split(' ')
        .map(|w| {
            if w.len() == 32 && w.bytes().all(|b| b.is_ascii_hexdigit()) {
                "<region>"
            } else {
                w
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn rows(r: &Result<Vec<RowResult>>) -> String {
    show(r, |rows| {
        rows.iter().map(norm_row).collect::<Vec<_>>().join("\n")
    })
}

fn scan(conn: &dyn Connection, t: &TableName, s: &Scan) -> String {
    let all = conn
        .table(t)
        .and_then(|t| t.scan(s))
        .and_then(|scanner| scanner.collect::<Result<Vec<_>>>());
    rows(&all)
}

fn action_result(r: &Result<ActionResult>) -> String {
    show(r, |a| match a {
        ActionResult::Row(row) => norm_row(row),
        ActionResult::Done => "done".into(),
        ActionResult::CheckAndMutate { succeeded, result } => {
            format!("cam {succeeded} {:?}", result.as_ref().map(norm_row))
        }
    })
}

fn value_filter(op: CompareOp, v: &'static [u8]) -> FilterSpec {
    FilterSpec::Value(CompareSpec {
        op,
        comparator: Comparator::Binary(Bytes::from_static(v)),
    })
}

/// Runs a fixed script of operations and records every outcome as text.
fn script(conn: &dyn Connection) -> Vec<String> {
    let mut out = Vec::new();
    let admin = conn.admin();
    let ns = NamespaceDescriptor::new("ns1").expect("valid");
    out.push(show(&admin.create_namespace(&ns), |_| "ok".into()));
    out.push(show(&admin.create_namespace(&ns), |_| "ok".into()));
    out.push(show(&admin.describe_namespace("ns1"), |d| format!("{d:?}")));
    let mut changed = ns.clone();
    changed.properties.insert("owner".into(), "ops".into());
    out.push(show(&admin.modify_namespace(&changed), |_| "ok".into()));
    out.push(show(&admin.describe_namespace("ns1"), |d| format!("{d:?}")));
    let ghost = NamespaceDescriptor::new("ghost").expect("valid");
    out.push(show(&admin.modify_namespace(&ghost), |_| "ok".into()));
    out.push(show(&admin.list_namespaces(), |d| format!("{d:?}")));
    let t = TableName::parse("ns1:t").expect("valid");
    let mut cf2 = FamilyDescriptor::new("cf2").expect("valid");
    cf2.max_versions = 3;
    let desc = TableDescriptor::new(
        t.clone(),
        vec![FamilyDescriptor::new("cf").expect("valid"), cf2],
    );
    let split = PreSplit::Keys(vec![Bytes::from_static(b"r15")]);
    out.push(show(&admin.create_table(&desc, &split), |_| "ok".into()));
    out.push(show(&admin.create_table(&desc, &split), |_| "ok".into()));
    let t2 = TableName::parse("t2").expect("valid");
    let desc2 = TableDescriptor::new(t2.clone(), vec![FamilyDescriptor::new("f").expect("valid")]);
    let count = PreSplit::Count {
        regions: 4,
        algorithm: SplitAlgorithm::HexString,
    };
    out.push(show(&admin.create_table(&desc2, &count), |_| "ok".into()));
    let bad = TableDescriptor::new(TableName::parse("nofam").expect("valid"), vec![]);
    out.push(show(&admin.create_table(&bad, &PreSplit::None), |_| {
        "ok".into()
    }));
    out.push(show(&admin.table_exists(&t), |v| v.to_string()));
    out.push(show(&admin.describe_table(&t), |d| format!("{d:?}")));
    out.push(show(&admin.list_tables(None), |v| format!("{v:?}")));
    out.push(show(&admin.list_tables(Some("t.*")), |v| format!("{v:?}")));
    let regions = |t: &TableName| {
        show(&admin.list_regions(t), |v| {
            format!(
                "{:?}",
                v.iter()
                    .map(|r| (r.table.to_string(), r.start_key.clone(), r.end_key.clone()))
                    .collect::<Vec<_>>()
            )
        })
    };
    out.push(regions(&t));
    out.push(regions(&t2));
    let missing = TableName::parse("missing").expect("valid");
    out.push(show(&conn.table(&missing).map(|_| ()), |_| "ok".into()));

    let table = conn.table(&t).expect("table exists");
    // Puts with explicit timestamps, one by one and many at once.
    for i in 0..30 {
        let row = format!("r{i:02}");
        let put = Put::new(row.clone())
            .add_at("cf", "a", 10, format!("v{i}"))
            .add_at("cf", "b", 10, format!("w{}", i % 3))
            .add_at("cf2", "x", 5, "old")
            .add_at("cf2", "x", 7, "new");
        out.push(show(&table.put(&put), |_| "ok".into()));
    }
    let many: Vec<Put> = (30..40)
        .map(|i| Put::new(format!("r{i:02}")).add_at("cf", "a", 11, format!("m{i}")))
        .collect();
    out.push(show(&table.put_many(&many), |_| "ok".into()));
    let bad_put = Put::new("r00").add_at("nope", "a", 1, "x");
    out.push(show(&table.put(&bad_put), |_| "ok".into()));
    // Gets.
    let gets = [
        Get::new("r01"),
        Get::new("r01").versions(3),
        Get::new("r01").column("cf", "b"),
        Get::new("r01").family("cf2").versions(2),
        Get::new("zz"),
        Get::new("r02").filter(value_filter(CompareOp::Equal, b"w2")),
    ];
    for g in &gets {
        out.push(show(&table.get(g), norm_row));
    }
    out.push(rows(&table.get_many(&gets)));
    out.push(show(&table.exists(&Get::new("r03")), |v| v.to_string()));
    out.push(show(&table.exists(&Get::new("nope")), |v| v.to_string()));
    // Scans: ranges across the region boundary, reversed, limits, batches, filters.
    let mut scans = vec![
        Scan::new(),
        Scan::new().start("r10").stop("r20"),
        Scan::new().start("r20").stop("r10").reversed(true),
        Scan::new().reversed(true).limit(7),
        Scan::new().limit(3),
        Scan::new().batch(1).limit(2),
        Scan::new().versions(3).family("cf2"),
        Scan::new().prefix("r1"),
        Scan::new().filter(FilterSpec::Prefix(Bytes::from_static(b"r2"))),
        Scan::new().filter(value_filter(CompareOp::Greater, b"v5")),
        Scan::new().filter(FilterSpec::SingleColumnValue(SingleColumnValueSpec {
            family: Bytes::from_static(b"cf"),
            qualifier: Bytes::from_static(b"b"),
            compare: CompareSpec {
                op: CompareOp::Equal,
                comparator: Comparator::Binary(Bytes::from_static(b"w1")),
            },
            filter_if_missing: true,
            latest_version_only: true,
        })),
        Scan::new().filter(FilterSpec::KeyOnly {
            length_as_value: true,
        }),
        Scan::new().column("cf", "a").start("r35"),
    ];
    let mut small_pages = Scan::new();
    small_pages.caching = Some(2);
    scans.push(small_pages);
    let mut tiny_results = Scan::new().reversed(true);
    tiny_results.max_result_size_bytes = Some(1);
    scans.push(tiny_results);
    for s in &scans {
        out.push(scan(conn, &t, s));
    }
    // Deletes of every kind, then raw scans show the markers.
    let deletes = [
        Delete::new("r04").version("cf2", "x"),
        Delete::new("r05").columns("cf2", "x"),
        Delete::new("r06").family("cf"),
        Delete::new("r07"),
        Delete::new("r08").at(6).columns("cf2", "x"),
    ];
    for d in &deletes {
        out.push(show(&table.delete(d), |_| "ok".into()));
    }
    out.push(show(
        &table.delete_many(&[Delete::new("r09"), Delete::new("r10")]),
        |_| "ok".into(),
    ));
    out.push(scan(
        conn,
        &t,
        &Scan::new().start("r04").stop("r11").versions(3),
    ));
    out.push(scan(
        conn,
        &t,
        &Scan::new().start("r04").stop("r11").raw(true).versions(5),
    ));
    // Increments and appends.
    for _ in 0..3 {
        let inc = Increment::new("c1").add("cf", "n", 5).add("cf", "m", -1);
        out.push(show(&table.increment(&inc), norm_row));
        let app = Append::new("c1").add("cf", "s", "ab");
        out.push(show(&table.append(&app), norm_row));
    }
    let wrong_width = Increment::new("r01").add("cf", "a", 1);
    out.push(show(&table.increment(&wrong_width), norm_row));
    // Check-and-mutate, both outcomes, and row mutations.
    let cam = |expected: &'static [u8]| {
        CheckAndMutate::column(
            "r11",
            "cf",
            "b",
            CompareOp::Equal,
            Some(Bytes::from_static(expected)),
            Mutation::Put(Put::new("r11").add_at("cf", "c", 20, "set")),
        )
        .expect("one row")
    };
    out.push(show(&table.check_and_mutate(&cam(b"nope")), |r| {
        format!("{} {:?}", r.succeeded, r.result.as_ref().map(norm_row))
    }));
    out.push(show(&table.check_and_mutate(&cam(b"w2")), |r| {
        format!("{} {:?}", r.succeeded, r.result.as_ref().map(norm_row))
    }));
    let absent = CheckAndMutate::column(
        "r12",
        "cf",
        "zzz",
        CompareOp::Equal,
        None,
        Mutation::Delete(Delete::new("r12").columns("cf", "a")),
    )
    .expect("one row");
    out.push(show(&table.check_and_mutate(&absent), |r| {
        r.succeeded.to_string()
    }));
    let rm = RowMutations::new(
        "r13",
        vec![
            Mutation::Put(Put::new("r13").add_at("cf", "z", 30, "zz")),
            Mutation::Delete(Delete::new("r13").columns("cf", "a")),
            Mutation::Increment(Increment::new("r13").add("cf", "cnt", 2)),
        ],
    )
    .expect("one row");
    out.push(show(&table.mutate_row(&rm), norm_row));
    out.push(show(&table.get(&Get::new("r13")), norm_row));
    // A mixed batch with one failing action.
    let actions = vec![
        Action::Get(Get::new("r14")),
        Action::Put(Put::new("r50").add_at("cf", "a", 1, "b1")),
        Action::Put(Put::new("r51").add_at("bad", "a", 1, "b1")),
        Action::Delete(Delete::new("r14")),
        Action::Increment(Increment::new("c2").add("cf", "n", 7)),
        Action::Append(Append::new("c2").add("cf", "s", "x")),
        Action::RowMutations(rm.clone()),
        Action::CheckAndMutate(cam(b"w0")),
    ];
    for r in table.batch(&actions) {
        out.push(action_result(&r));
    }
    out.push(scan(conn, &t, &Scan::new().start("r11")));
    // Admin: maintenance and schema changes, with the data checked after each.
    out.push(show(&admin.flush(&t), |_| "ok".into()));
    out.push(show(&admin.compact(&t, true), |_| "ok".into()));
    out.push(scan(conn, &t, &Scan::new().limit(5)));
    out.push(show(&admin.compact_family(&t, b"cf2", false), |_| {
        "ok".into()
    }));
    out.push(show(&admin.compact_family(&t, b"nope", false), |_| {
        "ok".into()
    }));
    if let Some(first) = admin.list_regions(&t).unwrap_or_default().first() {
        out.push(show(&admin.flush_region(&first.encoded_name), |_| {
            "ok".into()
        }));
        let compacted = admin.compact_region(&first.encoded_name, Some(b"cf"), true);
        out.push(show(&compacted, |_| "ok".into()));
    }
    out.push(show(&admin.flush_region("nope"), |_| "ok".into()));
    out.push(show(&admin.compact_region("nope", None, true), |_| {
        "ok".into()
    }));
    out.push(show(&admin.split(&t, Some(b"r30")), |_| "ok".into()));
    out.push(regions(&t));
    out.push(scan(conn, &t, &Scan::new().start("r28").stop("r33")));
    out.push(show(&admin.compact(&t, true), |_| "ok".into()));
    let listed = admin.list_regions(&t).unwrap_or_default();
    if listed.len() >= 2 {
        let merged = admin.merge_regions(
            &listed[1].encoded_name,
            &listed[2.min(listed.len() - 1)].encoded_name,
        );
        out.push(show(&merged, |_| "ok".into()));
        out.push(regions(&t));
    }
    out.push(show(&admin.run_catalog_janitor().map(|_| ()), |_| {
        "ok".into()
    }));
    out.push(show(&admin.merge_regions("nope", "nada"), |_| "ok".into()));
    let mut cf3 = FamilyDescriptor::new("cf3").expect("valid");
    out.push(show(&admin.add_family(&t, &cf3), |_| "ok".into()));
    cf3.max_versions = 5;
    out.push(show(&admin.modify_family(&t, &cf3), |_| "ok".into()));
    out.push(show(&admin.delete_family(&t, b"cf2"), |_| "ok".into()));
    out.push(show(&admin.describe_table(&t), |d| format!("{d:?}")));
    let mut modified = admin.describe_table(&t).unwrap_or_else(|_| desc.clone());
    modified.memstore_flush_size_bytes = 1 << 20;
    out.push(show(&admin.modify_table(&modified), |_| "ok".into()));
    out.push(show(&admin.describe_table(&t), |d| format!("{d:?}")));
    out.push(scan(conn, &t, &Scan::new().limit(3)));
    // (Disable/enable comes after the family changes: see the ignored test below.)
    out.push(show(&admin.disable_table(&t), |_| "ok".into()));
    out.push(show(&admin.is_table_enabled(&t), |v| v.to_string()));
    out.push(show(&table.get(&Get::new("r01")), norm_row));
    out.push(show(&admin.delete_namespace("ns1"), |_| "ok".into()));
    out.push(show(&admin.enable_table(&t), |_| "ok".into()));
    out.push(show(&admin.is_table_enabled(&t), |v| v.to_string()));
    out.push(show(&admin.disable_table(&t2), |_| "ok".into()));
    out.push(show(&admin.truncate_table(&t2, true), |_| "ok".into()));
    out.push(regions(&t2));
    out.push(show(&admin.disable_table(&t), |_| "ok".into()));
    out.push(show(&admin.delete_table(&t), |_| "ok".into()));
    out.push(show(&admin.table_exists(&t), |v| v.to_string()));
    out.push(show(&admin.delete_namespace("ns1"), |_| "ok".into()));
    out.push(show(&admin.list_namespaces(), |d| format!("{d:?}")));
    out.push(show(&admin.describe_namespace("ns1"), |d| format!("{d:?}")));
    out
}

#[test]
fn every_operation_gives_the_embedded_result() {
    let local = embedded();
    let served = serve(test_config());
    let expected = script(&local.conn);
    let actual = script(&served.remote);
    if std::env::var_os("BASALT_DUMP").is_some() {
        for (i, line) in actual.iter().enumerate() {
            eprintln!("{i}: {line}");
        }
    }
    for (i, (e, a)) in expected.iter().zip(&actual).enumerate() {
        assert_eq!(e, a, "step {i} differs");
    }
    assert_eq!(expected.len(), actual.len());
    // The script exercised successes and errors alike.
    assert!(expected.iter().any(|s| s.starts_with("ERR")));
    assert!(expected.iter().filter(|s| !s.starts_with("ERR")).count() > 100);
}

/// Regression: a bug the script above found, through the embedded connection alone. After a
/// merge, the janitor and disable + enable, adding a family failed to reopen a region
/// ("No such file or directory") about half the time: the merged region's background
/// compaction committed its manifest after the region had been reopened. A region's close
/// now waits for a compaction under way.
#[test]
fn add_family_after_merge_janitor_and_reenable() {
    let local = embedded();
    let conn: &dyn Connection = &local.conn;
    let admin = conn.admin();
    let t = TableName::parse("t").expect("valid");
    let desc = TableDescriptor::new(
        t.clone(),
        vec![
            FamilyDescriptor::new("cf").expect("valid"),
            FamilyDescriptor::new("cf2").expect("valid"),
        ],
    );
    admin
        .create_table(&desc, &PreSplit::Keys(vec![Bytes::from_static(b"r15")]))
        .expect("create");
    let table = conn.table(&t).expect("t");
    for i in 0..40 {
        table
            .put(
                &Put::new(format!("r{i:02}"))
                    .add_at("cf", "a", 10, "v")
                    .add_at("cf2", "x", 5, "o"),
            )
            .expect("put");
    }
    admin.flush(&t).expect("flush");
    admin.compact(&t, true).expect("compact");
    admin.split(&t, Some(b"r30")).expect("split");
    admin.compact(&t, true).expect("compact");
    let listed = admin.list_regions(&t).expect("regions");
    admin
        .merge_regions(&listed[1].encoded_name, &listed[2].encoded_name)
        .expect("merge");
    admin.run_catalog_janitor().expect("janitor");
    admin.disable_table(&t).expect("disable");
    admin.enable_table(&t).expect("enable");
    let cf3 = FamilyDescriptor::new("cf3").expect("valid");
    admin.add_family(&t, &cf3).expect("add family");
}
