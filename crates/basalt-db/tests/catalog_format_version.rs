//! A catalog value written by a newer Basalt (a table descriptor in `hbase:meta` with a
//! higher version byte) stops the open with a message naming both versions, both when the
//! row is only in the log and when it is in meta's store files; it is never read as
//! today's layout.

mod support;

use basalt_api::PreSplit;
use basalt_db::meta::{self, codec};
use basalt_db::{Database, DbConfig};
use basalt_types::{Durability, Put};
use support::*;

#[test]
fn a_newer_catalog_value_is_refused_naming_both_versions() {
    for close in [false, true] {
        let dir = tempfile::tempdir().expect("temp dir");
        {
            let db = open(dir.path(), DbConfig::default());
            let t = descriptor("t", &["f"]);
            db.admin.create_table(&t, &PreSplit::None).expect("create");
            let mut newer = codec::encode_table(&t);
            newer[0] = codec::VERSION + 1;
            let meta = db.db.engine().region(meta::META_REGION).expect("meta");
            let put = Put::new("t")
                .add("table", "descriptor", newer)
                .durability(Durability::SyncWal);
            meta.put(&put).expect("put");
            if close {
                db.db.close().expect("close");
            }
        }
        let err = Database::open(dir.path(), DbConfig::default()).expect_err("newer catalog");
        let want = "table descriptor format version 2 is newer than this Basalt supports (1); upgrade Basalt";
        assert!(err.message.contains(want), "closed: {close}: {err}");
    }
}
