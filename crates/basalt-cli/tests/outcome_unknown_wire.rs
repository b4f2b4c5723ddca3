//! A write refused at a region server's lease gate after it was logged (issue #16) is a
//! call whose outcome is unknown ([`ApiError::outcome_unknown`]): on both of Basalt's wires
//! it stays so, and clients retry it — on gRPC an `UNAVAILABLE` status carrying
//! `CallTimeoutException`; on HBase's native protocol `CallTimeoutException`, not marked
//! do-not-retry (what HBase's own client retries), never `NotServingRegionException`.

use basalt_api::{ApiError, ErrorKind};
use basalt_proto::status::{from_status, to_status};

fn refused() -> ApiError {
    basalt_db::lease_gate::refusal("127.0.0.2,16020,1", basalt_db::lease_gate::Answer::Written)
}

#[test]
fn a_logged_write_refused_at_the_gate_is_outcome_unknown_on_grpc() {
    let status = to_status(&refused());
    assert_eq!(format!("{:?}", status.code()), "Unavailable");
    let seen = from_status(&status);
    assert!(seen.is_outcome_unknown(), "{seen}");
    assert_eq!(seen.kind, ErrorKind::Unavailable);
    assert!(seen.message.contains("may or may not"), "{seen}");
}

#[test]
fn a_logged_write_refused_at_the_gate_is_a_retried_call_timeout_on_the_native_protocol() {
    let native = basalt_hbase::error::RpcError::from(refused());
    assert_eq!(
        native.class,
        "org.apache.hadoop.hbase.ipc.CallTimeoutException"
    );
    assert!(!native.do_not_retry, "HBase's client retries it");
    let read = basalt_db::lease_gate::refusal("s,1,2", basalt_db::lease_gate::Answer::Read);
    let native = basalt_hbase::error::RpcError::from(read);
    assert_eq!(
        native.class,
        "org.apache.hadoop.hbase.NotServingRegionException"
    );
}
