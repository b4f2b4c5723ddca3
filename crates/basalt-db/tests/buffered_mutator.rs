//! The client-side write buffer over the embedded connection: nothing is visible before a
//! flush, the buffer sends itself past its size, failures are reported together and the
//! other mutations still apply.

use crate::basics;

use basalt_api::{BufferedMutator, PreSplit};
use basalt_types::{Delete, Get, Increment, Mutation, Put, Scan};
use basics::*;

#[test]
fn buffers_until_flush_or_size_and_reports_failures_together() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_db, conn) = open(dir.path());
    admin(&conn)
        .create_table(&descriptor("t", &["f"]), &PreSplit::Keys(vec!["m".into()]))
        .expect("create");
    let t = table(&conn, "t");
    let mut buffered = BufferedMutator::with_write_buffer(t.clone(), 1024);
    buffered
        .mutate(Mutation::Put(Put::new("a").add("f", "q", "1")))
        .expect("buffer");
    buffered
        .mutate(Mutation::Put(Put::new("z").add("f", "q", "2")))
        .expect("buffer");
    assert!(
        scan_rows(t.as_ref(), &Scan::new()).is_empty(),
        "nothing sent yet"
    );
    buffered.flush().expect("flush");
    assert_eq!(row_keys(&scan_rows(t.as_ref(), &Scan::new())), ["a", "z"]);

    for i in 0..40 {
        buffered
            .mutate(Mutation::Put(Put::new(format!("row{i:02}")).add(
                "f",
                "q",
                vec![0u8; 64],
            )))
            .expect("buffer");
    }
    assert!(
        buffered.buffered_bytes() < 1024,
        "the buffer sent itself when full"
    );
    assert!(scan_rows(t.as_ref(), &Scan::new()).len() > 2);

    buffered
        .mutate(Mutation::Put(Put::new("bad").add("nope", "q", "x")))
        .expect("buffer");
    buffered
        .mutate(Mutation::Increment(
            Increment::new("counter").add("f", "n", 5),
        ))
        .expect("buffer");
    buffered
        .mutate(Mutation::Delete(Delete::new("a")))
        .expect("buffer");
    let err = buffered.flush().expect_err("one mutation fails");
    assert_eq!(err.short_name(), "RetriesExhaustedWithDetailsException");
    assert!(
        err.message.starts_with("Failed 1 action:"),
        "{}",
        err.message
    );
    assert!(
        t.get(&Get::new("a")).expect("get").is_empty(),
        "the delete applied"
    );
    assert!(
        !t.get(&Get::new("counter")).expect("get").is_empty(),
        "the increment applied"
    );

    buffered
        .mutate(Mutation::Put(Put::new("last").add("f", "q", "v")))
        .expect("buffer");
    buffered.close().expect("close sends the rest");
    assert!(!t.get(&Get::new("last")).expect("get").is_empty());
}
