//! Table DDL cut short by the active master's death (issue #16), with real processes: a
//! master started with a crash point (`BASALT_TEST_MASTER_CRASH_AT`) aborts in the middle
//! of a create, drop, truncate or modify table, and the standby that takes over finds the
//! procedure's record (`procs/<id>`, named as HBase names it) and rolls it back or forward.
//!
//! Each test chains several deaths over one cluster: before each, a standby is started
//! with the next crash point, so one cluster start serves four failovers. Masters get a
//! 3 s lease, so a standby takes over within seconds of the abort.
//!
//! - `create.written` (recorded, nothing committed): rolled back, no table; a re-create works.
//! - `drop.written` (recorded, nothing removed yet): finished, the table and its folder gone.
//! - `create.committed` (the catalog names the table): finished, the table serves, empty.
//! - `drop.committed` (the catalog no longer names it): finished, its folder removed.
//! - `truncate.committed`: finished, the table serves empty with its split points kept.
//! - `modify.written`: rolled back, the table keeps its families and its rows.
//! - `modify.committed`: finished, every region reopened with the new family.
//!
//! The third test chains the other seven crash points over one more cluster (run beside
//! the first two), each master's point in another procedure than the one it resumes:
//!
//! - `create.assigned` (committed and assigned, not marked done): finished, it serves.
//! - `drop.regions_closed`, `drop.files_removed`: finished, the table and its folder gone.
//! - `truncate.written`, `truncate.regions_closed`, `truncate.files_removed`: finished,
//!   new empty regions serve, the old regions' folders are gone.
//! - `modify.reopened` (every region reopened, not marked done): finished, the new family
//!   takes writes, the rows are kept.

use crate::support;

use basalt_api::{Connection, RegionState};
use basalt_client::RemoteConnection;
use basalt_types::{FamilyDescriptor, Get, Put};
use bytes::Bytes;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use support::cluster::Cluster;
use support::tables::{self, check_rows, fill, regions, row, table_name};

const ROWS: u64 = 40;
const CRASH: &str = "BASALT_TEST_MASTER_CRASH_AT";
/// The masters' lease: a dead master's successor takes over once it expires.
const LEASE: [&str; 2] = ["--lease-ttl", "3"];

/// One cluster whose active master is `masters[active]`, each master dying at its own
/// crash point.
struct Chain {
    cluster: Cluster,
    active: usize,
}

impl Chain {
    /// etcd, a master dying at `point`, and one region server.
    fn start(point: &str) -> Self {
        let mut cluster = Cluster::start(0, 0);
        cluster.start_master_with_env_and_args(&[(CRASH, point)], &LEASE);
        cluster.start_server("127.0.0.2");
        Self { cluster, active: 0 }
    }

    fn conn(&self) -> RemoteConnection {
        RemoteConnection::connect(&self.cluster.masters[self.active].addr).expect("connect")
    }

    fn log(&self, i: usize) -> String {
        std::fs::read_to_string(&self.cluster.masters[i].log).unwrap_or_default()
    }

    /// Starts a standby dying at `next` (or never), asks the active master `ask` in the
    /// background (its answer never comes: it aborts at its crash point), then waits until
    /// the standby leads and its log says `resumed`; a connection to it.
    fn die_during(
        &mut self,
        next: Option<&str>,
        resumed: &str,
        ask: impl FnOnce(&RemoteConnection) + Send + 'static,
    ) -> RemoteConnection {
        let env: Vec<(&str, &str)> = next.iter().map(|point| (CRASH, *point)).collect();
        self.cluster.start_master_with_env_and_args(&env, &LEASE);
        let doomed = self.cluster.masters[self.active].addr.clone();
        std::thread::spawn(move || {
            if let Ok(conn) = RemoteConnection::connect(&doomed) {
                ask(&conn);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(40);
        let status = loop {
            if let Some(status) = self.cluster.masters[self.active]
                .child
                .try_wait()
                .expect("wait")
            {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "the master never reached its crash point"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(!status.success(), "{status:?}");
        assert!(
            self.log(self.active).contains("aborting here"),
            "{}",
            self.log(self.active)
        );
        self.active += 1;
        while !self.log(self.active).contains(resumed) {
            assert!(
                Instant::now() < deadline,
                "the standby never said {resumed:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        self.conn()
    }

    /// The folder of table `t` on the shared store.
    fn table_dir(&self) -> PathBuf {
        self.cluster
            .store
            .path()
            .join("data")
            .join("default")
            .join("t")
    }
}

/// Waits until `t` has `count` regions, every one open.
fn serving(conn: &RemoteConnection, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(now) = conn.admin().list_regions(&table_name("t")) {
            if now.len() == count && now.iter().all(|r| r.state == RegionState::Open) {
                return;
            }
        }
        assert!(
            Instant::now() < deadline,
            "t never served with {count} regions"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn exists(conn: &RemoteConnection) -> bool {
    conn.admin()
        .table_exists(&table_name("t"))
        .expect("table_exists")
}

/// No row written by `fill` reads back.
fn empty(conn: &RemoteConnection) {
    let table = conn.table(&table_name("t")).expect("table");
    for i in 0..ROWS {
        assert!(
            table.get(&Get::new(row(i))).expect("get").is_empty(),
            "row {i} survived"
        );
    }
}

fn disable(conn: &RemoteConnection) {
    conn.admin()
        .disable_table(&table_name("t"))
        .expect("disable");
}

/// Runs `body`, printing every process's log if it panics.
fn with_logs(chain: &mut Chain, body: impl FnOnce(&mut Chain)) {
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(chain)));
    if let Err(panic) = run {
        chain.cluster.fail_with_logs(panic);
    }
}

#[test]
fn a_create_or_drop_cut_short_is_rolled_back_before_its_commit_and_finished_after() {
    let mut chain = Chain::start("create.written");
    let body = |chain: &mut Chain| {
        let conn = chain.die_during(
            Some("drop.written"),
            "CreateTableProcedure rolled back",
            |c| tables::create(c, "t", 2),
        );
        assert!(!exists(&conn), "a create never committed left a table");
        assert!(
            !chain.table_dir().exists(),
            "a create never committed left a folder"
        );

        // The same table created again on the new master, filled, then dropped: that
        // master dies having recorded the drop; the next one finishes it.
        tables::create(&conn, "t", 2);
        fill(&conn, "t", ROWS);
        assert!(chain.table_dir().exists());
        disable(&conn);
        let conn = chain.die_during(
            Some("create.committed"),
            "DeleteTableProcedure rolled forward",
            |c| {
                let _ = c.admin().delete_table(&table_name("t"));
            },
        );
        assert!(!exists(&conn), "a recorded drop was not finished");
        assert!(
            !chain.table_dir().exists(),
            "the dropped table's folder stayed"
        );

        // Created again: that master dies after the catalog commit; the next one assigns.
        let conn = chain.die_during(
            Some("drop.committed"),
            "CreateTableProcedure rolled forward",
            |c| tables::create(c, "t", 2),
        );
        serving(&conn, 2);
        empty(&conn);
        fill(&conn, "t", ROWS);
        check_rows(&conn, "t", ROWS);

        // Dropped: that master dies after the catalog commit, before the files go.
        disable(&conn);
        let conn = chain.die_during(None, "DeleteTableProcedure rolled forward", |c| {
            let _ = c.admin().delete_table(&table_name("t"));
        });
        assert!(!exists(&conn));
        assert!(
            !chain.table_dir().exists(),
            "the dropped table's folder stayed"
        );
        tables::create(&conn, "t", 2);
        serving(&conn, 2);
        empty(&conn);
        fill(&conn, "t", ROWS);
        check_rows(&conn, "t", ROWS);
    };
    with_logs(&mut chain, body);
}

#[test]
fn a_truncate_or_modify_cut_short_is_finished_or_rolled_back_without_losing_rows() {
    let mut chain = Chain::start("truncate.committed");
    let body = |chain: &mut Chain| {
        let conn = chain.conn();
        tables::create(&conn, "t", 2);
        fill(&conn, "t", ROWS);
        let before: Vec<String> = regions(&conn, "t")
            .into_iter()
            .map(|r| r.encoded_name)
            .collect();
        disable(&conn);
        let conn = chain.die_during(
            Some("modify.written"),
            "TruncateTableProcedure rolled forward",
            |c| {
                let _ = c.admin().truncate_table(&table_name("t"), true);
            },
        );
        serving(&conn, 2);
        let after: Vec<String> = regions(&conn, "t")
            .into_iter()
            .map(|r| r.encoded_name)
            .collect();
        assert!(
            after.iter().all(|r| !before.contains(r)),
            "{before:?} {after:?}"
        );
        for r in &before {
            assert!(
                !chain.table_dir().join(r).exists(),
                "a truncated region's folder stayed: {r}"
            );
        }
        empty(&conn);
        fill(&conn, "t", ROWS);

        // A new family: the master dies having recorded it; rolled back, rows kept.
        let g = FamilyDescriptor::new(Bytes::from_static(b"g")).expect("family");
        let family = g.clone();
        let conn = chain.die_during(
            Some("modify.committed"),
            "ModifyTableProcedure rolled back",
            move |c| {
                let _ = c.admin().add_family(&table_name("t"), &family);
            },
        );
        let described = conn
            .admin()
            .describe_table(&table_name("t"))
            .expect("describe");
        assert!(described.family(b"g").is_none(), "{described:?}");
        check_rows(&conn, "t", ROWS);

        // Again: the master dies after committing it; every region is reopened with it.
        let conn = chain.die_during(None, "ModifyTableProcedure rolled forward", move |c| {
            let _ = c.admin().add_family(&table_name("t"), &g);
        });
        let described = conn
            .admin()
            .describe_table(&table_name("t"))
            .expect("describe");
        assert!(described.family(b"g").is_some(), "{described:?}");
        serving(&conn, 2);
        let table = conn.table(&table_name("t")).expect("table");
        for i in 0..ROWS {
            let put = Put::new(row(i)).add(
                Bytes::from_static(b"g"),
                Bytes::from_static(b"q"),
                Bytes::from_static(b"new"),
            );
            table
                .put(&put)
                .unwrap_or_else(|e| panic!("row {i} refuses family g: {e}"));
        }
        check_rows(&conn, "t", ROWS);
    };
    with_logs(&mut chain, body);
}

/// The encoded names of `t`'s regions.
fn region_names(conn: &RemoteConnection) -> Vec<String> {
    regions(conn, "t")
        .into_iter()
        .map(|r| r.encoded_name)
        .collect()
}

/// `t` was truncated: two new regions serve, empty, and none of `before` left a folder.
fn truncated(chain: &Chain, conn: &RemoteConnection, before: &[String]) {
    serving(conn, 2);
    let after = region_names(conn);
    assert!(
        after.iter().all(|r| !before.contains(r)),
        "{before:?} {after:?}"
    );
    for r in before {
        assert!(
            !chain.table_dir().join(r).exists(),
            "a truncated region's folder stayed: {r}"
        );
    }
    empty(conn);
}

#[test]
fn ddl_cut_short_at_every_other_crash_point_is_finished() {
    // Each master's crash point belongs to another procedure than the one it resumes, so
    // that it finishes that one before it is asked to die.
    let mut chain = Chain::start("create.assigned");
    let drop = |c: &RemoteConnection| {
        let _ = c.admin().delete_table(&table_name("t"));
    };
    let truncate = |c: &RemoteConnection| {
        let _ = c.admin().truncate_table(&table_name("t"), true);
    };
    let body = |chain: &mut Chain| {
        // Created and assigned, not marked done: the next master finishes it.
        let conn = chain.die_during(
            Some("drop.regions_closed"),
            "CreateTableProcedure rolled forward",
            |c| tables::create(c, "t", 2),
        );
        serving(&conn, 2);
        fill(&conn, "t", ROWS);
        check_rows(&conn, "t", ROWS);

        // Dropped, dying once its regions are closed: finished.
        disable(&conn);
        let conn = chain.die_during(
            Some("truncate.written"),
            "DeleteTableProcedure rolled forward",
            drop,
        );
        dropped(chain, &conn);

        // Truncated, dying once recorded: finished.
        let before = created_and_filled(&conn);
        let conn = chain.die_during(
            Some("drop.files_removed"),
            "TruncateTableProcedure rolled forward",
            truncate,
        );
        truncated(chain, &conn, &before);

        // Dropped, dying once its files are removed: finished.
        disable(&conn);
        let conn = chain.die_during(
            Some("truncate.regions_closed"),
            "DeleteTableProcedure rolled forward",
            drop,
        );
        dropped(chain, &conn);

        // Truncated, dying once its regions are closed: finished.
        let before = created_and_filled(&conn);
        let conn = chain.die_during(
            Some("modify.reopened"),
            "TruncateTableProcedure rolled forward",
            truncate,
        );
        truncated(chain, &conn, &before);

        // A new family, every region reopened with it, not marked done: finished.
        fill(&conn, "t", ROWS);
        let g = FamilyDescriptor::new(Bytes::from_static(b"g")).expect("family");
        let conn = chain.die_during(
            Some("truncate.files_removed"),
            "ModifyTableProcedure rolled forward",
            move |c| {
                let _ = c.admin().add_family(&table_name("t"), &g);
            },
        );
        let described = conn
            .admin()
            .describe_table(&table_name("t"))
            .expect("describe");
        assert!(described.family(b"g").is_some(), "{described:?}");
        serving(&conn, 2);
        let table = conn.table(&table_name("t")).expect("table");
        let put = Put::new(row(0)).add(
            Bytes::from_static(b"g"),
            Bytes::from_static(b"q"),
            Bytes::from_static(b"new"),
        );
        table.put(&put).expect("family g takes writes");
        check_rows(&conn, "t", ROWS);

        // Truncated, dying once the old regions' files are removed: finished.
        let before = region_names(&conn);
        disable(&conn);
        let conn = chain.die_during(None, "TruncateTableProcedure rolled forward", truncate);
        truncated(chain, &conn, &before);
    };
    with_logs(&mut chain, body);
}

/// `t` is gone, and its folder.
fn dropped(chain: &Chain, conn: &RemoteConnection) {
    assert!(!exists(conn), "a recorded drop was not finished");
    assert!(
        !chain.table_dir().exists(),
        "the dropped table's folder stayed"
    );
}

/// `t` created with 2 regions, filled and disabled; its regions' names.
fn created_and_filled(conn: &RemoteConnection) -> Vec<String> {
    tables::create(conn, "t", 2);
    serving(conn, 2);
    fill(conn, "t", ROWS);
    let names = region_names(conn);
    disable(conn);
    names
}
