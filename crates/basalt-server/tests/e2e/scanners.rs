//! Server-side scanners: streaming in pages, random ids, early close, lease expiry.

use crate::common::{create_table, serve, test_config, wait_until};
use basalt_api::{Connection, ErrorKind};
use basalt_proto::pb;
use basalt_server::ServerConfig;
use basalt_types::{Put, Scan, TableName};

type Client = pb::table_service_client::TableServiceClient<tonic::transport::Channel>;

fn fill(conn: &dyn Connection, t: &TableName, rows: usize) {
    let table = conn.table(t).expect("table");
    let puts: Vec<Put> = (0..rows)
        .map(|i| Put::new(format!("row{i:04}")).add("cf", "q", format!("v{i}")))
        .collect();
    table.put_many(&puts).expect("puts");
}

fn paged(caching: u32) -> Scan {
    let mut scan = Scan::new();
    scan.caching = Some(caching);
    scan
}

#[test]
fn scans_stream_page_by_page_and_close_early() {
    let served = serve(test_config());
    let t = create_table(&served.remote, "paged");
    fill(&served.remote, &t, 250);
    let table = served.remote.table(&t).expect("table");
    let all: Vec<_> = table
        .scan(&paged(7))
        .expect("open")
        .collect::<Result<_, _>>()
        .expect("rows");
    assert_eq!(all.len(), 250);
    assert_eq!(
        served.server.open_scanners(),
        0,
        "a finished scan is closed"
    );
    let mut partial = table.scan(&paged(10)).expect("open");
    assert!(partial.next().is_some());
    assert_eq!(served.server.open_scanners(), 1);
    drop(partial);
    assert_eq!(
        served.server.open_scanners(),
        0,
        "dropping a scanner closes it"
    );
    // A scan that fits in its first page never registers a scanner.
    let few: Vec<_> = table.scan(&paged(1000)).expect("open").collect();
    assert_eq!(few.len(), 250);
    assert_eq!(served.server.open_scanners(), 0);
}

#[test]
fn scanner_ids_are_random_and_cannot_be_guessed() {
    let served = serve(test_config());
    let t = create_table(&served.remote, "ids");
    fill(&served.remote, &t, 10);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut client = crate::common::table_client(&rt, served.addr);
    let open = |client: &mut Client| {
        let req = pb::OpenScannerRequest {
            table: Some((&t).into()),
            scan: Some((&paged(1)).into()),
            region: String::new(),
        };
        rt.block_on(client.open_scanner(req))
            .expect("open")
            .into_inner()
    };
    let a = open(&mut client);
    let b = open(&mut client);
    assert_eq!(a.scanner_id.len(), 16);
    assert_ne!(a.scanner_id, b.scanner_id);
    let next_at = |client: &mut Client, id: &[u8], call_seq: u64| {
        let req = pb::ScannerNextRequest {
            scanner_id: bytes::Bytes::copy_from_slice(id),
            caching: 1,
            call_seq,
        };
        rt.block_on(client.scanner_next(req))
    };
    let next = |client: &mut Client, id: &[u8]| next_at(client, id, 0);
    let guessed = next(&mut client, &[0u8; 16]).expect_err("unknown id");
    let e = basalt_proto::status::from_status(&guessed);
    assert_eq!(e.kind, ErrorKind::NotFound);
    assert_eq!(e.short_name(), "UnknownScannerException");
    let short = next(&mut client, b"abc").expect_err("bad id");
    assert_eq!(
        basalt_proto::status::from_status(&short).kind,
        ErrorKind::InvalidRequest
    );
    let page = next(&mut client, &a.scanner_id).expect("live").into_inner();
    assert_eq!(page.rows.len(), 1);
    // A retried call (same number) gets the same rows; the next number moves on.
    let again = next_at(&mut client, &a.scanner_id, 0)
        .expect("retry")
        .into_inner();
    assert_eq!(again, page);
    let after = next_at(&mut client, &a.scanner_id, 1)
        .expect("next")
        .into_inner();
    assert_ne!(after.rows, page.rows);
    let skipped = next_at(&mut client, &a.scanner_id, 5).expect_err("out of order");
    assert_eq!(
        basalt_proto::status::from_status(&skipped).short_name(),
        "OutOfOrderScannerNextException"
    );
}

#[test]
fn idle_scanners_expire() {
    let served = serve(ServerConfig {
        scanner_lease_ms: 200,
        ..test_config()
    });
    let t = create_table(&served.remote, "lease");
    fill(&served.remote, &t, 5);
    let table = served.remote.table(&t).expect("table");
    let mut scanner = table.scan(&paged(1)).expect("open");
    assert!(scanner.next().is_some());
    assert_eq!(served.server.open_scanners(), 1);
    wait_until("the idle scanner to be reaped", || {
        served.server.open_scanners() == 0
    });
    let e = scanner
        .next()
        .expect("an answer")
        .expect_err("the scanner expired");
    assert_eq!(e.short_name(), "UnknownScannerException");
    assert!(scanner.next().is_none());
}
