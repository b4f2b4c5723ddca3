//! Snapshots on a cluster whose every file lives on an S3-compatible server (moto): no
//! hard links there, so a snapshot and a clone name the table's files by link objects,
//! and a file a compaction or a drop lets go is kept in the store's archive while they
//! name it. A snapshot, then a major compaction and the drop of its table; the clone made
//! from it reads every row, before and after its own compaction; once the snapshot and
//! the clone are gone, the master's cleaner empties the archive.

use crate::support;

use basalt_api::{Connection, PreSplit, SnapshotOptions};
use basalt_client::RemoteConnection;
use basalt_store::{ListMode, Store};
use basalt_types::{FamilyDescriptor, Put, Scan, TableDescriptor, TableName};
use bytes::Bytes;
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::cluster::Cluster;

fn name(text: &str) -> TableName {
    TableName::parse(text).expect("name")
}

fn rows(conn: &RemoteConnection, table: &str) -> Vec<(Bytes, Bytes)> {
    conn.table(&name(table))
        .expect("table")
        .scan(&Scan::new())
        .expect("scan")
        .map(|r| {
            let r = r.expect("row");
            let value = r.value_bytes(b"f", b"q").unwrap_or_default();
            (r.row_bytes().unwrap_or_default(), value)
        })
        .collect()
}

fn put_rows(conn: &RemoteConnection, table: &str, range: std::ops::Range<u32>, tag: &str) {
    let puts: Vec<Put> = range
        .map(|i| Put::new(format!("r{i:03}")).add("f", "q", format!("{tag}{i}")))
        .collect();
    conn.table(&name(table))
        .expect("table")
        .put_many(&puts)
        .expect("puts");
}

/// The keys under `prefix` on the cluster's store.
fn keys_under(store: &Arc<dyn Store>, prefix: &str) -> Vec<String> {
    let (store, prefix) = (store.clone(), prefix.to_owned());
    basalt_store::blocking(async move { store.list(&prefix, ListMode::Recursive).await })
        .expect("list")
        .objects
        .into_iter()
        .map(|o| o.key)
        .collect()
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(90);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_clone_on_an_s3_store_outlives_the_compaction_and_drop_of_its_source() {
    let cluster = Cluster::start_on_s3(1, 2);
    let outcome = std::panic::catch_unwind(|| {
        let moto = cluster.moto().expect("on moto");
        let store = basalt_store::open_store(&cluster.store_url(), &moto.options())
            .expect("the cluster's store");
        let conn = RemoteConnection::connect(&cluster.masters_arg()).expect("connect");
        let admin = conn.admin();
        let family = FamilyDescriptor::new(Bytes::from_static(b"f")).expect("family");
        admin
            .create_table(
                &TableDescriptor::new(name("src"), vec![family]),
                &PreSplit::Keys(vec![Bytes::from_static(b"r150")]),
            )
            .expect("create");
        put_rows(&conn, "src", 0..200, "a");
        admin.flush(&name("src")).expect("flush");
        put_rows(&conn, "src", 100..300, "b");
        let expected = rows(&conn, "src");
        assert_eq!(expected.len(), 300);
        admin
            .snapshot(&name("src"), "s1", &SnapshotOptions::default())
            .expect("snapshot on an object store");
        assert!(
            keys_under(&store, "links").len() >= 4,
            "every file of both regions has a back-reference"
        );

        // The source moves on: new rows, a major compaction (its files rewritten), a drop.
        put_rows(&conn, "src", 0..50, "c");
        admin.flush(&name("src")).expect("flush");
        admin.compact(&name("src"), true).expect("major compaction");
        wait_for("the compaction to archive the snapshot's files", || {
            !keys_under(&store, "archive").is_empty()
        });
        admin.clone_snapshot("s1", &name("copy")).expect("clone");
        admin.disable_table(&name("src")).expect("disable");
        admin.delete_table(&name("src")).expect("drop the source");
        assert_eq!(
            rows(&conn, "copy"),
            expected,
            "the clone reads the snapshot"
        );

        // The clone's own compaction rewrites the shared files into its own.
        put_rows(&conn, "copy", 300..310, "d");
        admin.flush(&name("copy")).expect("flush");
        admin
            .compact(&name("copy"), true)
            .expect("compact the clone");
        let mut with_new = expected.clone();
        with_new.extend((300..310).map(|i| {
            (
                Bytes::from(format!("r{i:03}")),
                Bytes::from(format!("d{i}")),
            )
        }));
        assert_eq!(rows(&conn, "copy"), with_new);

        // Once nothing names them, the cleaner (run by the master) empties the archive.
        admin.delete_snapshot("s1").expect("delete the snapshot");
        admin.disable_table(&name("copy")).expect("disable");
        admin.delete_table(&name("copy")).expect("drop the clone");
        wait_for("the archive cleaner", || {
            keys_under(&store, "archive").is_empty()
        });
        assert!(
            cluster.logs().contains("archive cleaner"),
            "the cleaner logs what it deletes"
        );
    });
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}
