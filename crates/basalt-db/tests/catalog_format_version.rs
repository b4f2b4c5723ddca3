//! A catalog value written by a newer Basalt (a table descriptor in `hbase:meta` with a
//! higher version byte) is refused with a message naming both versions, both when the row
//! is only in the log and when it is in meta's store files; it is never read as today's
//! layout. The database still opens (as for any catalog it cannot read, so that hbck and
//! the UI can say why), serves no table and names the versions in every refusal.

use crate::support;

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
        let db = Database::open(dir.path(), DbConfig::default()).expect("opens, serving nothing");
        let want = "table descriptor format version 3 is newer than this Basalt supports (2); upgrade Basalt";
        let conn = basalt_db::EmbeddedConnection::new(db.clone());
        let err = basalt_api::Connection::table(
            &conn,
            &basalt_types::TableName::parse("t").expect("name"),
        )
        .and_then(|t| t.get(&basalt_types::Get::new("r")))
        .expect_err("no table is served");
        assert!(err.message.contains(want), "closed: {close}: {err}");
        let health = db.health().expect("health");
        assert!(
            format!("{health:?}").contains(want),
            "closed: {close}: {health:?}"
        );
        drop(conn);
        db.close().expect("close");
    }
}
