//! Pre-split tables, routing by row, and scans across regions in both directions — the
//! seed documents' patterns: `access-logs` split on the first hex digit of MD5 row keys,
//! HexStringSplit, and the IP-range lookup (scan from a key, limit 1).

use crate::basics;

use basalt_api::PreSplit;
use basalt_types::{Get, Put, Scan, SplitAlgorithm};
use basics::md5::md5_hex;
use basics::*;
use bytes::Bytes;

#[test]
fn access_logs_split_on_hex_digits_spreads_md5_keys_over_all_16_regions() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_db, conn) = open(dir.path());
    let splits: Vec<Bytes> = "123456789abcdef"
        .chars()
        .map(|c| Bytes::from(c.to_string()))
        .collect();
    admin(&conn)
        .create_table(&descriptor("access-logs", &["t"]), &PreSplit::Keys(splits))
        .expect("create");
    let regions = admin(&conn)
        .list_regions(&name("access-logs"))
        .expect("regions");
    assert_eq!(regions.len(), 16);
    let bounds: Vec<(String, String)> = regions
        .iter()
        .map(|r| {
            (
                String::from_utf8_lossy(&r.start_key).into_owned(),
                String::from_utf8_lossy(&r.end_key).into_owned(),
            )
        })
        .collect();
    assert_eq!(bounds[0], (String::new(), "1".to_string()));
    assert_eq!(bounds[10], ("a".to_string(), "b".to_string()));
    assert_eq!(bounds[15], ("f".to_string(), String::new()));
    let logs = table(&conn, "access-logs");
    let mut keys: Vec<String> = (0..2000)
        .map(|user| md5_hex(format!("user{user}").as_bytes()))
        .collect();
    for key in &keys {
        logs.put(&Put::new(key.clone()).add("t", "hits", "1"))
            .expect("put");
    }
    let per_region = admin(&conn)
        .list_regions(&name("access-logs"))
        .expect("regions");
    assert!(
        per_region.iter().all(|r| r.write_requests > 50),
        "every region takes writes: {:?}",
        per_region
            .iter()
            .map(|r| r.write_requests)
            .collect::<Vec<_>>()
    );
    keys.sort();
    assert_eq!(row_keys(&scan_rows(logs.as_ref(), &Scan::new())), keys);
    let mut reversed = keys.clone();
    reversed.reverse();
    assert_eq!(
        row_keys(&scan_rows(logs.as_ref(), &Scan::new().reversed(true))),
        reversed
    );
    // A range across several regions, both ways.
    let inside: Vec<String> = keys
        .iter()
        .filter(|k| k.as_str() >= "3c" && k.as_str() < "7a")
        .cloned()
        .collect();
    assert_eq!(
        row_keys(&scan_rows(
            logs.as_ref(),
            &Scan::new().start("3c").stop("7a")
        )),
        inside
    );
    let mut inside_reversed = inside.clone();
    inside_reversed.reverse();
    let mut back = Scan::new().start("7a").stop("3c").reversed(true);
    back.start_inclusive = false;
    back.stop_inclusive = true;
    assert_eq!(row_keys(&scan_rows(logs.as_ref(), &back)), inside_reversed);
    assert_eq!(
        row_keys(&scan_rows(logs.as_ref(), &Scan::new().start("3c").limit(5))),
        inside[..5].to_vec()
    );
}

#[test]
fn numregions_with_hex_string_split_makes_hbase_split_points() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_db, conn) = open(dir.path());
    let split = PreSplit::Count {
        regions: 16,
        algorithm: SplitAlgorithm::HexString,
    };
    admin(&conn)
        .create_table(&descriptor("hex", &["f"]), &split)
        .expect("create");
    let starts: Vec<String> = admin(&conn)
        .list_regions(&name("hex"))
        .expect("regions")
        .iter()
        .map(|r| String::from_utf8_lossy(&r.start_key).into_owned())
        .collect();
    assert_eq!(starts.len(), 16);
    assert_eq!(&starts[..4], ["", "0fffffff", "1ffffffe", "2ffffffd"]);
    assert_eq!(starts[15], "effffff1");
}

/// `ip_upper_in_hex` rows: each row is the upper end of an IP block; the block holding an
/// address is the first row at or after it — a scan from the address, limit 1.
#[test]
fn ip_range_lookup_scans_from_a_key_with_limit_one_across_regions() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_db, conn) = open(dir.path());
    let split = PreSplit::Count {
        regions: 8,
        algorithm: SplitAlgorithm::HexString,
    };
    admin(&conn)
        .create_table(&descriptor("ip_geo", &["geo"]), &split)
        .expect("create");
    let geo = table(&conn, "ip_geo");
    // Blocks of 2^24 addresses: upper bounds 00ffffff, 01ffffff, ... ffffffff.
    for block in 0u32..256 {
        let upper = format!("{:08x}", (block << 24) | 0x00ff_ffff);
        geo.put(&Put::new(upper).add("geo", "country", format!("C{block}")))
            .expect("put");
    }
    let lookup = |ip: u32| {
        let rows = scan_rows(
            geo.as_ref(),
            &Scan::new().start(format!("{ip:08x}")).limit(1),
        );
        rows[0]
            .value(b"geo", b"country")
            .map(|v| String::from_utf8_lossy(v).into_owned())
    };
    assert_eq!(lookup(0x0000_0000).as_deref(), Some("C0"));
    assert_eq!(lookup(0x1fff_ffff).as_deref(), Some("C31"));
    // 0x1ffffffe is a region boundary (HexStringSplit of 8): the answer lies in the next region.
    assert_eq!(lookup(0x2000_0000).as_deref(), Some("C32"));
    assert_eq!(lookup(0xc0a8_0101).as_deref(), Some("C192"));
    assert_eq!(lookup(0xffff_ffff).as_deref(), Some("C255"));
    let reversed = scan_rows(
        geo.as_ref(),
        &Scan::new().start("30000000").reversed(true).limit(1),
    );
    assert_eq!(row_keys(&reversed), ["2fffffff"]);
    assert!(geo.get(&Get::new("c0a80101")).expect("get").is_empty());
}

#[test]
fn put_many_batches_per_region_in_order_and_stops_at_a_bad_put() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_db, conn) = open(dir.path());
    let splits = vec![Bytes::from("g"), Bytes::from("p")];
    admin(&conn)
        .create_table(&descriptor("batched", &["t"]), &PreSplit::Keys(splits))
        .expect("create");
    let t = table(&conn, "batched");
    // Rows across all three regions, one repeated: the later put wins.
    let mut puts: Vec<Put> = ["a", "h", "q", "b", "z"]
        .iter()
        .map(|r| Put::new(*r).add("t", "v", "first"))
        .collect();
    puts.push(Put::new("h").add("t", "v", "second"));
    t.put_many(&puts).expect("put_many");
    let value = |row: &str| {
        t.get(&Get::new(row.to_string()))
            .expect("get")
            .value(b"t", b"v")
            .map(|v| String::from_utf8_lossy(v).into_owned())
    };
    assert_eq!(value("h").as_deref(), Some("second"));
    for row in ["a", "b", "q", "z"] {
        assert_eq!(value(row).as_deref(), Some("first"), "{row}");
    }
    // A bad put: the ones before it land, it fails, the ones after it do not run.
    let puts = vec![
        Put::new("c").add("t", "v", "1"),
        Put::new("d").add("nofamily", "v", "1"),
        Put::new("e").add("t", "v", "1"),
    ];
    let e = t.put_many(&puts).expect_err("an unknown family");
    assert!(
        e.to_string().contains("nofamily") || e.to_string().contains("family"),
        "{e}"
    );
    assert_eq!(value("c").as_deref(), Some("1"));
    assert_eq!(value("e"), None);
    // Deletes batch the same way.
    let deletes: Vec<basalt_types::Delete> = ["a", "h", "z"]
        .iter()
        .map(|r| basalt_types::Delete::new(*r))
        .collect();
    t.delete_many(&deletes).expect("delete_many");
    assert_eq!(
        row_keys(&scan_rows(t.as_ref(), &Scan::new())),
        vec!["b", "c", "q"]
    );
}

#[test]
fn batched_puts_and_deletes_cost_one_sync_per_region_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (db, conn) = open(dir.path());
    admin(&conn)
        .create_table(
            &descriptor("synced", &["t"]),
            &PreSplit::Keys(vec![Bytes::from("m")]),
        )
        .expect("create");
    let t = table(&conn, "synced");
    let syncs = || db.engine().context().wal.sync_count();
    // 100 rows below "m", then 100 above: two region runs, two syncs.
    let puts: Vec<Put> = (0..100)
        .map(|i| Put::new(format!("a{i:03}")).add("t", "v", "1"))
        .chain((0..100).map(|i| Put::new(format!("z{i:03}")).add("t", "v", "1")))
        .collect();
    let before = syncs();
    t.put_many(&puts).expect("put_many");
    assert_eq!(syncs() - before, 2);
    let actions: Vec<basalt_types::Action> =
        (0..50)
            .map(|i| basalt_types::Action::Delete(basalt_types::Delete::new(format!("a{i:03}"))))
            .chain((0..50).map(|i| {
                basalt_types::Action::Put(Put::new(format!("b{i:03}")).add("t", "v", "2"))
            }))
            .collect();
    let before = syncs();
    let results = t.batch(&actions);
    assert_eq!(results.len(), 100);
    assert!(results.iter().all(|r| r.is_ok()), "{results:?}");
    assert_eq!(syncs() - before, 2, "one run of deletes, one of puts");
    assert_eq!(scan_rows(t.as_ref(), &Scan::new()).len(), 200);
}
