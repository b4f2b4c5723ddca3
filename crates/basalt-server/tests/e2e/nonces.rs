//! A retried increment or append (same nonce) is answered, not applied twice.

use crate::common::{create_table, serve, test_config};
use basalt_api::Connection;
use basalt_proto::pb;
use basalt_types::{Get, Increment, Mutation, TableName};

fn counter(conn: &dyn Connection, t: &TableName) -> Option<i64> {
    let row = conn.table(t).ok()?.get(&Get::new("c")).ok()?;
    let v = row.value(b"cf", b"n")?;
    Some(i64::from_be_bytes(v.as_ref().try_into().ok()?))
}

#[test]
fn a_repeated_nonce_applies_once() {
    let served = serve(test_config());
    let t = create_table(&served.remote, "nonces");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut client = crate::common::table_client(&rt, served.addr);
    let inc = Mutation::Increment(Increment::new("c").add("cf", "n", 5));
    let req = |nonce| pb::MutateRequest {
        region: String::new(),
        table: Some((&t).into()),
        mutation: Some((&inc).into()),
        nonce_group: 42,
        nonce,
    };
    let first = rt
        .block_on(client.mutate(req(7)))
        .expect("applied")
        .into_inner();
    let again = rt
        .block_on(client.mutate(req(7)))
        .expect("answered")
        .into_inner();
    assert_eq!(first, again);
    assert_eq!(counter(&served.remote, &t), Some(5));
    rt.block_on(client.mutate(req(8))).expect("applied");
    assert_eq!(counter(&served.remote, &t), Some(10));
    // No nonce: every call applies.
    rt.block_on(client.mutate(req(0))).expect("applied");
    rt.block_on(client.mutate(req(0))).expect("applied");
    assert_eq!(counter(&served.remote, &t), Some(20));
}

#[test]
fn a_repeated_row_mutation_or_batch_with_a_counter_applies_once() {
    use basalt_types::{Action, RowMutations};
    let served = serve(test_config());
    let t = create_table(&served.remote, "nonces_rows");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut client = crate::common::table_client(&rt, served.addr);
    let rm = RowMutations::new(
        "c",
        vec![Mutation::Increment(Increment::new("c").add("cf", "n", 3))],
    )
    .expect("one row");
    let req = pb::MutateRowRequest {
        region: String::new(),
        table: Some((&t).into()),
        mutations: Some((&rm).into()),
        nonce_group: 9,
        nonce: 1,
    };
    for _ in 0..2 {
        rt.block_on(client.mutate_row(req.clone()))
            .expect("mutate row");
    }
    assert_eq!(counter(&served.remote, &t), Some(3));
    let batch = pb::BatchRequest {
        table: Some((&t).into()),
        actions: vec![basalt_proto::convert::batch::encode_action(
            &Action::RowMutations(rm),
            2,
        )],
        nonce_group: 9,
    };
    for _ in 0..2 {
        rt.block_on(client.batch(batch.clone())).expect("batch");
    }
    assert_eq!(counter(&served.remote, &t), Some(6));
}
