//! The client's region-location cache: single-row calls name their region from the cache;
//! after another client splits the table, the server refuses the stale region name
//! (NotServingRegionException, "retry elsewhere"), and the client drops that entry,
//! locates the row again and succeeds.

use crate::common::{create_table, serve, test_config};
use basalt_api::{Connection, ErrorKind};
use basalt_client::RemoteConnection;
use basalt_types::{CheckAndMutate, CompareOp, Get, Increment, Mutation, Put};
use bytes::Bytes;

#[test]
fn single_row_calls_hit_the_cache_and_relocate_after_a_split() {
    let served = serve(test_config());
    let client = &served.remote;
    let t = create_table(client, "located");
    let table = client.table(&t).expect("table");

    table.put(&Put::new("b").add("cf", "q", "1")).expect("put");
    let first = client.location_stats();
    assert_eq!(first.misses, 1, "the first call located its row: {first:?}");
    for row in ["a", "c", "x"] {
        table.put(&Put::new(row).add("cf", "q", "1")).expect("put");
        assert!(table.exists(&Get::new(row)).expect("get"));
    }
    let warm = client.location_stats();
    assert_eq!(
        warm.misses, 1,
        "one region: every later call hit the cache: {warm:?}"
    );
    assert_eq!(warm.hits, first.hits + 6);

    // Another client splits the table at "m": this client's entry is now stale.
    let other = RemoteConnection::connect(&served.addr.to_string()).expect("connect");
    other.admin().split(&t, Some(b"m")).expect("split at m");
    assert_eq!(other.admin().list_regions(&t).expect("regions").len(), 2);

    // Each single-row call kind relocates and succeeds.
    table
        .put(&Put::new("z").add("cf", "q", "2"))
        .expect("put after the split");
    let after_put = client.location_stats();
    assert_eq!(after_put.invalidations, 1, "{after_put:?}");
    let row = table.get(&Get::new("a")).expect("get after the split");
    assert_eq!(row.value(b"cf", b"q"), Some(&b"1"[..]));
    let counted = table
        .increment(&Increment::new("n").add("cf", "hits", 5))
        .expect("increment");
    assert_eq!(counted.value(b"cf", b"hits"), Some(&5i64.to_be_bytes()[..]));
    let check = CheckAndMutate::column(
        "c",
        "cf",
        "q",
        CompareOp::Equal,
        Some(Bytes::from_static(b"1")),
        Mutation::Put(Put::new("c").add("cf", "q", "3")),
    )
    .expect("one row");
    assert!(
        table
            .check_and_mutate(&check)
            .expect("check-and-put")
            .succeeded
    );
    let settled = client.location_stats();
    // The stale parent covered both daughters: dropped once, then each daughter located
    // once (z, then a).
    assert_eq!(
        (settled.invalidations, settled.misses),
        (1, 3),
        "{settled:?}"
    );

    // Both daughters are cached now: no more lookups.
    for row in ["a", "c", "n", "z"] {
        assert!(table.exists(&Get::new(row)).expect("get"));
    }
    assert_eq!(client.location_stats().misses, settled.misses);
    assert_eq!(client.location_stats().invalidations, 1);
}

#[test]
fn a_stale_region_name_is_refused_as_retry_elsewhere() {
    let served = serve(test_config());
    let client = &served.remote;
    let t = create_table(client, "refused");
    let before = client.admin().locate_region(&t, b"q").expect("locate");
    assert!(before.contains(b"q") && before.start_key.is_empty() && before.end_key.is_empty());
    client.admin().split(&t, Some(b"m")).expect("split");
    let after = client.admin().locate_region(&t, b"q").expect("locate");
    assert_eq!(after.start_key.as_ref(), b"m");
    assert_ne!(after.region_name, before.region_name);
    // A raw call naming the parent region is refused with the kind clients act on.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut raw = crate::common::table_client(&rt, served.addr);
    let refused = rt.block_on(raw.get(basalt_proto::pb::GetRequest {
        table: Some((&t).into()),
        get: Some((&Get::new("q")).into()),
        region: before.region_name.clone(),
    }));
    let status = refused.expect_err("the parent region no longer holds q");
    let error = basalt_proto::status::from_status(&status);
    assert_eq!(error.kind, ErrorKind::RetryElsewhere, "{error}");
    assert_eq!(
        error.exception,
        "org.apache.hadoop.hbase.NotServingRegionException"
    );
    // Naming the right region, or none, works.
    for region in [after.region_name.clone(), String::new()] {
        let ok = rt.block_on(raw.get(basalt_proto::pb::GetRequest {
            table: Some((&t).into()),
            get: Some((&Get::new("q")).into()),
            region,
        }));
        assert!(ok.is_ok(), "{ok:?}");
    }
}
