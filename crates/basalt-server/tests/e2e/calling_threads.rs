//! The blocking client from every kind of calling thread: plain threads (several at
//! once), a task of another runtime and that runtime's blocking pool all get their
//! answers.

use crate::common::{create_table, serve, test_config};
use basalt_api::{Connection, Table};
use basalt_types::{Get, Put};
use std::sync::Arc;

fn round_trip(table: &dyn Table, row: &str) {
    let row = row.to_string();
    table
        .put(&Put::new(row.clone()).add("cf", "q", row.clone()))
        .expect("put");
    let read = table.get(&Get::new(row.clone())).expect("get");
    assert_eq!(read.value(b"cf", b"q"), Some(row.as_bytes()));
}

#[test]
fn calls_work_from_plain_threads_and_from_inside_other_runtimes() {
    let served = serve(test_config());
    let t = create_table(&served.remote, "threads");
    let table: Arc<dyn Table> = served.remote.table(&t).expect("table");

    round_trip(table.as_ref(), "plain");
    std::thread::scope(|s| {
        for n in 0..4 {
            let table = table.clone();
            s.spawn(move || {
                for i in 0..50 {
                    round_trip(table.as_ref(), &format!("thread{n}-{i}"));
                }
            });
        }
    });

    let current = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    current.block_on(async { round_trip(table.as_ref(), "in-a-task") });

    let multi = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let in_pool = table.clone();
    multi
        .block_on(multi.spawn_blocking(move || round_trip(in_pool.as_ref(), "in-a-blocking-pool")))
        .expect("the blocking task ran");
    let in_task = table.clone();
    multi
        .block_on(multi.spawn(async move { round_trip(in_task.as_ref(), "in-a-worker") }))
        .expect("the task ran");
}
