//! With `[master] recovery_mode = "split"`, a killed region server's sealed log is split
//! by the master per region before its regions reopen (cluster-design §5.4, server crash
//! step 3): each new owner reads only its region's recovered edits, every acknowledged
//! write reads back, and the recovered edits are removed once flushed, right after the
//! regions serve (the log itself is archived, as always).

use crate::support;

use basalt_api::{Connection, PreSplit};
use basalt_client::RemoteConnection;
use basalt_types::Put;
use bytes::Bytes;
use std::path::Path;
use std::time::Duration;
use support::cluster::Cluster;
use support::tables::{descriptor, get_retrying, table_name};

/// Files under any `recovered.edits` folder of the store.
fn recovered_files(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if entry.file_name() == "recovered.edits" {
                let files = std::fs::read_dir(&path).into_iter().flatten().flatten();
                found.extend(files.map(|f| f.path().display().to_string()));
            } else {
                found.extend(recovered_files(&path));
            }
        }
    }
    found
}

#[test]
fn a_dead_servers_log_is_split_per_region_and_every_write_reads_back() {
    let config = tempfile::NamedTempFile::new().expect("config file");
    std::fs::write(config.path(), "[master]\nrecovery_mode = \"split\"\n").expect("written");
    let path = config.path().display().to_string();
    let mut cluster = Cluster::start_with_args(1, 2, &["--config", &path]);
    let masters = cluster.masters_arg();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let conn = RemoteConnection::connect(&masters).expect("connect");
        let name = table_name("split_logs");
        let keys = ["d", "h", "m", "t"].map(|k| Bytes::from_static(k.as_bytes()));
        conn.admin()
            .create_table(&descriptor("split_logs"), &PreSplit::Keys(keys.to_vec()))
            .expect("create");
        let table = conn.table(&name).expect("table");
        let rows: Vec<String> = (0..200)
            .map(|i| format!("{}{i:03}", (b'a' + (i % 26) as u8) as char))
            .collect();
        for row in &rows {
            table
                .put(&Put::new(row.clone()).add("f", "q", format!("v-{row}")))
                .expect("put");
        }
        let regions = conn.admin().list_regions(&name).expect("regions");
        let victim = regions[0].server.clone();
        let held = regions.iter().filter(|r| r.server == victim).count();
        let index = cluster
            .servers
            .iter()
            .position(|s| s.name == victim)
            .expect("a server of the cluster");
        let mut dead = cluster.servers.remove(index);
        dead.child.kill().expect("kill -9");
        let _ = dead.child.wait();

        for row in &rows {
            let got = get_retrying(table.as_ref(), row, Duration::from_secs(40), |_| {});
            assert_eq!(
                got.value(b"f", b"q").map(|v| v.to_vec()),
                Some(format!("v-{row}").into_bytes()),
                "{row}"
            );
        }
        let logs = cluster.logs();
        assert!(
            logs.contains("split the dead server's log per region"),
            "the master split the log"
        );
        let taken = logs
            .matches("read the region's edits split out of a dead server's log")
            .count();
        assert_eq!(taken, held, "each of the {held} regions read its own edits");
        let store = cluster.store_url();
        let root = Path::new(store.trim_start_matches("file://"));
        assert!(root.join("data").is_dir(), "{}", root.display());
        // The regions serve first and flush right after; then the recovered edits go.
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            let left = recovered_files(&root.join("data"));
            if left.is_empty() {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "recovered edits still there 30 s after the regions served: {left:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }));
    if let Err(panic) = outcome {
        cluster.fail_with_logs(panic);
    }
}
