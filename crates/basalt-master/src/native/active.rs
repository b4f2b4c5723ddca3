//! Every master's native address in the coordinator, and the active master's as a standby
//! learns it.
//!
//! A master serving the native protocol writes `masters-native/<its gRPC address>`: its
//! native host, port and start code (the election names masters by gRPC address). Every
//! second each master reads the election's leader and that leader's key, so a standby's
//! ZooKeeper responder and registry name the active master, and `hbase:meta`'s location
//! is the active master's (a meta read sent to the standby itself answers
//! `NotServingRegionException`, and the client looks meta up again). A dead master's key
//! stays until that address starts again: it misleads no one, as only the leader's is read.

use basalt_coord::{election, layout, CoordError, Coordinator, Op, Txn};
use basalt_db::meta::codec::{decode_properties, encode_properties};
use basalt_hbase::meta::ServerIdentity;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// How often a master looks for the active master's native address.
const FOLLOW_PERIOD: Duration = Duration::from_secs(1);

/// The active master as this master last read it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Known {
    pub active: Option<ServerIdentity>,
    pub cluster_id: Option<String>,
}

/// The coordinator key of the master whose gRPC address is `address`.
pub fn key(address: &str) -> Vec<u8> {
    format!("{}{address}", layout::MASTERS_NATIVE).into_bytes()
}

/// A master's native identity as stored.
pub fn encode(me: &ServerIdentity) -> Vec<u8> {
    encode_properties(&BTreeMap::from([
        ("hbase_address".to_string(), me.host_port()),
        ("start_code".to_string(), me.start_code.to_string()),
    ]))
}

/// The identity stored by [`encode`]; `None` for a value that is not one.
pub fn decode(value: &[u8]) -> Option<ServerIdentity> {
    let props = decode_properties(value).ok()?;
    let (host, port) = props.get("hbase_address")?.rsplit_once(':')?;
    Some(ServerIdentity {
        host: host.to_string(),
        port: port.parse().ok()?,
        start_code: props.get("start_code")?.parse().ok()?,
    })
}

/// Writes this master's native identity, then reads the active master's every
/// [`FOLLOW_PERIOD`] into `known`, until aborted.
pub async fn follow(
    coord: Arc<dyn Coordinator>,
    address: String,
    me: ServerIdentity,
    known: Arc<Mutex<Known>>,
) {
    let mut tick = tokio::time::interval(FOLLOW_PERIOD);
    let mut registered = false;
    loop {
        tick.tick().await;
        if !registered {
            let put = Txn {
                compares: vec![],
                success: vec![Op::put(key(&address), encode(&me))],
                failure: vec![],
            };
            match coord.txn(put).await {
                Ok(_) => registered = true,
                Err(e) => tracing::warn!("cannot register this master's native address: {e}"),
            }
        }
        match read(coord.as_ref()).await {
            Ok(now) => *known.lock() = now,
            Err(e) => tracing::debug!("cannot read the active master's native address: {e}"),
        }
    }
}

/// The active master's native identity and the cluster id, as the coordinator has them.
async fn read(coord: &dyn Coordinator) -> Result<Known, CoordError> {
    let cluster_id = coord
        .get(layout::CLUSTER_ID.as_bytes())
        .await?
        .map(|kv| String::from_utf8_lossy(&kv.value).into_owned());
    let Some(leader) = election::leader(coord, layout::MASTER_ELECTION).await? else {
        return Ok(Known {
            active: None,
            cluster_id,
        });
    };
    let address = String::from_utf8_lossy(&leader.value).into_owned();
    let active = coord
        .get(&key(&address))
        .await?
        .and_then(|kv| decode(&kv.value));
    Ok(Known { active, cluster_id })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_masters_native_identity_round_trips_and_junk_is_none() {
        let me = ServerIdentity {
            host: "10.0.0.1".into(),
            port: 16100,
            start_code: 1700,
        };
        assert_eq!(decode(&encode(&me)), Some(me));
        assert_eq!(key("m1:16000"), b"masters-native/m1:16000".to_vec());
        assert_eq!(decode(b"junk"), None);
    }

    #[tokio::test]
    async fn a_standby_reads_the_leaders_identity() {
        let coord: Arc<dyn Coordinator> = Arc::new(basalt_coord::LocalCoordinator::new());
        let active = ServerIdentity {
            host: "m1".into(),
            port: 16100,
            start_code: 5,
        };
        let lease = coord
            .grant_lease(Duration::from_secs(60))
            .await
            .expect("lease");
        election::campaign(coord.as_ref(), layout::MASTER_ELECTION, b"m1:16000", lease)
            .await
            .expect("campaign");
        assert_eq!(read(coord.as_ref()).await.expect("read").active, None);
        let put = Txn {
            compares: vec![],
            success: vec![Op::put(key("m1:16000"), encode(&active))],
            failure: vec![],
        };
        coord.txn(put).await.expect("put");
        assert_eq!(
            read(coord.as_ref()).await.expect("read").active,
            Some(active)
        );
    }
}
